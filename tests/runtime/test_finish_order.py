"""A streamed step reports its parallel tasks as they finish (LangGraph's order), and tasks
that finish together in scheduling order (deterministic).

The slow task is scheduled first and waits until the caller has *received* the fast task's
update (the ``custom`` mode makes the stream yield while the step runs), so it cannot finish
first; no clock is read. Interrupts keep the same order on both engines.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.sample_graphs._engines import ENGINES, Engine, EngineAPI, api

GIVE_UP_S = 10.0
LIVE = ["updates", "custom"]


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(g: EngineAPI, received: threading.Event, ask: bool = False) -> Any:
    """``a_slow`` (scheduled first) waits for the caller to receive ``b_fast``'s update;
    with ``ask`` it then interrupts."""

    def a_slow(state: S) -> dict[str, Any]:
        if not received.wait(GIVE_UP_S):
            return {"log": ["gave up"]}
        if ask:
            g.interrupt("a?")
        return {"log": ["a"]}

    b = g.StateGraph(S).add_node("a_slow", a_slow).add_node("b_fast", lambda s: {"log": ["b"]})
    b.add_edge(g.START, "a_slow").add_edge(g.START, "b_fast")
    saver = g.InMemorySaver() if ask else None
    return b.compile(checkpointer=saver)


def _names(chunks: list[Any]) -> list[str]:
    return [next(iter(data)) for mode, data in chunks if mode == "updates"]


def _consume(stream: Iterator[Any], received: threading.Event) -> list[Any]:
    out = []
    for mode, data in stream:
        out.append((mode, data))
        if mode == "updates" and "b_fast" in data:
            received.set()
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fast_task_is_reported_before_a_slow_one_scheduled_first(engine: Engine) -> None:
    received = threading.Event()
    chunks = _consume(_graph(api(engine), received).stream({"log": []}, stream_mode=LIVE), received)
    assert chunks == [
        ("updates", {"b_fast": {"log": ["b"]}}),
        ("updates", {"a_slow": {"log": ["a"]}}),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_an_interrupt_is_reported_when_its_task_stops(engine: Engine) -> None:
    received = threading.Event()
    graph = _graph(api(engine), received, ask=True)
    config = {"configurable": {"thread_id": "t"}}
    stream = graph.stream({"log": []}, config, stream_mode=LIVE)
    chunks = _consume(stream, received)
    assert [name for name in _names(chunks)] == ["b_fast", "__interrupt__"]
    assert graph.get_state(config).values == {"log": ["b"]}


@pytest.mark.parametrize("engine", ENGINES)
def test_astream_reports_a_fast_task_first(engine: Engine) -> None:
    received = threading.Event()
    graph = _graph(api(engine), received)

    async def collect() -> list[Any]:
        out = []
        async for mode, data in graph.astream({"log": []}, stream_mode=LIVE):
            out.append((mode, data))
            if "b_fast" in data:
                received.set()
        return out

    assert _names(asyncio.run(collect())) == ["b_fast", "a_slow"]


def _trivial(g: EngineAPI) -> Any:
    b = g.StateGraph(S)
    for name in "abcde":
        b.add_node(name, lambda s, name=name: {"log": [name]})
        b.add_edge(g.START, name)
    return b.compile()


def test_tasks_finishing_together_keep_scheduling_order() -> None:
    graph = _trivial(api())
    for _ in range(30):
        chunks = list(graph.stream({"log": []}, stream_mode=["updates", "tasks"]))
        updates = [next(iter(data)) for mode, data in chunks if mode == "updates"]
        results = [data["name"] for mode, data in chunks if mode == "tasks" and "result" in data]
        assert updates == results == list("abcde")


def test_async_tasks_finishing_together_keep_scheduling_order() -> None:
    graph = _trivial(api())

    async def names() -> list[str]:
        return [next(iter(chunk)) async for chunk in graph.astream({"log": []})]

    for _ in range(30):
        assert asyncio.run(names()) == list("abcde")
