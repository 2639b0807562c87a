"""``graph.step_timeout``: a superstep still running after it fails the run, as LangGraph's.

Deterministic: the slow node waits on an event nobody sets before the run has failed (the
timeout is what ends the wait), so no test depends on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import END, START, StateGraph
from sgdebug.runtime.checkpoint.memory import InMemorySaver


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _quick(state: Any) -> dict[str, Any]:
    return {"log": ["quick"]}


def test_a_sync_step_past_its_timeout_raises_timeout_error() -> None:
    release, started = threading.Event(), threading.Event()

    def stuck(state: Any) -> dict[str, Any]:
        started.set()
        release.wait(10)
        return {"log": ["stuck"]}

    b = StateGraph(S).add_node("stuck", stuck).add_node("quick", _quick)
    b.add_edge(START, "stuck").add_edge(START, "quick")
    graph = b.compile(checkpointer=InMemorySaver())
    graph.step_timeout = 0.05
    config = {"configurable": {"thread_id": "t"}}
    try:
        with pytest.raises(TimeoutError, match="Timed out"):
            graph.invoke({"log": []}, config)
        assert started.is_set()
    finally:
        release.set()
    state = graph.get_state(config)  # the finished task's writes are kept, as LangGraph keeps them
    assert [(t.name, t.result) for t in state.tasks if t.result] == [("quick", {"log": ["quick"]})]


def test_a_lone_sync_task_is_timed_too() -> None:
    release = threading.Event()

    def stuck(state: Any) -> dict[str, Any]:
        release.wait(10)
        return {"log": ["stuck"]}

    graph = StateGraph(S).add_node("stuck", stuck).add_edge(START, "stuck").compile()
    graph.step_timeout = 0.05
    try:
        with pytest.raises(TimeoutError):
            list(graph.stream({"log": []}))
    finally:
        release.set()


def test_an_async_step_past_its_timeout_cancels_its_tasks() -> None:
    cancelled: list[str] = []

    async def stuck(state: Any) -> dict[str, Any]:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append("stuck")
            raise
        return {}

    b = StateGraph(S).add_node("stuck", stuck).add_node("quick", _quick)
    b.set_conditional_entry_point(lambda s: ["stuck", "quick"])
    graph = b.compile()
    graph.step_timeout = 0.05

    async def main() -> None:
        with pytest.raises(TimeoutError):
            async for _ in graph.astream({"log": []}, stream_mode="updates"):
                pass

    asyncio.run(main())
    assert cancelled == ["stuck"]


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_steps_within_the_timeout_run_as_without_it(use_async: bool) -> None:
    b = StateGraph(S).add_node("a", _quick).add_node("b", _quick).add_node("c", _quick)
    b.add_edge(START, "a").add_edge("a", "b").add_edge("a", "c")
    b.add_edge("b", END).add_edge("c", END)
    graph = b.compile()
    graph.step_timeout = 30
    out = asyncio.run(graph.ainvoke({"log": []})) if use_async else graph.invoke({"log": []})
    assert out == {"log": ["quick"] * 3}
    assert (
        graph.step_timeout == 30
        and StateGraph(S).add_node("a", _quick).add_edge(START, "a").compile().step_timeout is None
    )
