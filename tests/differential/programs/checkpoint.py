"""Checkpoint programs (issue 3): shared observation helpers and static breakpoints.

Each program is a script of calls on one or more threads; it yields ``(label, observation)``
pairs that the harness normalises and compares. Snapshots are observed whole through
:func:`snap` and :func:`history` (values, next, config, metadata, parent_config, tasks with
their ids, paths, errors, interrupts, state and results, and interrupts); only ids are
normalised (the harness maps them to ``<idN>`` in order of first appearance, so the parent
linkage of every snapshot is compared too) and ``created_at`` is reduced to whether it is set.

The checkpoint corpus is split by topic; importing this package's ``checkpoint_*`` modules
registers their programs in ``harness.CHECKPOINT`` (``test_checkpoint_programs.py`` does):

* this module: ``interrupt_before`` / ``interrupt_after`` at compile and call time;
* ``checkpoint_interrupts``: dynamic ``interrupt()`` and ``Command(resume=...)``;
* ``checkpoint_update``: ``update_state`` and its ``as_node`` rules;
* ``checkpoint_history``: history listing, forks, errors, failures, streams.

Every program's ``spec`` asserts what LANGGRAPH_SEMANTICS.md section 5 says about it.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import CHECKPOINT, Case, Raised, attempt, drop_timestamp, program, say

CFG: dict[str, Any] = {"configurable": {"thread_id": "t1"}}
Script = Iterator[tuple[str, Any]]
Rec = dict[str, Any]


class S(TypedDict):
    """A plain key and an append log."""

    x: int
    log: Annotated[list[str], operator.add]


def thread(name: str) -> dict[str, Any]:
    """The config of thread ``name``."""
    return {"configurable": {"thread_id": name}}


def _task(t: Any) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "path": t.path,
        "error": t.error,
        "interrupts": t.interrupts,
        "state": t.state,
        "result": t.result,
    }


def view(st: Any) -> dict[str, Any]:
    """Every field of a ``StateSnapshot`` (``created_at`` only as whether it is set)."""
    return {
        "values": st.values,
        "next": st.next,
        "config": st.config,
        "metadata": st.metadata,
        "created_at": None if st.created_at is None else "<set>",
        "parent_config": st.parent_config,
        "tasks": [_task(t) for t in st.tasks],
        "interrupts": st.interrupts,
    }


def snap(graph: Any, config: dict[str, Any] = CFG) -> Any:
    """``graph.get_state(config)`` as comparable data (or what it raised)."""
    return attempt(lambda: view(graph.get_state(config)))


def history(graph: Any, config: dict[str, Any] = CFG, **kwargs: Any) -> Any:
    """Every snapshot of ``graph.get_state_history(config, **kwargs)``, newest first."""
    return attempt(lambda: [view(h) for h in graph.get_state_history(config, **kwargs)])


def events(call: Callable[[], Iterable[Any]]) -> list[Any]:
    """The events of a stream (timestamps dropped), ending with the error if it raised."""
    out: list[Any] = []
    try:
        out.extend(drop_timestamp(e) for e in call())
    except Exception as exc:
        out.append(Raised.of(exc))
    return out


def steps(hist: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """``(source, step, next)`` of every recorded snapshot, for specs."""
    return [(h["metadata"]["source"], h["metadata"]["step"], h["next"]) for h in hist]


def logs(hist: list[dict[str, Any]]) -> list[Any]:
    """The ``log`` value of every recorded snapshot, for specs."""
    return [h["values"].get("log") for h in hist]


def chain(g: EngineAPI, names: str = "abc", **compile_kwargs: Any) -> Any:
    """``START -> a -> b -> c`` (one node per letter of ``names``) with a saver."""
    b = g.StateGraph(S)
    for name in names:
        b.add_node(name, say(name))
    b.add_edge(g.START, names[0])
    for src, dst in itertools.pairwise(names):
        b.add_edge(src, dst)
    return b.compile(checkpointer=g.InMemorySaver(), **compile_kwargs)


def diamond(g: EngineAPI, **compile_kwargs: Any) -> Any:
    """``START -> {a, b} -> c`` (c waits for both) with a saver."""
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge(["a", "b"], "c")
    return b.compile(checkpointer=g.InMemorySaver(), **compile_kwargs)


ckpt = program(registry=CHECKPOINT)


def _pause_then_resume(graph: Any) -> Script:
    yield "invoke", attempt(lambda: graph.invoke({"x": 1}, thread("t0")))
    yield "stream", events(lambda: graph.stream({"x": 1}, CFG))
    yield "paused", snap(graph)
    yield "resume", events(lambda: graph.stream(None, CFG, stream_mode="values"))
    yield "final", snap(graph)
    yield "history", history(graph)


@ckpt
def interrupt_before_and_resume(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"x": 1, "log": ["a"]}  # no __interrupt__ key (5.3)
        assert r["stream"][-1] == {"__interrupt__": ()}
        assert r["paused"]["next"] == ("b",) and r["paused"]["interrupts"] == ()
        assert r["resume"][0] == {"x": 1, "log": ["a"]}  # resumed stream: current state first
        assert r["final"]["values"] == {"x": 1, "log": ["a", "b", "c"]}
        assert [s[1] for s in steps(r["history"])] == [3, 2, 1, 0, -1]

    return Case(graph, script=lambda: _pause_then_resume(graph), spec=spec)


@ckpt
def interrupt_after_and_resume(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_after=["a"])

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"x": 1, "log": ["a"]}
        assert r["stream"] == [{"a": {"log": ["a"]}}, {"__interrupt__": ()}]
        assert r["paused"]["next"] == ("b",)
        assert r["final"]["values"]["log"] == ["a", "b", "c"]

    return Case(graph, script=lambda: _pause_then_resume(graph), spec=spec)


def _resume_until_done(graph: Any, first: Any, config: dict[str, Any] = CFG) -> Script:
    yield "first", events(lambda: graph.stream(first, config))
    for i in range(6):
        yield f"next {i}", snap(graph, config)["next"]
        yield f"resume {i}", events(lambda: graph.stream(None, config))
    yield "final", snap(graph, config)


@ckpt
def interrupt_before_star_stops_at_every_step(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before="*")

    def spec(r: Rec) -> None:
        assert r["first"] == [{"__interrupt__": ()}]  # __start__ is not a breakpoint
        assert [r[f"next {i}"] for i in range(4)] == [("a",), ("b",), ("c",), ()]

    return Case(graph, script=lambda: _resume_until_done(graph, {"x": 1}), spec=spec)


@ckpt
def interrupt_after_star_stops_at_every_step(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_after="*")

    def spec(r: Rec) -> None:
        assert r["first"] == [{"a": {"log": ["a"]}}, {"__interrupt__": ()}]
        assert [r[f"next {i}"] for i in range(3)] == [("b",), ("c",), ()]

    return Case(graph, script=lambda: _resume_until_done(graph, {"x": 1}), spec=spec)


@ckpt
def interrupt_at_call_time_replaces_compile_time(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        yield "updates", events(lambda: graph.stream({"x": 1}, CFG, interrupt_before=["c"]))
        yield "paused", snap(graph)
        yield "resume", events(lambda: graph.stream(None, CFG))
        yield "final", snap(graph)

    def spec(r: Rec) -> None:
        assert r["paused"]["next"] == ("c",)  # call-time ['c'] replaced compile-time ['b']

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupts_given_per_call(g: EngineAPI) -> Case:
    graph = chain(g, "abcd")

    def script() -> Script:
        yield "before star", attempt(lambda: graph.invoke({"x": 1}, CFG, interrupt_before="*"))
        yield "paused", snap(graph)["next"]
        yield "plain resume", attempt(lambda: graph.invoke(None, CFG))
        yield "after b", events(lambda: graph.stream({"x": 2}, CFG, interrupt_after=["b"]))
        yield "paused after b", snap(graph)
        yield "after star", events(lambda: graph.stream(None, CFG, interrupt_after="*"))
        yield "paused after c", snap(graph)["next"]
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["paused"] == ("a",)
        assert r["plain resume"]["log"] == ["a", "b", "c", "d"]  # call-time lists do not stick
        assert r["paused after b"]["next"] == ("c",)
        assert r["paused after c"] == ("d",)

    return Case(graph, script=script, spec=spec)


@ckpt
def static_breakpoint_without_checkpointer(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_sequence([say("a"), say("b")]).add_edge(g.START, "a")
    graph = b.compile(interrupt_before=["b"])

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}))
        yield "updates", events(lambda: graph.stream({"x": 1}))
        yield "after", events(lambda: graph.stream({"x": 1}, interrupt_after=["a"]))

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"x": 1, "log": ["a"]}  # stops, no error (5.3)
        assert r["updates"] == [{"a": {"log": ["a"]}}, {"__interrupt__": ()}]

    return Case(graph, script=script, spec=spec)


@ckpt
def breakpoint_in_a_loop_fires_each_time(g: EngineAPI) -> Case:
    def inc(s: Any) -> dict[str, Any]:
        return {"x": s["x"] + 1, "log": [f"inc{s['x']}"]}

    b = g.StateGraph(S).add_node("inc", inc).add_node("check", say("check"))
    b.add_edge(g.START, "inc").add_edge("inc", "check")
    b.add_conditional_edges("check", lambda s: "inc" if s["x"] < 3 else g.END)
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["inc"])

    def spec(r: Rec) -> None:
        nexts = [r[f"next {i}"] for i in range(6)]
        assert nexts == [("inc",), ("inc",), ("inc",), (), (), ()]  # fires every time (5.3)
        log = ["inc0", "check", "inc1", "check", "inc2", "check"]
        assert r["final"]["values"] == {"x": 3, "log": log}

    return Case(graph, script=lambda: _resume_until_done(graph, {"x": 0}), spec=spec)


@ckpt
def resume_breakpoint_with_command_update(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        cmd = g.Command(update={"x": 9, "log": ["cmd"]})
        yield "resume", events(lambda: graph.stream(cmd, CFG, stream_mode=["values", "updates"]))
        yield "final", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["final"]["values"]["x"] == 9  # the update is applied, then the run continues

    return Case(graph, script=script, spec=spec)


@ckpt
def resume_breakpoint_with_command_goto(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        resumed = events(lambda: graph.stream(g.Command(goto="c"), CFG))
        yield "resume", sorted(resumed, key=repr)  # b and c run in parallel: any order
        yield "final", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["final"]["values"]["log"] == ["a", "b", "c", "c"]  # 5.3

    return Case(graph, script=script, spec=spec)


@ckpt
def resume_breakpoint_with_command_resume(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_after=["a"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="ignored"), CFG))
        yield "final", snap(graph)

    def spec(r: Rec) -> None:
        assert r["resume"] == {"x": 1, "log": ["a", "b", "c"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def new_input_while_paused_restarts(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        yield "first", graph.invoke({"x": 1}, CFG)
        yield "new input", events(lambda: graph.stream({"x": 5}, CFG, stream_mode="values"))
        yield "paused", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["paused"]["values"] == {"x": 5, "log": ["a", "a"]}  # 5.3
        assert r["paused"]["next"] == ("b",)

    return Case(graph, script=script, spec=spec)


@ckpt
def breakpoint_pauses_the_whole_parallel_step(g: EngineAPI) -> Case:
    before = diamond(g, interrupt_before=["b"])
    after = diamond(g, interrupt_after=["a"])

    def run(name: str, graph: Any) -> Script:
        yield f"{name} invoke", attempt(lambda: graph.invoke({"x": 1}, CFG))
        yield f"{name} paused", snap(graph)
        yield f"{name} resume", attempt(lambda: graph.invoke(None, CFG))
        yield f"{name} history", history(graph)

    def script() -> Script:
        yield from run("before", before)
        yield from run("after", after)

    def spec(r: Rec) -> None:
        assert r["before paused"]["next"] == ("a", "b")  # next = the whole pending step
        assert r["after paused"]["next"] == ("c",)

    return Case(before, script=script, spec=spec)
