"""Checkpoint programs: the async state API (``aget_state``, ``aget_state_history``,
``aupdate_state``, ``abulk_update_state``) and ``bulk_update_state``.

Each async call is awaited on a fresh event loop; what it returns is observed as the sync
programs observe theirs (see ``programs/checkpoint.py``), so the async twins are compared
with LangGraph's async methods, and with what the sync ones give on the same thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised, attempt, say
from .checkpoint import CFG, Rec, S, Script, chain, ckpt, snap, steps, view


def _awaited(call: Callable[[], Awaitable[Any]]) -> Any:
    """``await call()`` on a new loop, or the record of what it raised."""
    return attempt(lambda: asyncio.run(_value(call)))


async def _value(call: Callable[[], Awaitable[Any]]) -> Any:
    return await call()


def _ahistory(graph: Any, config: dict[str, Any] = CFG, **kwargs: Any) -> Any:
    async def collect() -> list[Any]:
        return [view(h) async for h in graph.aget_state_history(config, **kwargs)]

    return _awaited(collect)


async def _asnap(graph: Any, config: dict[str, Any]) -> Any:
    return view(await graph.aget_state(config))


@ckpt
def async_state_reads(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["c"])

    def script() -> Script:
        yield "invoke", _awaited(lambda: graph.ainvoke({"x": 1}, CFG))
        yield "aget_state", _awaited(lambda: _asnap(graph, CFG))
        yield "get_state", snap(graph)
        yield "aget_state_history", _ahistory(graph)
        yield "limit 2", _ahistory(graph, limit=2)
        yield "filter", _ahistory(graph, filter={"source": "input"})
        oldest = list(graph.get_state_history(CFG))[-1].config
        yield "before oldest", _ahistory(graph, before=oldest)
        yield "at oldest", _awaited(lambda: _asnap(graph, oldest))

    def spec(r: Rec) -> None:
        assert r["aget_state"] == r["get_state"]
        assert r["aget_state"]["next"] == ("c",)
        assert steps(r["aget_state_history"])[0] == ("loop", 2, ("c",))
        assert len(r["limit 2"]) == 2
        assert steps(r["filter"]) == [("input", -1, ("__start__",))]
        assert r["before oldest"] == []

    return Case(graph, script=script, spec=spec)


@ckpt
def async_update_state(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "as a", _awaited(lambda: graph.aupdate_state(CFG, {"x": 5, "log": ["e"]}, "a"))
        yield "after", snap(graph)
        yield "unknown node", _awaited(lambda: graph.aupdate_state(CFG, {"x": 6}, "zz"))
        yield "resume", _awaited(lambda: graph.ainvoke(None, CFG))

    def spec(r: Rec) -> None:
        assert r["after"]["values"] == {"x": 5, "log": ["a", "e"]}
        assert r["after"]["metadata"]["source"] == "update"
        assert isinstance(r["unknown node"], Raised)
        assert r["resume"]["log"] == ["a", "e", "b", "c"]

    return Case(graph, script=script, spec=spec)


@ckpt
def bulk_update_state_one_update_per_superstep(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])
    up = g.StateUpdate

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "none", attempt(lambda: graph.bulk_update_state(CFG, []))
        yield "empty step", attempt(lambda: graph.bulk_update_state(CFG, [[]]))
        supersteps = [[up({"log": ["u"]}, "a")], [up({"x": 7}, "b")]]
        yield "two steps", attempt(lambda: graph.bulk_update_state(CFG, supersteps))
        yield "after", snap(graph)
        later = [[up({"log": ["w"]}, "b")]]
        yield "async", _awaited(lambda: graph.abulk_update_state(CFG, later))
        yield "after async", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))

    def spec(r: Rec) -> None:
        assert r["none"] == Raised("ValueError", "No supersteps provided")
        assert r["empty step"] == Raised("ValueError", "No updates provided")
        assert r["after"]["values"] == {"x": 7, "log": ["a", "u"]}
        assert r["after"]["next"] == ("c",)
        assert r["after async"]["values"]["log"] == ["a", "u", "w"]

    return Case(graph, script=script, spec=spec)


@ckpt
def async_update_state_runs_async_path_functions(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))

    async def route(state: Any) -> str:
        return "b" if state["x"] > 0 else "c"

    b.add_edge(g.START, "a").add_conditional_edges("a", route, ["b", "c"])
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["b", "c"])

    async def calls() -> list[Any]:
        await graph.ainvoke({"x": 1}, CFG)
        first = await graph.aupdate_state(CFG, {"x": -1}, "a")
        up = g.StateUpdate
        second = await graph.abulk_update_state(CFG, [[up({"x": 2, "log": ["u"]}, "a")]])
        return [first, second, view(await graph.aget_state(CFG))]

    def script() -> Script:
        yield "updates", _awaited(calls)

    def spec(r: Rec) -> None:
        assert r["updates"][2]["next"] == ("b",)
        assert r["updates"][2]["values"] == {"x": 2, "log": ["a", "u"]}

    return Case(graph, script=script, spec=spec)
