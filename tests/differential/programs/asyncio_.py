"""Programs run through ``ainvoke``/``astream``: async nodes, async branches, mixed nodes."""

from __future__ import annotations

import asyncio
import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say

if TYPE_CHECKING:
    from langgraph.types import StreamWriter


class S(TypedDict):
    """A counter, a plain key and an append log."""

    n: int
    results: Annotated[list[Any], operator.add]
    log: Annotated[list[str], operator.add]


async def _a(state: Any) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"n": state["n"] + 1, "log": ["a"]}


async def _b(state: Any) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"log": [f"b{state['n']}"]}


async def _route(state: Any) -> str:
    await asyncio.sleep(0)
    return "b" if state["n"] < 3 else "done"


@program()
def async_nodes_in_sequence(g: EngineAPI) -> Case:
    b = (
        g.StateGraph(S)
        .add_node("a", _a)
        .add_node("b", _b)
        .add_edge(g.START, "a")
        .add_edge("a", "b")
    )
    return Case(
        b.compile(),
        inputs=({"n": 1},),
        use_async=True,
        expect=({"n": 2, "results": [], "log": ["a", "b2"]},),
    )


@program()
def async_and_sync_nodes_in_parallel(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", _a).add_node("b", _b).add_node("c", say("c"))
    b.add_node("j", say("j"))
    for name in ("a", "b", "c"):
        b.add_edge(g.START, name)
    b.add_edge(["a", "b", "c"], "j")
    return Case(b.compile(), inputs=({"n": 0},), use_async=True, modes=("debug",))


@program()
def async_conditional_loop(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", _a).add_node("b", _b).add_node("done", say("done"))
    b.add_edge(g.START, "a").add_conditional_edges("a", _route).add_edge("b", "a")
    return Case(b.compile(), inputs=({"n": 0},), use_async=True)


@program()
def async_send_map_reduce(g: EngineAPI) -> Case:
    async def work(x: Any) -> dict[str, Any]:
        await asyncio.sleep(0.001 * (3 - x))
        return {"results": [x * 10]}

    b = g.StateGraph(S).add_node("split", say("split")).add_node("w", work)
    b.add_edge(g.START, "split")
    b.add_conditional_edges("split", lambda s: [g.Send("w", i) for i in range(3)])
    return Case(
        b.compile(),
        use_async=True,
        unordered=True,
        expect=({"results": [0, 10, 20], "log": ["split"]},),
    )


@program()
def async_node_exception(g: EngineAPI) -> Case:
    async def fail(state: Any) -> dict[str, Any]:
        raise ValueError("async boom")

    b = (
        g.StateGraph(S)
        .add_node("a", _a)
        .add_node("f", fail)
        .add_edge(g.START, "a")
        .add_edge("a", "f")
    )
    return Case(
        b.compile(), inputs=({"n": 0},), use_async=True, expect=(err("ValueError", "async boom"),)
    )


@program()
def async_writer_custom_stream(g: EngineAPI) -> Case:
    async def talk(state: Any, writer: StreamWriter) -> dict[str, Any]:
        writer({"step": "start"})
        await asyncio.sleep(0)
        writer({"step": "end"})
        return {"log": ["talk"]}

    b = g.StateGraph(S).add_node("talk", talk).add_edge(g.START, "talk")
    return Case(b.compile(), use_async=True, modes=("custom", ["updates", "custom"]))


@program()
def sync_graph_through_async_api(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_sequence([say("x"), say("y")]).add_edge(g.START, "x")
    b.add_conditional_edges("y", lambda s: [g.Send("z", 1)]).add_node(
        "z", lambda s: {"results": [s]}
    )
    return Case(b.compile(), use_async=True, expect=({"results": [1], "log": ["x", "y"]},))


class Peak(TypedDict):
    """How many tasks ran at once, at most."""

    peak: Annotated[int, lambda a, b: max(a, b)]


@program()
def max_concurrency_bounds_a_step_of_async_tasks(g: EngineAPI) -> Case:
    """``config["max_concurrency"]``: at most that many of a step's tasks run at once."""
    running: list[int] = [0]

    async def work(arg: Any) -> dict[str, Any]:
        running[0] += 1
        peak = running[0]
        await asyncio.sleep(0.01)  # long enough for every task allowed to start to start
        running[0] -= 1
        return {"peak": peak}

    def fan(state: Any) -> list[Any]:
        return [g.Send("work", i) for i in range(12)]

    b = g.StateGraph(Peak).add_node("work", work).add_conditional_edges(g.START, fan, ["work"])
    return Case(
        b.compile(),
        inputs=({"peak": 0},),
        use_async=True,
        config={"max_concurrency": 3},
        expect=({"peak": 3},),
    )
