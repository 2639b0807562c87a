"""Pending task rows: triggers, Sends with their argument, inputs, statuses, breakpoints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import pytest

from sgdebug.inspect.preview import preview
from sgdebug.inspect.tasks import TaskRow, error_text, snapshot_task_rows, task_rows
from sgdebug.runtime import START, BaseHook, RunView, StateGraph, Task, interrupt
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.sample_graphs import RUNS_ALONE, load


class S(TypedDict):
    x: str


class _Plans(BaseHook):
    """Task rows at every plan, and again after each task ran."""

    def __init__(self, before: frozenset[str] = frozenset()) -> None:
        self.before = before
        self.planned: list[tuple[TaskRow, ...]] = []
        self.finished: list[TaskRow] = []

    def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
        self.planned.append(task_rows(tasks, before=self.before, last_commit=run.last_commit))
        return False

    def after_task(self, run: RunView, task: Task) -> bool:
        self.finished.extend(task_rows([task]))
        return False


def _run(name: str, before: frozenset[str] = frozenset()) -> _Plans:
    sample = load(name)
    hook = _Plans(before)
    run = sample.graph.start(sample.EXAMPLE_INPUT, hooks=[hook])
    assert run.advance() == "done"
    return hook


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_rows_describe_every_planned_task(name: str) -> None:
    hook = _run(name)

    for rows in hook.planned:
        for row in rows:
            assert row.status == "pending"
            assert row.input_preview == preview(row.input)
            assert row.triggers
            assert row.writes == () and row.routes == ()
    assert [r.status for r in hook.finished] == ["done"] * len(hook.finished)


def test_sends_carry_their_argument_and_source() -> None:
    hook = _run("map_reduce")

    workers = hook.planned[2]

    assert [r.name for r in workers] == ["count_words"] * 3
    assert all(r.send and r.triggers == ("__pregel_push",) for r in workers)
    assert [r.sources for r in workers] == [("split",)] * 3
    assert [r.input["index"] for r in workers] == [0, 1, 2]
    assert workers[0].arg_preview is not None
    assert workers[0].arg_preview.startswith("{'index': 0, 'chunk': 'A superstep")
    assert hook.planned[1][0].arg_preview is None


def test_pull_tasks_name_their_trigger_channels_and_source_nodes() -> None:
    hook = _run("fanout")

    [d] = hook.planned[3]
    b_and_c = hook.planned[1]

    assert d.name == "d"
    assert d.triggers == ("branch:to:d", "join:b_2+c:d")
    assert d.sources == ("b_2",)
    assert [(r.name, r.sources) for r in b_and_c] == [("b", ("__start__",)), ("c", ("__start__",))]


def test_done_tasks_list_state_writes_and_routes() -> None:
    hook = _run("map_reduce")

    split = next(r for r in hook.finished if r.name == "split")

    assert [k for k, _ in split.writes] == ["chunks"]
    assert split.routes == ("count_words",)
    loop = _run("loop")
    assert {r.routes for r in loop.finished if r.name == "attempt"} == {("attempt",), ("report",)}


def test_breakpoint_marks() -> None:
    hook = _run("linear", before=frozenset({"node_2"}))
    rows = [r for plan in hook.planned for r in plan]

    assert [(r.name, r.break_before, r.break_after) for r in rows] == [
        ("__start__", False, False),
        ("node_1", False, False),
        ("node_2", True, False),
    ]
    everything = _run("linear", before=frozenset({"*"}))
    assert all(r.break_before for plan in everything.planned for r in plan)


def test_error_and_interrupt_statuses() -> None:
    def boom(state: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("bad input")

    def ask(state: dict[str, Any]) -> dict[str, Any]:
        return {"x": interrupt("why?")}

    class Keep(BaseHook):
        def __init__(self) -> None:
            self.rows: list[TaskRow] = []

        def after_task(self, run: RunView, task: Task) -> bool:
            self.rows.extend(task_rows([task]))
            return False

        def on_error(self, run: RunView, task: Task, error: BaseException) -> bool:
            self.rows.extend(task_rows([task]))
            return True

    builder = StateGraph(S).add_node("boom", boom).add_node("ask", ask)
    builder.add_edge(START, "boom").add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemorySaver())
    hook = Keep()
    run = graph.start({"x": "a"}, {"configurable": {"thread_id": "1"}}, hooks=[hook])

    assert run.advance() == "error"
    rows = {r.name: r for r in hook.rows}
    assert rows["boom"].status == "error"
    assert rows["boom"].error == "ValueError: bad input"
    assert rows["ask"].status == "interrupted"
    assert rows["ask"].interrupts == ("'why?'",)


def test_snapshot_task_rows_show_results() -> None:
    sample = load("map_reduce")
    graph = sample.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke(sample.EXAMPLE_INPUT, config)
    snapshots = list(graph.get_state_history(config))
    send_step = next(s for s in snapshots if s.next == ("count_words",) * 3)

    rows = snapshot_task_rows(send_step, after=frozenset({"count_words"}))

    assert [r.name for r in rows] == ["count_words"] * 3
    assert all(r.send and r.status == "done" and r.break_after for r in rows)
    assert [k for k, _ in rows[0].writes] == ["counts"]
    assert rows[0].input_preview == "<empty>"


def test_error_text_reads_a_stored_repr_as_an_exception_shows() -> None:
    """LangGraph's snapshots hold ``repr(error)``; the native engine has the exception."""
    assert error_text(ValueError("no")) == "ValueError: no"
    assert error_text("ValueError('no')") == "ValueError: no"
    assert error_text('KeyError("it\'s")') == error_text(KeyError("it's")) == 'KeyError: "it\'s"'
    assert error_text("TimeoutError('a\\nb')") == "TimeoutError: a\nb"
    assert error_text("ValueError('x', 2)") == "ValueError('x', 2)"  # (not one string: as it is)
    assert error_text("something else") == "something else"
    assert error_text("Boom('__import__(\"os\")')") == 'Boom: __import__("os")'  # (text only)
    assert error_text(None) is None
