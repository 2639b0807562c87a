"""The LangGraph engine's task clock: each task's own time, read where LangGraph runs it.

A clock per thread (:class:`~tests.task_clock.ThreadClock`) stands in for
``time.perf_counter``; each node moves it on by a known amount, so the times are exact.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy, interrupt

from sgdebug.debugger.engines import _lg_clock
from sgdebug.debugger.engines._lg_clock import TaskClock
from tests.task_clock import ThreadClock


class S(TypedDict, total=False):
    n: int
    answer: str


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ThreadClock:
    fake = ThreadClock()
    monkeypatch.setattr(_lg_clock, "time", SimpleNamespace(perf_counter=fake))
    return fake


def _times(graph: Any, value: Any, config: dict[str, Any] | None = None) -> dict[str, float]:
    """Each task's time by its name (``parent/inner`` inside a subgraph), one stream."""
    timer = TaskClock()
    names: dict[str, str] = {}
    config = {**(config or {}), "callbacks": [timer]}
    for namespace, _, event in graph.stream(value, config, stream_mode=["debug"], subgraphs=True):
        if event["type"] == "task":
            where = [part.split(":")[0] for part in namespace]
            names[event["payload"]["id"]] = "/".join([*where, event["payload"]["name"]])
    found = {name: timer.seconds(task) for task, name in names.items()}
    return {name: seconds for name, seconds in found.items() if seconds is not None}


def test_every_attempt_under_a_retry_policy_counts(clock: ThreadClock) -> None:
    attempts: list[int] = []

    def flaky(state: S) -> S:
        clock.advance(1.0)
        attempts.append(1)
        if len(attempts) < 3:
            raise ValueError("not yet")
        return {"n": len(attempts)}

    builder = StateGraph(S)
    builder.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(initial_interval=0.0, jitter=False, retry_on=ValueError),
    )
    builder.add_edge(START, "flaky")

    assert _times(builder.compile(), {"n": 0})["flaky"] == 3.0


def test_a_subgraphs_tasks_have_their_own_times_beside_the_task_that_runs_it(
    clock: ThreadClock,
) -> None:
    def check(state: S) -> S:
        clock.advance(1.5)
        return {"n": 1}

    inner = StateGraph(S)
    inner.add_node("check", check).add_edge(START, "check")
    outer = StateGraph(S)
    outer.add_node("review", inner.compile()).add_edge(START, "review")

    times = _times(outer.compile(), {"n": 0})

    assert times["review/check"] == 1.5  # (not folded into its parent task's run)
    assert set(times) == {"review", "review/check"}


def test_a_task_that_asks_at_an_interrupt_is_timed_up_to_the_question(
    clock: ThreadClock,
) -> None:
    def ask(state: S) -> S:
        clock.advance(0.25)
        return {"answer": interrupt("ok?")}

    builder = StateGraph(S)
    builder.add_node("ask", ask).add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemorySaver())

    times = _times(graph, {"n": 0}, {"configurable": {"thread_id": "1"}})

    assert times["ask"] == 0.25
