"""Programs with ``async def`` nodes and edges, on both engines: LangGraph runs those only
through its async API, so the LangGraph engine drives such a graph with ``astream`` and
``aupdate_state`` (``engines._lg_async``); the native runtime runs them in any call."""

from __future__ import annotations

import asyncio
import operator
import sys
import threading
import time
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger.engines._lg_async import Driver, _await, async_only_refusal, needs_async
from sgdebug.debugger.results import EngineName
from sgdebug.sample_graphs._engines import api

from .engine_scenarios import BUILT_WITH, on_both, session_on, stopped, values
from .helpers import ok


class Log(TypedDict):
    log: Annotated[list[str], operator.add]
    n: int


def _async_graph(engine: EngineName, *, asks: bool = False) -> Any:
    """Two async nodes side by side, then a sync join, then an async routing edge that
    loops the join until ``n`` reaches 2 (``asks``: the join asks through interrupt())."""
    lg = api(BUILT_WITH[engine])

    async def fetch(state: Log) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"log": ["fetched"]}

    async def parse(state: Log) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"log": ["parsed"]}

    def join(state: Log) -> dict[str, Any]:
        said = lg.interrupt("more?") if asks else "yes"
        return {"log": [f"join {state['n']} {said}"], "n": state["n"] + 1}

    async def again(state: Log) -> str:
        return "join" if state["n"] < 2 else str(lg.END)

    builder = lg.StateGraph(Log)
    builder.add_node("fetch", fetch)
    builder.add_node("parse", parse)
    builder.add_node("join", join)
    builder.add_edge(lg.START, "fetch")
    builder.add_edge(lg.START, "parse")
    builder.add_edge(["fetch", "parse"], "join")
    builder.add_conditional_edges("join", again, ["join", lg.END])
    return builder.compile()


class S(TypedDict):
    n: int


ENDED = {"log": ["fetched", "parsed", "join 0 yes", "join 1 yes"], "n": 2}


@on_both
def test_async_nodes_and_edges_step_and_run_to_the_end(engine: EngineName) -> None:
    session = session_on(_async_graph(engine), engine, {"log": [], "n": 0})
    ok(session, "restart")
    assert stopped(ok(session, "step 2")) == ("paused", "step", 2)
    assert values(session) == {"log": ["fetched", "parsed"], "n": 0}
    assert session.pending_tasks == ("join",)
    assert ok(session, "continue").status == "done"
    assert values(session) == ENDED


@on_both
def test_an_edit_applied_as_a_node_with_an_async_edge_routes_by_it(engine: EngineName) -> None:
    """``update … as join`` runs join's async conditional edge (LangGraph's update_state
    refuses it: only aupdate_state can)."""
    session = session_on(_async_graph(engine), engine, {"log": [], "n": 0})
    ok(session, "restart")
    ok(session, "step 3")  # join ran once: n = 1, join pending again
    ok(session, "update {'n': 5} as join")
    assert session.pending_tasks == ()  # again() sent it to END
    assert values(session)["n"] == 5


@on_both
def test_an_interrupt_in_a_graph_with_async_nodes_is_answered(engine: EngineName) -> None:
    session = session_on(_async_graph(engine, asks=True), engine, {"log": [], "n": 0})
    ok(session, "restart")
    assert ok(session, "continue").status == "interrupted"
    assert ok(session, "resume 'ok'").status == "interrupted"  # (join runs twice)
    assert ok(session, "resume 'ok'").status == "done"
    assert values(session)["log"] == ["fetched", "parsed", "join 0 ok", "join 1 ok"]


def test_the_driver_finds_async_parts_anywhere_and_none_in_a_sync_graph() -> None:
    from langchain_core.tools import tool
    from langgraph.graph import START, StateGraph
    from langgraph.prebuilt import ToolNode

    def sync_node(state: S) -> dict[str, Any]:
        return {"n": 1}

    async def async_node(state: S) -> dict[str, Any]:
        return {"n": 1}

    async def async_route(state: S) -> str:
        return "__end__"

    @tool
    async def lookup(city: str) -> str:
        """A coroutine-only tool."""
        return city

    def one(node: Any, route: Any = None) -> Any:
        builder = StateGraph(S)
        builder.add_node("a", node)
        builder.add_edge(START, "a")
        if route is not None:
            builder.add_conditional_edges("a", route)
        return builder.compile()

    assert not needs_async(one(sync_node))
    assert not needs_async(one(sync_node, lambda s: "__end__"))
    assert needs_async(one(async_node))
    assert needs_async(one(sync_node, async_route))
    assert needs_async(one(ToolNode([lookup])))
    assert needs_async(one(one(async_node)))  # (a subgraph's node)


def test_the_driver_learns_from_langgraphs_refusal_once() -> None:
    driver = Driver(_async_graph("langgraph"))
    assert driver.use_async
    sync = Driver(_async_graph("native"))  # (not a LangGraph graph: nothing found)
    assert not sync.use_async
    refusal = TypeError('No synchronous function provided to "fetch".')
    assert async_only_refusal(refusal)
    assert not async_only_refusal(TypeError("something else"))
    assert sync.learn(refusal) and sync.use_async
    assert not sync.learn(refusal)  # (already async: the error is the step's)


def _until_waiting(ident: int) -> None:
    """Until the thread ``ident`` waits for the node (in ``_await``'s wait), 10 s at most."""
    for _ in range(1000):
        frame = sys._current_frames().get(ident)
        names = []
        while frame is not None:
            names.append(frame.f_code.co_name)
            frame = frame.f_back
        if names[:1] == ["wait"] and "_await" in names:
            return
        time.sleep(0.01)
    raise AssertionError("the thread never waited for the node")


def test_ctrl_c_in_the_waiting_thread_cancels_the_awaited_node() -> None:
    """Ctrl+C pressed twice raises KeyboardInterrupt in the engine's thread, waiting for a
    node on the session's loop: the node is cancelled, the interrupt goes on up."""
    from sgdebug.tui.stopping import _raise_in

    started, cancelled = threading.Event(), threading.Event()

    async def node() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    caught: list[BaseException] = []

    def waiting() -> None:
        try:
            _await(node())
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=waiting)
    thread.start()
    assert started.wait(10), caught
    assert thread.ident is not None
    _until_waiting(thread.ident)  # (as when a user presses Ctrl+C: the thread is waiting)
    _raise_in(thread.ident, KeyboardInterrupt)
    thread.join(10)
    assert not thread.is_alive()
    assert [type(e) for e in caught] == [KeyboardInterrupt]
    assert cancelled.wait(10)


def test_ctrl_c_while_a_stream_waits_closes_the_stream_and_goes_up() -> None:
    """The same while the engine reads ``astream`` (a step: its node hangs): the stream is
    closed after the cancelled read ends, and the KeyboardInterrupt, not a RuntimeError from
    closing a generator still running, reaches the session."""
    from sgdebug.debugger.engines._lg_async import _iterate
    from sgdebug.tui.stopping import _raise_in

    closed = threading.Event()

    async def stream() -> Any:
        try:
            yield "first"
            await asyncio.sleep(60)
            yield "never"
        finally:
            await asyncio.sleep(0.05)  # (its cancelled steps take a while to end, as LangGraph's)
            closed.set()

    caught: list[BaseException] = []
    got: list[Any] = []

    def reading() -> None:
        try:
            for item in _iterate(stream()):
                got.append(item)
        except BaseException as exc:
            caught.append(exc)

    thread = threading.Thread(target=reading)
    thread.start()
    for _ in range(1000):
        if got:
            break
        time.sleep(0.01)
    assert thread.ident is not None
    _until_waiting(thread.ident)
    _raise_in(thread.ident, KeyboardInterrupt)
    thread.join(10)
    assert got == ["first"]
    assert [type(e) for e in caught] == [KeyboardInterrupt]
    assert closed.is_set()


@pytest.mark.parametrize("asks", [False, True])
def test_the_langgraph_engine_ends_as_langgraph_ainvoke_does(asks: bool) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    plain = _async_graph("langgraph", asks=asks)
    plain = plain.copy(update={"checkpointer": InMemorySaver()})
    config: Any = {"configurable": {"thread_id": "plain"}}

    async def direct() -> Any:
        result = await plain.ainvoke({"log": [], "n": 0}, config)
        while "__interrupt__" in result:
            result = await plain.ainvoke(Command(resume="ok"), config)
        return result

    expected = asyncio.run(direct())
    session = session_on(_async_graph("langgraph", asks=asks), "langgraph", {"log": [], "n": 0})
    ok(session, "restart")
    outcome = ok(session, "continue")
    while outcome.status == "interrupted":
        outcome = ok(session, "resume 'ok'")
    assert values(session) == {k: v for k, v in expected.items() if k != "__interrupt__"}
