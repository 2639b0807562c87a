"""Checkpoint programs: ``durability=`` on invoke / stream / ainvoke / astream.

LangGraph 1.2.22 stores every step's checkpoint with ``"sync"``, ``"async"`` and the default
(``None``); with ``"exit"`` a run stores only the checkpoint it ends at (done, interrupted
or failed), whose parent is the checkpoint the run started from, and only the task writes
recorded against that one. Each program runs the same script once per mode, each on its own
thread, and observes the history (with its tasks' errors, interrupts and results: the
stored writes) and the ``checkpoints`` / ``debug`` events.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, say
from .checkpoint import Rec, S, Script, chain, ckpt, events, history, logs, snap, steps, thread

MODES = (None, "sync", "async", "exit")
"""LangGraph's durabilities (``None``: its default)."""


def _fan(g: EngineAPI, last: Callable[[Any], Any]) -> Any:
    """``START -> a -> {last, sib}``: ``last`` fails or interrupts beside a sibling."""
    b = g.StateGraph(S).add_node("a", say("a")).add_node("last", last).add_node("sib", say("sib"))
    b.add_edge(g.START, "a").add_edge("a", "last").add_edge("a", "sib")
    return b.compile(checkpointer=g.InMemorySaver())


def _asker(g: EngineAPI, calls: list[str], questions: int = 1) -> Callable[[Any], Any]:
    def ask(state: Any) -> dict[str, Any]:
        calls.append("ask")
        answers = [g.interrupt(f"q{i}?") for i in range(questions)]
        return {"log": ["/".join(answers)]}

    return ask


def _each_mode(run: Callable[[Any, dict[str, Any]], Script]) -> Script:
    for mode in MODES:
        yield from ((f"{mode} {label}", seen) for label, seen in run(mode, thread(str(mode))))


@ckpt
def durability_modes_store_every_step_or_only_the_last(g: EngineAPI) -> Case:
    graph = chain(g)

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, cfg, durability=mode))
        yield "history", history(graph, cfg)
        modes = ["checkpoints", "updates"]
        again = events(lambda: graph.stream({"x": 2}, cfg, durability=mode, stream_mode=modes))
        yield "stream again", again
        yield "history again", history(graph, cfg)

    def spec(r: Rec) -> None:
        for mode in ("None", "sync", "async"):
            assert [s[1] for s in steps(r[f"{mode} history"])] == [3, 2, 1, 0, -1]
            assert len(r[f"{mode} history again"]) == 10
        assert steps(r["exit history"]) == [("loop", 3, ())]
        assert r["exit history"][0]["parent_config"] is None
        assert logs(r["exit history again"]) == [["a", "b", "c"] * 2, ["a", "b", "c"]]
        # Every step's checkpoint event is still emitted, with the run's start's parent.
        shown = [e[1] for e in r["exit stream again"] if e[0] == "checkpoints"]
        assert [e["metadata"]["step"] for e in shown] == [4, 5, 6, 7, 8]
        assert all(e["parent_config"] is None for e in shown)

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def durability_on_a_failed_step_keeps_the_failure(g: EngineAPI) -> Case:
    """The failing node runs alone in its step: beside a parallel sibling, LangGraph 1.2.22
    with ``"sync"`` sometimes loses the sibling's writes (they are stored from a callback
    that may run after its executor shut down)."""

    def boom(state: Any) -> Any:
        raise ValueError("boom")

    graph = g.StateGraph(S).add_node("a", say("a")).add_node("boom", boom)
    graph = graph.add_edge(g.START, "a").add_edge("a", "boom")
    graph = graph.compile(checkpointer=g.InMemorySaver())

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, cfg, durability=mode))
        yield "history", history(graph, cfg)
        modes = ["updates", "values"]
        yield "stream", events(lambda: graph.stream(None, cfg, durability=mode, stream_mode=modes))
        yield "history after retry", history(graph, cfg)

    def spec(r: Rec) -> None:
        assert len(r["sync history"]) == 3
        (failed,) = r["exit history"]
        assert failed["next"] == ("boom",) and failed["parent_config"] is None
        assert failed["tasks"][0]["error"] == "ValueError('boom')"
        assert len(r["exit history after retry"]) == 1  # failed again: nothing new stored

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def durability_on_an_interrupt_and_its_resume(g: EngineAPI) -> Case:
    calls: list[str] = []
    graph = _fan(g, _asker(g, calls))

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, cfg, durability=mode))
        yield "paused", snap(graph, cfg)
        yield "history", history(graph, cfg)
        resume, modes = g.Command(resume="R"), ["checkpoints", "updates"]
        resumed = lambda: graph.stream(resume, cfg, durability=mode, stream_mode=modes)  # noqa: E731
        yield "resume", events(resumed)
        yield "history after resume", history(graph, cfg)

    def spec(r: Rec) -> None:
        (paused,) = r["exit history"]
        assert paused["next"] == ("last", "sib") and paused["tasks"][0]["interrupts"]
        after = r["exit history after resume"]
        assert steps(after) == [("loop", 2, ()), ("loop", 1, ("last", "sib"))]
        assert after[1]["tasks"][0]["result"] is None  # the resumed step's writes not kept
        assert r["sync history after resume"][1]["tasks"][0]["result"] == {"log": ["R"]}

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def durability_exit_resumed_into_a_second_interrupt_keeps_its_writes(g: EngineAPI) -> Case:
    calls: list[str] = []
    b = g.StateGraph(S).add_node("a", say("a")).add_node("ask", _asker(g, calls, 2))
    graph = b.add_edge(g.START, "a").add_edge("a", "ask").compile(checkpointer=g.InMemorySaver())

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, cfg, durability=mode))
        for answer in ("A", "B"):
            again = partial(graph.invoke, g.Command(resume=answer), cfg, durability=mode)
            yield f"resume {answer}", attempt(again)
            yield f"history {answer}", history(graph, cfg)

    def spec(r: Rec) -> None:
        (again,) = r["exit history A"]  # the same checkpoint, with the new interrupt
        assert again["tasks"][0]["interrupts"][0].fields["value"] == "q1?"
        assert logs(r["exit history B"])[0] == ["a", "A/B"]

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def durability_exit_at_a_static_breakpoint(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, cfg, durability=mode))
        yield "paused", snap(graph, cfg)
        resumed = lambda: graph.stream(None, cfg, durability=mode, stream_mode="debug")  # noqa: E731
        yield "resume", events(resumed)
        yield "history", history(graph, cfg)

    def spec(r: Rec) -> None:
        assert steps(r["exit history"]) == [("loop", 3, ()), ("loop", 1, ("b",))]
        assert r["exit paused"]["next"] == ("b",)

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


async def _collect(chunks: AsyncIterator[Any]) -> list[Any]:
    return [c async for c in chunks]


@ckpt
def durability_on_ainvoke_and_astream(g: EngineAPI) -> Case:
    calls: list[str] = []
    graph = _fan(g, _asker(g, calls))

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        first = graph.ainvoke({"x": 1}, cfg, durability=mode)
        yield "ainvoke", attempt(lambda: asyncio.run(first))
        yield "history", history(graph, cfg)
        answer = g.Command(resume="R")
        resume = graph.astream(answer, cfg, durability=mode, stream_mode="checkpoints")
        yield "astream", events(lambda: asyncio.run(_collect(resume)))
        yield "history after resume", history(graph, cfg)

    def spec(r: Rec) -> None:
        assert len(r["exit history"]) == 1 and len(r["async history"]) == 3
        assert len(r["exit history after resume"]) == 2

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def durability_resumes_with_updates_add_up_on_a_reinterrupted_step(g: EngineAPI) -> Case:
    """Each ``Command(resume=, update=)`` on a node that interrupts again stores its update
    beside the earlier ones (the answer replaces the earlier answer); with ``"exit"`` the
    updates are stored only while the run ends at that checkpoint."""
    calls: list[str] = []
    graph = g.StateGraph(S).add_node("ask", _asker(g, calls, 3)).add_edge(g.START, "ask")
    graph = graph.compile(checkpointer=g.InMemorySaver())

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, cfg, durability=mode))
        for i in (1, 2, 3):
            resume = g.Command(resume=str(i), update={"log": [f"u{i}"]})
            yield f"resume {i}", attempt(partial(graph.invoke, resume, cfg, durability=mode))
            yield f"history {i}", history(graph, cfg)

    def spec(r: Rec) -> None:
        for mode in MODES:
            assert r[f"{mode} resume 3"]["log"] == ["u1", "u2", "u3", "1/2/3"]
        assert logs(r["exit history 3"]) == [["u1", "u2", "u3", "1/2/3"], ["u1", "u2"]]

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def durability_on_a_stream_closed_early_and_a_recursion_error(g: EngineAPI) -> Case:
    graph = chain(g)

    def first_chunk(mode: Any, cfg: dict[str, Any]) -> Any:
        chunks = graph.stream({"x": 1}, cfg, durability=mode)
        try:
            return next(chunks)
        finally:
            chunks.close()  # the reader stops after the first step

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        yield "first chunk", attempt(lambda: first_chunk(mode, cfg))
        yield "history", history(graph, cfg)
        limited = {**thread(f"{mode} limited"), "recursion_limit": 2}
        yield "limited", attempt(lambda: graph.invoke({"x": 1}, limited, durability=mode))
        yield "limited history", history(graph, limited)

    def spec(r: Rec) -> None:
        assert steps(r["exit history"]) == [("loop", 1, ("b",))]
        assert r["exit limited"].name == "GraphRecursionError"
        assert steps(r["exit limited history"]) == [("loop", 2, ("c",))]
        assert len(r["sync limited history"]) == 4

    return Case(graph, script=lambda: _each_mode(run), spec=spec)


@ckpt
def subgraphs_inherit_durability_and_exit_keeps_only_the_root(g: EngineAPI) -> Case:
    """A subgraph's run takes its parent's durability; with ``"exit"`` a subgraph that simply
    finishes stores nothing (the root's last checkpoint holds its result), one that stops
    at an interrupt stores where it stopped, and a ``checkpointer=True`` one keeps its own."""

    def subgraph(persist: Any) -> Any:
        inner = g.StateGraph(S).add_node("one", say("one")).add_node("two", say("two"))
        inner.add_edge(g.START, "one").add_edge("one", "two")
        return inner.compile(checkpointer=persist)

    def parent(sub: Any) -> Any:
        b = g.StateGraph(S).add_node("sub", sub).add_edge(g.START, "sub")
        return b.compile(checkpointer=g.InMemorySaver())

    def stored(graph: Any, cfg: dict[str, Any]) -> list[Any]:
        listed = graph.checkpointer.list(cfg)
        return [(c.config["configurable"]["checkpoint_ns"].split(":")[0], c.metadata["step"])
                for c in listed]  # fmt: skip

    def run(mode: Any, cfg: dict[str, Any]) -> Script:
        asker = g.StateGraph(S).add_node("ask", _asker(g, [])).add_edge(g.START, "ask")
        for label, sub in (("None", subgraph(None)), ("True", subgraph(True)), ("asks", asker)):
            graph = parent(sub if label != "asks" else asker.compile())
            yield f"{label} invoke", attempt(partial(graph.invoke, {"x": 1}, cfg, durability=mode))
            yield f"{label} stored", stored(graph, cfg)

    def spec(r: Rec) -> None:
        assert r["exit None stored"] == [("", 1)]
        assert r["sync None stored"][0] == ("", 1) and len(r["sync None stored"]) > 1

    return Case(chain(g), script=lambda: _each_mode(run), spec=spec)
