"""The Run object: advancing superstep by superstep, pause hooks, pausing and resuming."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, BaseHook, CommitRecord, RunView, StateGraph, Task
from sgdebug.runtime.channels import MISSING


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def _fanout() -> Any:
    def a(s: S) -> dict[str, Any]:
        return {"x": s["x"] + 1, "log": ["a"]}

    def b(s: S) -> dict[str, Any]:
        return {"log": ["b"]}

    def c(s: S) -> dict[str, Any]:
        return {"log": ["c"]}

    builder = StateGraph(S).add_node(a).add_node(b).add_node(c)
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c")
    return builder.compile()


class Recorder(BaseHook):
    """Records every call; pauses where told to."""

    def __init__(self, pause_on: str = "") -> None:
        self.calls: list[tuple[str, Any]] = []
        self.pause_on = pause_on

    def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
        self.calls.append(("plan", tuple(t.name for t in tasks)))
        return self.pause_on == "plan"

    def after_task(self, run: RunView, task: Task) -> bool:
        self.calls.append(("task", (task.name, tuple(task.writes))))
        return self.pause_on == "task"

    def after_commit(self, run: RunView, record: CommitRecord) -> bool:
        changes = {c.channel: (c.old, c.new) for c in record.changes if c.channel in ("x", "log")}
        self.calls.append(("commit", changes))
        return self.pause_on == "commit"

    def on_error(self, run: RunView, task: Task, error: BaseException) -> bool:
        self.calls.append(("error", (task.name, repr(error))))
        return True


def test_hooks_see_plan_tasks_and_commits_in_order() -> None:
    hook = Recorder()
    run = _fanout().start({"x": 1}, hooks=[hook])
    assert run.advance() == "done"
    kinds = [k for k, _ in hook.calls]
    step = ["plan", "task", "commit"]
    assert kinds == [*step, *step, "plan", "task", "task", "commit"]
    assert hook.calls[3] == ("plan", ("a",))
    assert hook.calls[4] == (
        "task",
        ("a", (("x", 2), ("log", ["a"]), ("branch:to:b", None), ("branch:to:c", None))),
    )
    assert hook.calls[5] == ("commit", {"x": (1, 2), "log": ([], ["a"])})
    assert hook.calls[6] == ("plan", ("b", "c"))
    assert hook.calls[-1] == ("commit", {"log": (["a"], ["a", "b", "c"])})


def test_a_paused_run_resumes_exactly_where_it_stopped() -> None:
    hook = Recorder(pause_on="plan")
    run = _fanout().start({"x": 1}, hooks=[hook])
    statuses = []
    while (status := run.advance()) == "paused":
        statuses.append((status, tuple(t.name for t in run.tasks)))
    assert status == "done"
    assert statuses == [("paused", ("__start__",)), ("paused", ("a",)), ("paused", ("b", "c"))]
    assert run.read_values(("x", "log")) == {"x": 2, "log": ["a", "b", "c"]}


def test_pause_after_each_task_leaves_the_step_uncommitted() -> None:
    hook = Recorder(pause_on="task")
    run = _fanout().start({"x": 1}, hooks=[hook])
    for _ in range(3):  # __start__, a, then the first task of {b, c}
        assert run.advance() == "paused"
    assert run.read_values(("log",)) == {"log": ["a"]}
    assert run.phase in ("execute", "commit")
    while run.advance() == "paused":
        pass
    assert run.read_values(("log",)) == {"log": ["a", "b", "c"]}


def test_commit_record_lists_writes_by_task_in_application_order() -> None:
    records: list[CommitRecord] = []

    class Keep(BaseHook):
        def after_commit(self, run: RunView, record: CommitRecord) -> bool:
            records.append(record)
            return False

    _fanout().start({"x": 1}, hooks=[Keep()]).advance()
    last = {c.channel: c for c in records[-1].changes}["log"]
    assert [(w.task_name, w.value) for w in last.writes] == [("b", ["b"]), ("c", ["c"])]
    assert last.old == ["a"] and last.new == ["a", "b", "c"]
    first = {c.channel: c for c in records[0].changes}
    assert first["x"].old is MISSING and first["x"].new == 1


def test_on_error_keeps_the_run_alive_and_retry_reruns_only_the_failed_task() -> None:
    calls = {"b": 0, "c": 0}

    def b(s: S) -> dict[str, Any]:
        calls["b"] += 1
        if calls["b"] == 1:
            raise ValueError("flaky")
        return {"log": ["b"]}

    def c(s: S) -> dict[str, Any]:
        calls["c"] += 1
        return {"log": ["c"]}

    builder = StateGraph(S).add_node(b).add_node(c)
    builder.add_edge(START, "b").add_edge(START, "c")
    hook = Recorder()
    run = builder.compile().start({"x": 0}, hooks=[hook])
    assert run.advance() == "error"
    failed = run.failed
    assert failed is not None and failed.name == "b"
    assert ("error", ("b", "ValueError('flaky')")) in hook.calls
    assert run.read_values(("log",)) == {"log": []}  # nothing committed
    run.retry()
    assert run.advance() == "done"
    assert calls == {"b": 2, "c": 1}
    assert run.read_values(("log",)) == {"log": ["b", "c"]}


def test_without_a_hook_that_keeps_it_alive_the_error_propagates() -> None:
    def boom(s: S) -> dict[str, Any]:
        raise KeyError("missing")

    graph = StateGraph(S).add_node(boom).add_edge(START, "boom").compile()
    with pytest.raises(KeyError) as info:
        graph.invoke({"x": 1})
    assert any("During task with name 'boom'" in note for note in info.value.__notes__)


def test_one_step_advances_a_single_superstep_and_plans_the_next() -> None:
    run = _fanout().start({"x": 1})
    assert run.advance(one_step=True) == "running"
    assert [t.name for t in run.tasks] == ["a"]
    assert run.advance(one_step=True) == "running"
    assert [t.name for t in run.tasks] == ["b", "c"]
    assert run.advance(one_step=True) == "done"
