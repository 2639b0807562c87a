"""Checkpoint programs: an async stream its reader closes while a step still runs.

LangGraph streams a parallel task's update as soon as that task finishes, while the other
tasks of its step still run; a reader that stops there (``break`` inside ``aclosing``)
cancels them, the next step never starts, and what the finished task wrote stays recorded
against the step's checkpoint (``get_state`` shows it applied, and only the cancelled task
as next). Nothing here depends on durations: the fast task returns once the slow one has
started, and the slow one would wait far longer than any run of the program.
"""

from __future__ import annotations

import asyncio
import operator
from contextlib import aclosing
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case
from .checkpoint import Rec, Script, ckpt, history, snap, thread


class S(TypedDict):
    """A sum."""

    value: Annotated[int, operator.add]


@ckpt
def closing_astream_mid_step_cancels_the_other_tasks(g: EngineAPI) -> Case:
    seen: list[str] = []

    async def slow(state: S) -> dict[str, Any]:
        seen.append("slow started")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("slow cancelled")
            raise
        return {"value": 100}

    async def fast(state: S) -> dict[str, Any]:
        while "slow started" not in seen:
            await asyncio.sleep(0.005)
        return {"value": 2}

    async def after(state: S) -> dict[str, Any]:
        seen.append("after started")
        return {"value": 10}

    b = g.StateGraph(S).add_node("slow", slow).add_node("fast", fast).add_node("after", after)
    b.add_edge(g.START, "slow").add_edge(g.START, "fast").add_edge("fast", "after")
    graph = b.compile(checkpointer=g.InMemorySaver())

    async def to_first_update(name: str, modes: Any) -> list[Any]:
        """The chunks up to the first update, then what ran, as the stream is closed."""
        seen.clear()
        chunks: list[Any] = []
        stream = graph.astream({"value": 1}, thread(name), stream_mode=modes)
        async with aclosing(stream):
            async for chunk in stream:
                chunks.append(chunk)
                if modes == "updates" or chunk[0] == "updates":
                    break
        return [*chunks, list(seen)]

    def script() -> Script:
        for name, modes in (("updates", "updates"), ("both", ["values", "updates"])):
            yield f"{name} stream", asyncio.run(to_first_update(name, modes))
            yield f"{name} state", snap(graph, thread(name))
            yield f"{name} history", history(graph, thread(name))

    def spec(r: Rec) -> None:
        assert r["updates stream"] == [{"fast": {"value": 2}}, ["slow started", "slow cancelled"]]
        state = r["updates state"]
        assert state["values"] == {"value": 3}
        assert state["next"] == ("slow",)
        assert state["metadata"]["step"] == 0
        assert r["both stream"] == [
            ("values", {"value": 1}), ("updates", {"fast": {"value": 2}}),
            ["slow started", "slow cancelled"],
        ]  # fmt: skip

    return Case(graph, script=script, spec=spec)


@ckpt
def closing_astream_whose_exit_save_fails(g: EngineAPI) -> Case:
    """``durability="exit"``: the stream closed mid-step still makes the exit save; when the
    saver's ``aput`` fails there, LangGraph closes the stream without raising it (sgdebug
    logs it), and nothing is stored."""
    calls: list[Any] = []
    saver = g.InMemorySaver()

    async def aput(self: Any, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        calls.append(("aput", metadata["step"], sorted(checkpoint["channel_values"].items())))
        raise ValueError("Faulty put")

    saver.__class__ = type("FailingSaver", (type(saver),), {"aput": aput})

    async def slow(state: S) -> dict[str, Any]:
        await asyncio.sleep(60)
        return {"value": 100}

    async def fast(state: S) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"value": 2}

    b = g.StateGraph(S).add_node("slow", slow).add_node("fast", fast)
    b.add_edge(g.START, "slow").add_edge(g.START, "fast")
    graph = b.compile(checkpointer=saver)

    async def close_after_first() -> list[Any]:
        out: list[Any] = []
        try:
            stream = graph.astream({"value": 1}, thread("t1"), durability="exit")
            async with aclosing(stream):
                async for chunk in stream:
                    out.append(chunk)
                    break
        except Exception as exc:
            out.append(f"raised {type(exc).__name__}: {exc}")
        return out

    def script() -> Script:
        yield "stream", asyncio.run(close_after_first())
        yield "calls", list(calls)
        yield "state", snap(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["stream"] == [{"fast": {"value": 2}}]
        assert [c[:2] for c in r["calls"]] == [("aput", 0)]
        assert r["state"]["values"] == {}

    return Case(graph, script=script, spec=spec)
