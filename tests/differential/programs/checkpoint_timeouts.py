"""Checkpoint programs for time limits across a pause or a failure: a ``Send(...,
timeout=)`` stored in a checkpoint keeps its limit when the run resumes; past
``graph.step_timeout`` (set on the compiled graph, as LangGraph's users do) the run raises
``TimeoutError``, a sync node cannot be stopped, so the step waits for it and keeps what it
wrote (not streamed), and an async one is cancelled. See ``programs/checkpoint.py`` for how
these scripts are observed and compared.

The nodes that go past a limit take at least ten times longer than it, and nothing asserts a
duration: only which tasks were kept, streamed or cancelled.
"""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised, attempt, say
from .checkpoint import Rec, Script, ckpt, events, history, snap, thread


class S(TypedDict):
    """An append log."""

    log: Annotated[list[str], operator.add]


def _slow(word: str) -> Any:
    def node(state: S) -> dict[str, Any]:
        time.sleep(0.5)
        return {"log": [word]}

    node.__name__ = word
    return node


@ckpt
def step_timeout_keeps_sync_writes_and_resumes(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("one", _slow("one")).add_node("two", _slow("two"))
    b.add_node("after", say("after"))
    b.add_edge(g.START, "one").add_edge(g.START, "two").add_edge(["one", "two"], "after")
    graph = b.compile(checkpointer=g.InMemorySaver())
    graph.step_timeout = 0.05

    def script() -> Script:
        yield "stream", events(lambda: graph.stream({"log": []}, thread("t1")))
        yield "state", snap(graph, thread("t1"))
        graph.step_timeout = None
        yield "resume", attempt(lambda: graph.invoke(None, thread("t1")))
        yield "history", history(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["stream"] == [Raised("TimeoutError", "Timed out")]
        assert r["resume"] == {"log": ["one", "two", "after"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def step_timeout_does_not_start_tasks_queued_behind_max_concurrency(g: EngineAPI) -> Case:
    """Two slow nodes hold both ``max_concurrency`` slots past the limit: the four quick
    ones waiting for a slot never start (the slow ones end, and what they wrote is kept)."""
    started: list[str] = []

    def quick(word: str) -> Any:
        def node(state: S) -> dict[str, Any]:
            started.append(word)
            return {"log": [word]}

        return node

    b = g.StateGraph(S).add_node("a", _slow("a")).add_node("b", _slow("b"))
    for word in "cdef":
        b.add_node(word, quick(word))
    for word in "abcdef":
        b.add_edge(g.START, word)
    graph = b.compile(checkpointer=g.InMemorySaver())
    graph.step_timeout = 0.05
    config = {**thread("t1"), "max_concurrency": 2}

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, config))
        yield "started", sorted(started)
        yield "state", snap(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["invoke"] == Raised("TimeoutError", "Timed out")
        assert r["started"] == []

    return Case(graph, script=script, spec=spec)


@ckpt
def step_timeout_cancels_async_nodes(g: EngineAPI) -> Case:
    cancelled: list[str] = []

    async def hangs(state: S) -> dict[str, Any]:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append("hangs")
            raise
        return {"log": ["hangs"]}

    async def quick(state: S) -> dict[str, Any]:
        return {"log": ["quick"]}

    b = g.StateGraph(S).add_node("hangs", hangs).add_node("quick", quick)
    b.add_edge(g.START, "hangs").add_edge(g.START, "quick")
    graph = b.compile(checkpointer=g.InMemorySaver())
    graph.step_timeout = 0.2

    async def collect() -> list[Any]:
        out: list[Any] = []
        try:
            async for chunk in graph.astream({"log": []}, thread("t1")):
                out.append(chunk)
        except TimeoutError as exc:
            out.append(Raised.of(exc))
        return out

    def script() -> Script:
        yield "astream", asyncio.run(collect())
        yield "cancelled", list(cancelled)
        yield "state", snap(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["astream"] == [{"quick": {"log": ["quick"]}}, Raised("TimeoutError", "")]
        assert r["cancelled"] == ["hangs"]

    return Case(graph, script=script, spec=spec)


@ckpt
def send_timeout_survives_a_pause(g: EngineAPI) -> Case:
    """The Send waits in the checkpoint at a breakpoint; resumed, its task keeps its limit."""

    async def work(state: Any) -> dict[str, Any]:
        await asyncio.sleep(5)
        return {"log": ["never"]}

    b = g.StateGraph(S).add_node("work", work)
    b.add_conditional_edges(g.START, lambda s: [g.Send("work", s, timeout=0.05)], ["work"])
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["work"])

    async def run(arg: Any) -> str:
        try:
            await graph.ainvoke(arg, thread("t1"))
        except Exception as exc:
            return type(exc).__name__
        return "finished"

    def script() -> Script:
        yield "pause", asyncio.run(run({"log": []}))
        yield "next", snap(graph, thread("t1"))["next"]
        yield "resume", asyncio.run(run(None))

    def spec(r: Rec) -> None:
        assert r["next"] == ("work",)
        assert r["resume"] == "NodeTimeoutError"

    return Case(graph, script=script, spec=spec)
