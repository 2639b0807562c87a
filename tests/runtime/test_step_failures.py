"""Steps that fail outside their tasks' bodies: a channel rejecting the step's writes at
commit, or a task's input that cannot be built. ``invoke`` and ``get_state`` raise as
LangGraph's do; a run whose hook keeps the step goes back before it, to edit and retry;
``inspect_state`` shows such a checkpoint without raising."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel

from sgdebug.runtime import START, BaseHook, RunView, StateGraph, StepFailure, inspect_state
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.errors import InvalidUpdateError

CFG: dict[str, Any] = {"configurable": {"thread_id": "t"}}


class S(TypedDict, total=False):
    mode: str
    log: Annotated[list[str], operator.add]


def _writers() -> Any:
    """``START -> a -> {b, c}``; ``b`` and ``c`` write bare strings (which ``operator.add``
    rejects at commit) while ``mode`` is ``"bad"``."""

    def writer(name: str) -> Any:
        return lambda state: {"log": name if state.get("mode") == "bad" else [name]}

    builder = StateGraph(S).add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", writer("b")).add_node("c", writer("c"))
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c")
    return builder.compile(checkpointer=InMemorySaver())


class Keep(BaseHook):
    """Keeps every failed step; remembers what it was told."""

    def __init__(self, keep: bool = True) -> None:
        self.keep = keep
        self.failures: list[StepFailure] = []

    def on_step_error(self, run: RunView, failure: StepFailure) -> bool:
        self.failures.append(failure)
        return self.keep


def test_invoke_and_get_state_raise_the_commit_error_as_langgraph_does() -> None:
    graph = _writers()
    with pytest.raises(TypeError, match="can only concatenate list"):
        graph.invoke({"mode": "bad"}, CFG)
    with pytest.raises(TypeError, match="can only concatenate list"):
        graph.get_state(CFG)  # the latest state applies the stored writes again
    snapshot, failure = inspect_state(graph, CFG)
    assert snapshot.values == {"mode": "bad", "log": ["a"]} and snapshot.next == ("b", "c")
    assert failure is not None
    assert (failure.phase, failure.step, failure.channel, failure.writers) == (
        "commit", 2, "log", ("b", "c")
    )  # fmt: skip
    assert (failure.channel_type, failure.reducer) == ("BinaryOperatorAggregate", "operator.add")


def test_a_kept_commit_failure_stands_before_the_step_and_an_edit_lets_it_commit() -> None:
    hook = Keep()
    run = _writers().start({"mode": "bad"}, CFG, hooks=[hook])
    assert run.advance() == "error"
    assert run.failure is not None and run.failure.writers == ("b", "c")
    assert run.read_values(("mode", "log")) == {"mode": "bad", "log": ["a"]}
    assert [(t.name, t.done) for t in run.tasks] == [("b", True), ("c", True)]
    run.retry()
    assert run.advance() == "error"  # the same writes fail again
    run.edit([("mode", "good")], discard_done=True)
    assert run.failure is None
    assert run.advance() == "done"
    assert run.read_values(("log",)) == {"log": ["a", "b", "c"]}
    assert len(hook.failures) == 2


def test_a_failure_no_hook_keeps_propagates() -> None:
    hook = Keep(keep=False)
    run = _writers().start({"mode": "bad"}, CFG, hooks=[hook])
    with pytest.raises(TypeError):
        run.advance()
    assert len(hook.failures) == 1


def test_two_writes_to_a_plain_key_name_both_writers() -> None:
    class P(TypedDict, total=False):
        x: int

    builder = StateGraph(P).add_node("p", lambda s: {"x": 1}).add_node("q", lambda s: {"x": 2})
    builder.add_edge(START, "p").add_edge(START, "q")
    run = builder.compile(checkpointer=InMemorySaver()).start({"x": 0}, CFG, hooks=[Keep()])
    assert run.advance() == "error"
    failure = run.failure
    assert failure is not None and isinstance(failure.error, InvalidUpdateError)
    assert (failure.channel, failure.channel_type, failure.reducer, failure.writers) == (
        "x", "LastValue", None, ("p", "q")
    )  # fmt: skip
    assert run.read_values(("x",)) == {"x": 0}


def test_an_edit_a_channel_rejects_raises_and_changes_nothing() -> None:
    run = _writers().start({"mode": "good"}, CFG, hooks=[Keep()])
    run.advance(one_step=True)
    before = run.read_values(("mode", "log"))
    with pytest.raises(TypeError):
        run.edit([("mode", "other"), ("log", 5)])
    assert run.read_values(("mode", "log")) == before
    assert run.advance() == "done"


class Strict(BaseModel):
    x: int
    log: Annotated[list[str], operator.add] = []


def _strict() -> Any:
    builder = StateGraph(Strict).add_node("a", lambda s: {"log": ["a"]})
    return builder.add_edge(START, "a").compile(checkpointer=InMemorySaver())


def test_an_input_the_schema_rejects_fails_the_plan_with_langgraphs_note() -> None:
    graph = _strict()
    with pytest.raises(Exception, match="validation error for Strict") as info:
        graph.invoke({"x": "abc"}, CFG)
    assert "Before task with name 'a' and path '('__pregel_pull', 'a')'" in info.value.__notes__
    snapshot, failure = inspect_state(graph, CFG)
    assert snapshot.values == {"x": "abc", "log": []} and snapshot.next == ()
    assert failure is not None
    assert (failure.phase, failure.step, failure.writers, failure.channel) == (
        "plan", 1, ("a",), "x"
    )  # fmt: skip


def test_a_kept_plan_failure_is_planned_again_after_an_edit() -> None:
    run = _strict().start({"x": "abc"}, CFG, hooks=[Keep()])
    assert run.advance() == "error"
    assert run.failure is not None and run.failure.phase == "plan" and run.tasks == []
    run.edit([("x", 1)])
    assert run.status != "error" and [t.name for t in run.tasks] == ["a"]
    assert run.advance() == "done"
    assert run.read_values(("x", "log")) == {"x": 1, "log": ["a"]}
