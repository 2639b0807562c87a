"""Checkpoint programs: every async store of a LangGraph-style saver goes through its
``aput``/``aput_writes``, with LangGraph's arguments.

As in ``checkpoint_async_savers``, each program's saver is the engine's own, its class given
logging ``aput``/``aput_writes`` overrides that call the base class's. Here the stores
are those of ``aupdate_state`` and ``abulk_update_state`` (which apply the update on a worker
thread: each store is awaited on the caller's loop), of a subgraph node's run inside an
async run (its own stores, awaited while its parent's task runs: a failing ``aput`` fails
that task), and what each call receives: the run's ``configurable`` keys, the metadata's
``source``/``step``/``parents`` only, ``new_versions`` against the checkpoint the new one
follows (a resumed run's, a fork's, a durability ``"exit"`` run's), the checkpoint's
``channel_values`` in the graph's channel order and its ``updated_channels``.

Not observed: version numbers (ints on sgdebug, strings on LangGraph) and ``__resume__``
among a resumed task's writes (``checkpoint_tuples`` compares those as a saver lists them).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised
from .checkpoint import Rec, Script, ckpt, history, snap
from .checkpoint_async_savers import _outcome

Log = list[tuple[Any, ...]]
_RESERVED = {"checkpoint_ns", "checkpoint_id", "checkpoint_map", "thread_id"}


class S(TypedDict):
    """An append log, a plain key and a key the last node sets."""

    a: Annotated[list[str], operator.add]
    b: str
    z: str


def _ns(config: Any) -> str:
    """The namespace a call names, without task ids (``"sub"``)."""
    ns = str(config["configurable"].get("checkpoint_ns") or "")
    return "|".join(part.partition(":")[0] for part in ns.split("|")) if ns else ""


def _logged(g: EngineAPI, log: Log, *, fail_in: str = "") -> Any:
    """The engine's saver with logging ``aput``/``aput_writes`` (``fail_in``: a namespace
    whose first loop checkpoint's ``aput`` raises)."""
    saver = g.InMemorySaver()
    base = type(saver)

    async def aput(
        self: Any, config: Any, checkpoint: Any, metadata: Any, new_versions: Any
    ) -> Any:
        conf = config["configurable"]
        log.append(
            (
                "aput",
                _ns(config),
                dict(metadata),
                sorted(k for k in conf if k not in _RESERVED and not k.startswith("__")),
                bool(conf.get("checkpoint_id")),
                sorted(new_versions),
                checkpoint["updated_channels"],
                list(checkpoint["channel_values"]),
            )
        )
        if fail_in and _ns(config) == fail_in and metadata["step"] == 0:
            raise ValueError("Faulty subgraph put")
        return await base.aput(self, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self: Any, config: Any, writes: Any, task_id: str, task_path: str = ""
    ) -> Any:
        channels = [w[0] for w in writes if w[0] != "__resume__"]
        log.append(("aput_writes", _ns(config), channels, task_path))
        return await base.aput_writes(self, config, writes, task_id, task_path)

    saver.__class__ = type("LoggedSaver", (base,), {"aput": aput, "aput_writes": aput_writes})
    return saver


def _chain(g: EngineAPI, saver: Any, two: Callable[..., Any] | None = None) -> Any:
    """``START -> one -> two``; ``two`` stops at an ``interrupt()`` when ``z`` is ``"stop"``."""

    def one(state: S) -> dict[str, Any]:
        return {"a": ["1"], "b": "x"}

    def stopping(state: S) -> dict[str, Any]:
        answer = g.interrupt("go on?") if state.get("z") == "stop" else "-"
        return {"a": [answer], "z": "done"}

    builder = g.StateGraph(S).add_node("one", one).add_node("two", two or stopping)
    builder.add_edge(g.START, "one").add_edge("one", "two")
    return builder.compile(checkpointer=saver)


def _taken(log: Log) -> list[tuple[Any, ...]]:
    """What the log holds, emptied for the next call."""
    out = list(log)
    log.clear()
    return out


@ckpt
def async_update_state_stores_through_aput(g: EngineAPI) -> Case:
    log: Log = []
    graph = _chain(g, _logged(g, log))
    cfg = {"configurable": {"thread_id": "t1", "user": "u"}}

    async def update() -> Any:
        return await graph.aupdate_state(cfg, {"a": ["u"]}, as_node="one")

    async def bulk() -> Any:
        steps = [[g.StateUpdate({"a": ["v"]}, "one")], [g.StateUpdate({"b": "w"}, "two")]]
        return await graph.abulk_update_state(cfg, steps)

    async def inferred() -> Any:
        return await graph.aupdate_state(cfg, {"b": "inferred"})

    def script() -> Script:
        yield "ainvoke", _outcome(lambda: graph.ainvoke({"a": ["0"]}, cfg))
        _taken(log)
        yield "aupdate_state", _outcome(update)
        yield "update calls", _taken(log)
        yield "abulk_update_state", _outcome(bulk)
        yield "bulk calls", _taken(log)
        yield "inferred", _outcome(inferred)
        yield "inferred calls", _taken(log)
        graph.update_state(cfg, {"b": "sync"})
        yield "sync update calls", _taken(log)
        yield "history", history(graph, cfg)

    def spec(r: Rec) -> None:
        calls = r["update calls"]
        assert [c[0] for c in calls] == ["aput_writes", "aput"]
        assert calls[1][2] == {"source": "update", "step": 3, "parents": {}}
        assert calls[1][3] == ["user"] and calls[1][4]  # the run's keys; the parent's id
        assert calls[1][5] == ["a", "branch:to:two"] and calls[1][6] is None
        assert [c[0] for c in r["bulk calls"]] == ["aput_writes", "aput"] * 2
        assert r["sync update calls"] == []  # update_state stores through put

    return Case(graph, script=script, spec=spec)


@ckpt
def async_saver_sees_langgraph_arguments(g: EngineAPI) -> Case:
    log: Log = []
    graph = _chain(g, _logged(g, log))
    cfg = {"configurable": {"thread_id": "t1", "user": "u", "n": 3}, "metadata": {"m": 1}}
    exit_cfg = {"configurable": {"thread_id": "t2", "user": "u"}}

    def script() -> Script:
        yield "stops", _outcome(lambda: graph.ainvoke({"a": ["0"], "z": "stop"}, cfg))
        yield "calls", _taken(log)
        yield "resumed", _outcome(lambda: graph.ainvoke(g.Command(resume="yes"), cfg))
        yield "resume calls", _taken(log)
        yield "again", _outcome(lambda: graph.ainvoke({"a": ["again"], "z": "go"}, cfg))
        yield "new input calls", _taken(log)
        older = list(graph.get_state_history(cfg))[3].config
        yield "replayed", _outcome(lambda: graph.ainvoke(None, older))
        yield "replay calls", _taken(log)
        start = {"a": ["0"], "z": "stop"}
        yield "exit", _outcome(lambda: graph.ainvoke(start, exit_cfg, durability="exit"))
        yield "exit calls", _taken(log)
        resume = g.Command(resume="y")
        yield "exit resumed", _outcome(lambda: graph.ainvoke(resume, exit_cfg, durability="exit"))
        yield "exit resume calls", _taken(log)
        yield "state", snap(graph, cfg)

    def spec(r: Rec) -> None:
        first = r["calls"][0]
        assert first[2] == {"source": "input", "step": -1, "parents": {}}  # no "m", "user"
        assert first[3] == ["n", "user"] and not first[4]
        assert first[5:] == (["__start__"], ["__start__"], ["__start__"])
        resumed = [c for c in r["resume calls"] if c[0] == "aput"]
        assert resumed[0][5] == ["a", "branch:to:two", "z"] and resumed[0][6] == ["a", "z"]
        fork = r["replay calls"][0]
        assert fork[2]["source"] == "fork" and fork[5] == [] and fork[6] is None
        assert fork[7] == ["a", "b", "z", "__start__"]  # the graph's channel order
        assert [c[2]["step"] for c in r["exit calls"] if c[0] == "aput"] == [1]

    return Case(graph, script=script, spec=spec)


def _with_subgraph(g: EngineAPI, saver: Any, *, asks: bool = True) -> Any:
    """``START -> one -> two``, ``two`` a subgraph node whose ``inner`` asks a question
    (unless not ``asks``)."""

    def inner(state: S) -> dict[str, Any]:
        answer = g.interrupt("inner?") if asks else "-"
        return {"a": [f"in:{answer}"], "z": "inner"}

    sub = g.StateGraph(S).add_node("inner", inner).add_edge(g.START, "inner").compile()
    return _chain(g, saver, sub)


@ckpt
def async_subgraph_node_stores_through_aput(g: EngineAPI) -> Case:
    log: Log = []
    graph = _with_subgraph(g, _logged(g, log))
    cfg = {"configurable": {"thread_id": "t1"}}

    async def streamed() -> list[Any]:
        stream = graph.astream({"a": ["0"]}, {"configurable": {"thread_id": "t2"}})
        return [chunk async for chunk in stream]

    def script() -> Script:
        yield "stops", _outcome(lambda: graph.ainvoke({"a": ["0"]}, cfg))
        yield "calls", _taken(log)
        yield "resumed", _outcome(lambda: graph.ainvoke(g.Command(resume="yes"), cfg))
        yield "resume calls", _taken(log)
        yield "state", snap(graph, cfg)
        yield "astream", _outcome(streamed)
        yield "stream calls", _taken(log)

    def spec(r: Rec) -> None:
        subs = [c for c in r["calls"] if c[1] == "two"]
        assert [c[0] for c in subs] == ["aput", "aput_writes", "aput", "aput_writes"]
        assert subs[0][2]["parents"] != {}  # its parent's checkpoint
        assert r["resume calls"][0][1:] == ("", [], "")  # the answer (a task path of none)
        assert [c[1] for c in r["resume calls"][1:]] == ["two", "two", "", ""]
        assert [c[0] for c in r["stream calls"]] == [c[0] for c in r["calls"]]

    return Case(graph, script=script, spec=spec)


@ckpt
def async_subgraph_failing_aput_fails_its_task(g: EngineAPI) -> Case:
    log: Log = []
    # (a subgraph's task that then stops at an interrupt: LangGraph drops the failure)
    graph = _with_subgraph(g, _logged(g, log, fail_in="two"), asks=False)
    cfg = {"configurable": {"thread_id": "t1"}}

    def script() -> Script:
        yield "ainvoke", _outcome(lambda: graph.ainvoke({"a": ["0"]}, cfg))
        # (LangGraph stores in the background: what the subgraph does after the failed
        # aput is not compared, only the checkpoints it put and the failed task)
        yield "puts", [c[:3] for c in _taken(log) if c[0] == "aput"]
        yield "state", snap(graph, cfg)

    def spec(r: Rec) -> None:
        assert r["ainvoke"] == Raised("ValueError", "Faulty subgraph put")
        assert r["state"]["next"] == ("two",)
        assert "Faulty subgraph put" in repr(r["state"]["tasks"][0]["error"])

    return Case(graph, script=script, spec=spec)


def _interrupted_then_resumed(g: EngineAPI, graph: Any, log: Log, cfg: Any) -> Script:
    """A run stopping at an interrupt(), the saver calls it made, the state, then the resume."""
    yield "ainvoke", _outcome(lambda: graph.ainvoke({"a": ["0"]}, cfg))
    yield "calls", [c[:3] if c[0] == "aput" else c for c in _taken(log)]
    yield "state", snap(graph, cfg)
    yield "resumed", _outcome(lambda: graph.ainvoke(g.Command(resume="yes"), cfg))
    yield "resumed state", snap(graph, cfg)


@ckpt
def async_subgraph_failing_aput_then_interrupt_drops_the_failure(g: EngineAPI) -> Case:
    """A subgraph's task that stops at an ``interrupt()`` after its run's checkpoint failed
    to store: the interrupt wins (LangGraph stores in the background while the step runs,
    and drops the failure of a step that stops); the resume, whose step ends, fails."""
    log: Log = []
    graph = _with_subgraph(g, _logged(g, log, fail_in="two"))
    cfg = {"configurable": {"thread_id": "t1"}}

    def script() -> Script:
        yield from _interrupted_then_resumed(g, graph, log, cfg)

    def spec(r: Rec) -> None:
        assert [i.fields["value"] for i in r["ainvoke"]["__interrupt__"]] == ["inner?"]
        assert ("aput_writes", "two", ["__interrupt__"], "~__pregel_pull, inner") in r["calls"]
        assert r["state"]["next"] == ("two",) and r["state"]["tasks"][0]["error"] is None
        assert r["resumed"] == Raised("ValueError", "Faulty subgraph put")
        assert "Faulty subgraph put" in repr(r["resumed state"]["tasks"][0]["error"])

    return Case(graph, script=script, spec=spec)


@ckpt
def async_node_ainvoking_a_subgraph_whose_aput_fails_then_interrupt(g: EngineAPI) -> Case:
    """As ``async_subgraph_failing_aput_then_interrupt_drops_the_failure``, the subgraph run
    by an async node's ``await sub.ainvoke(state)`` (its run's stores held and awaited
    between its phases, not at once)."""
    log: Log = []

    def inner(state: S) -> dict[str, Any]:
        return {"a": [f"in:{g.interrupt('inner?')}"], "z": "inner"}

    sub = g.StateGraph(S).add_node("inner", inner).add_edge(g.START, "inner").compile()

    async def two(state: S) -> Any:
        return await sub.ainvoke(state)

    graph = _chain(g, _logged(g, log, fail_in="two"), two)
    cfg = {"configurable": {"thread_id": "t1"}}

    def script() -> Script:
        yield from _interrupted_then_resumed(g, graph, log, cfg)

    def spec(r: Rec) -> None:
        assert [i.fields["value"] for i in r["ainvoke"]["__interrupt__"]] == ["inner?"]
        assert r["state"]["tasks"][0]["error"] is None
        assert r["resumed"] == Raised("ValueError", "Faulty subgraph put")

    return Case(graph, script=script, spec=spec)
