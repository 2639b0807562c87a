"""Checkpoint programs: a checkpointer written LangGraph's way, in async runs.

The saver of each program is the engine's own, its class extended with ``aput`` and
``aput_writes`` overrides that log what they are given and then call the base class's (or
fail, or take their time), as a user's saver for LangGraph does. LangGraph's async runs
store every checkpoint and every task's writes through them, in order; a run cancelled in
the middle of a step still makes its exit save (``durability="exit"``), shielded from the
cancellation. What each override receives is observed (metadata, the channels of
``new_versions``, the values, the task path and writes), not the version numbers (ints on
sgdebug, strings on LangGraph). See ``programs/checkpoint.py`` for the observation helpers.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised
from .checkpoint import Rec, Script, ckpt, history, snap, thread


class S(TypedDict):
    """A plain key and an append log."""

    x: int
    log: Annotated[list[str], operator.add]


Log = list[tuple[Any, ...]]
T1 = thread("t1")
EXIT: dict[str, Any] = {"durability": "exit"}
SYNC: dict[str, Any] = {"durability": "sync"}


def _logged(g: EngineAPI, log: Log, *, slow: float = 0.0, fail: str = "") -> Any:
    """The engine's saver, its class given logging ``aput``/``aput_writes`` overrides
    (waiting ``slow`` seconds inside ``aput``; ``fail="aput"`` or ``"aput_writes"`` raises)."""
    saver = g.InMemorySaver()
    base = type(saver)

    async def aput(
        self: Any, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> Any:
        conf = config["configurable"]
        log.append(
            (
                "aput",
                metadata["source"],
                metadata["step"],
                "checkpoint_id" in conf,
                sorted(new_versions),
                checkpoint["channel_values"],
            )
        )
        if fail == "aput":
            raise ValueError("Faulty put")
        try:
            await asyncio.sleep(slow)
            return await base.aput(self, config, checkpoint, metadata, new_versions)
        finally:
            log.append(("aput done",))

    async def aput_writes(
        self: Any, config: Any, writes: Any, task_id: str, task_path: str = ""
    ) -> Any:
        log.append(("aput_writes", task_path, [tuple(w) for w in writes]))
        if fail == "aput_writes":
            raise ValueError("Faulty put_writes")
        return await base.aput_writes(self, config, writes, task_id, task_path)

    saver.__class__ = type("LoggedSaver", (base,), {"aput": aput, "aput_writes": aput_writes})
    return saver


def _steps(g: EngineAPI, saver: Any, second: Callable[..., Any] | None = None) -> Any:
    """``START -> a -> b`` (``b`` is ``second`` when given), plain sync nodes (an async
    run calls them too)."""

    def a(state: S) -> dict[str, Any]:
        return {"x": state["x"] + 1, "log": ["a"]}

    def b(state: S) -> dict[str, Any]:
        return {"log": ["b"]}

    builder = g.StateGraph(S).add_node("a", a).add_node("b", second or b)
    builder.add_edge(g.START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=saver)


def _calls(label: str, log: Log) -> Script:
    """The ``aput`` calls, then the ``aput_writes`` calls, each in order (LangGraph may
    run a task's ``aput_writes`` while the checkpoint before it is still being put); then
    the log is emptied for the next run."""
    yield f"{label}aput", [c for c in log if c[0] == "aput"]
    yield f"{label}aput_writes", [c for c in log if c[0] == "aput_writes"]
    log.clear()


def _outcome(run: Callable[[], Any]) -> Any:
    try:
        return asyncio.run(run())
    except Exception as exc:
        return Raised.of(exc)


@ckpt
def async_saver_stores_every_step_through_aput(g: EngineAPI) -> Case:
    log: Log = []
    graph = _steps(g, _logged(g, log))

    async def streamed() -> list[Any]:
        return [c async for c in graph.astream({"x": 1, "log": []}, thread("t2"))]

    def script() -> Script:
        yield "ainvoke", _outcome(lambda: graph.ainvoke({"x": 1, "log": []}, thread("t1")))
        yield from _calls("", log)
        yield "astream", _outcome(streamed)
        yield from _calls("stream ", log)
        yield "exit", _outcome(partial(graph.ainvoke, {"x": 5, "log": []}, thread("t3"), **EXIT))
        yield from _calls("exit ", log)
        yield "exit history", history(graph, thread("t3"))
        graph.invoke({"x": 1, "log": []}, thread("t4"))
        yield "sync run calls", list(log)

    def spec(r: Rec) -> None:
        assert r["ainvoke"] == {"x": 2, "log": ["a", "b"]}
        assert [c[1:3] for c in r["aput"]] == [
            ("input", -1), ("loop", 0), ("loop", 1), ("loop", 2),
        ]  # fmt: skip
        assert [c[1] for c in r["aput_writes"]] == [
            "~__pregel_pull, __start__", "~__pregel_pull, a", "~__pregel_pull, b",
        ]  # fmt: skip
        assert r["stream aput"] == r["aput"]
        assert r["stream aput_writes"] == r["aput_writes"]
        assert [c[1:3] for c in r["exit aput"]] == [("loop", 2)]
        assert r["exit aput_writes"] == []
        assert r["sync run calls"] == []  # a sync run stores through put, as LangGraph

    return Case(graph, script=script, spec=spec)


@ckpt
def async_saver_cancelled_run_still_stores_on_exit(g: EngineAPI) -> Case:
    log: Log = []
    events: list[str] = []

    async def hangs(state: S) -> dict[str, Any]:
        events.append("b started")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            events.append("b cancelled")
            raise
        return {"log": ["b"]}

    graph = _steps(g, _logged(g, log, slow=0.05), hangs)

    async def cancel_in_b(start: Callable[[], Any]) -> list[str]:
        task = asyncio.ensure_future(start())
        while "b started" not in events and not task.done():
            await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return ["cancelled", *events]
        except Exception as exc:
            return [repr(exc), *events]
        return ["not cancelled", *events]

    def ainvoke() -> Any:
        return graph.ainvoke({"x": 1, "log": []}, thread("t1"), durability="exit")

    async def consume() -> Any:
        stream = graph.astream({"x": 1, "log": []}, thread("t2"), durability="exit")
        return [chunk async for chunk in stream]

    def script() -> Script:
        yield "ainvoke", asyncio.run(cancel_in_b(ainvoke))
        yield "calls", list(log)
        yield "state", snap(graph, thread("t1"))
        yield "history", history(graph, thread("t1"))
        log.clear()
        events.clear()
        yield "astream", asyncio.run(cancel_in_b(consume))
        yield "stream calls", list(log)
        yield "stream state", snap(graph, thread("t2"))

    def spec(r: Rec) -> None:
        assert r["ainvoke"] == ["cancelled", "b started", "b cancelled"]
        assert [c[0] for c in r["calls"]] == ["aput", "aput done"]
        assert r["calls"][0][1:3] == ("loop", 1)
        assert r["state"]["next"] == ("b",)
        assert r["state"]["values"] == {"x": 2, "log": ["a"]}
        assert r["astream"] == r["ainvoke"]

    return Case(graph, script=script, spec=spec)


@ckpt
def async_saver_failing_aput_fails_the_run(g: EngineAPI) -> Case:
    """Only the error is compared: LangGraph puts a task's writes in the background, so it
    still calls ``aput_writes`` after the failed ``aput``, and a failed ``aput_writes``
    surfaces only when the run has stored every step (sgdebug stops at once)."""
    put_log: Log = []
    writes_log: Log = []
    failing_put = _steps(g, _logged(g, put_log, fail="aput"))
    failing_writes = _steps(g, _logged(g, writes_log, fail="aput_writes"))

    def script() -> Script:
        yield "aput", _outcome(partial(failing_put.ainvoke, {"x": 1, "log": []}, T1, **SYNC))
        yield "aput state", snap(failing_put, thread("t1"))
        yield (
            "aput_writes",
            _outcome(partial(failing_writes.ainvoke, {"x": 1, "log": []}, T1, **SYNC)),
        )

    def spec(r: Rec) -> None:
        assert r["aput"] == Raised("ValueError", "Faulty put")
        assert r["aput_writes"] == Raised("ValueError", "Faulty put_writes")

    return Case(failing_put, script=script, spec=spec)
