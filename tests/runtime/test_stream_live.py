"""``stream(subgraphs=True)`` yields a subgraph's events while the step running it runs.

A parallel node waits until the caller has *received* the subgraph's first update: if the
stream only yielded once the step ended, it would wait in vain (it gives up after a few
seconds and reports that). No clock is read: the test hands off through events.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from collections.abc import Generator
from typing import Annotated, Any, TypedDict, cast

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.types import Command

GIVE_UP_S = 10.0


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(received: threading.Event, waited: list[bool]) -> Any:
    inner = StateGraph(S).add_node("inner", lambda s: {"log": ["inner"]})
    child: Any = inner.add_edge(START, "inner").compile()

    def waiter(state: S) -> dict[str, Any]:
        waited.append(received.wait(GIVE_UP_S))
        return {"log": ["waiter"]}

    b = StateGraph(S).add_node("sub", child).add_node("waiter", waiter)
    return b.add_edge(START, "sub").add_edge(START, "waiter").compile()


def _first_inner(chunk: Any) -> bool:
    namespace, update = chunk
    return bool(namespace) and "inner" in update


def test_a_subgraphs_update_arrives_while_its_step_still_runs() -> None:
    received, waited = threading.Event(), list[bool]()
    chunks = []
    for chunk in _graph(received, waited).stream({"log": []}, subgraphs=True):
        chunks.append(chunk)
        if _first_inner(chunk):
            received.set()
    assert waited == [True]
    names = [next(iter(update)) for _, update in chunks]
    assert names.index("inner") < names.index("waiter")
    assert sorted(names) == ["inner", "sub", "waiter"]


def test_astream_yields_a_subgraphs_update_while_its_step_still_runs() -> None:
    received, waited = threading.Event(), list[bool]()

    async def collect() -> list[Any]:
        out = []
        async for chunk in _graph(received, waited).astream({"log": []}, subgraphs=True):
            out.append(chunk)
            if _first_inner(chunk):
                received.set()
        return out

    chunks = asyncio.run(collect())
    assert waited == [True]
    assert chunks[0][0] != ()


def test_a_stream_closed_mid_run_stops_after_the_step() -> None:
    ran: list[str] = []

    def step(name: str) -> Any:
        def node(state: S) -> Command[Any]:
            ran.append(name)
            return Command(update={"log": [name]})

        return node

    b = StateGraph(S).add_node("a", step("a")).add_node("b", step("b"))
    graph = b.add_edge(START, "a").add_edge("a", "b").compile()
    stream = cast("Generator[Any, None, None]", graph.stream({"log": []}, subgraphs=True))
    assert next(stream) == ((), {"a": {"log": ["a"]}})
    stream.close()
    assert ran == ["a"]


def test_an_error_in_a_live_step_reaches_the_caller() -> None:
    def fail(state: S) -> dict[str, Any]:
        raise LookupError("gone")

    child: Any = StateGraph(S).add_node("bad", fail).add_edge(START, "bad").compile()
    graph = StateGraph(S).add_node("sub", child).add_edge(START, "sub").compile()
    chunks: list[Any] = []
    try:
        for chunk in graph.stream({"log": []}, stream_mode="tasks", subgraphs=True):
            chunks.append(chunk)
    except LookupError as exc:
        assert str(exc) == "gone"
    else:
        raise AssertionError("the subgraph's error was not raised")
    assert [(ns != (), c["name"], "error" in c) for ns, c in chunks] == [
        (False, "sub", False),
        (True, "bad", False),
        (True, "bad", True),
        (False, "sub", True),
    ]


def _talker(received: threading.Event, waited: list[bool]) -> Any:
    """One node: writes a custom chunk, then waits until the caller has received it."""
    from sgdebug.runtime import get_stream_writer

    def talk(state: S) -> dict[str, Any]:
        get_stream_writer()("hello")
        waited.append(received.wait(GIVE_UP_S))
        return {"log": ["talk"]}

    return StateGraph(S).add_node("talk", talk).add_edge(START, "talk").compile()


def test_a_custom_chunk_arrives_while_its_node_still_runs() -> None:
    received, waited = threading.Event(), list[bool]()
    chunks = []
    for chunk in _talker(received, waited).stream({"log": []}, stream_mode=["custom", "updates"]):
        chunks.append(chunk)
        if chunk == ("custom", "hello"):
            received.set()
    assert waited == [True]
    assert chunks == [("custom", "hello"), ("updates", {"talk": {"log": ["talk"]}})]


def test_astream_yields_a_custom_chunk_while_its_node_still_runs() -> None:
    received, waited = threading.Event(), list[bool]()

    async def collect() -> list[Any]:
        out = []
        async for chunk in _talker(received, waited).astream({"log": []}, stream_mode="custom"):
            out.append(chunk)
            received.set()
        return out

    assert asyncio.run(collect()) == ["hello"]
    assert waited == [True]
