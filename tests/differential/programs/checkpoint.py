"""Checkpoint, interrupt and state-inspection programs (issue 3, not claimed by the core).

Each program is a script of calls on one thread; it yields ``(label, observation)`` pairs.
Snapshots are observed through :func:`snap` (values, next, metadata source/step, tasks,
interrupts) and :func:`history`; checkpoint ids, versions and timestamps are left out.
Registered in ``harness.CHECKPOINT``; run by ``test_checkpoint_programs.py``.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import CHECKPOINT, Case, attempt, program, say

CFG: dict[str, Any] = {"configurable": {"thread_id": "t1"}}
Script = Iterator[tuple[str, Any]]


class S(TypedDict):
    """A plain key and an append log."""

    x: int
    log: Annotated[list[str], operator.add]


def snap(graph: Any, config: dict[str, Any] = CFG) -> dict[str, Any]:
    """The comparable part of ``graph.get_state(config)``."""
    st = graph.get_state(config)
    meta = st.metadata or {}
    return {
        "values": st.values,
        "next": st.next,
        "source": meta.get("source"),
        "step": meta.get("step"),
        "tasks": [(t.name, t.path, t.error, t.interrupts, t.result) for t in st.tasks],
        "interrupts": st.interrupts,
    }


def history(graph: Any, config: dict[str, Any] = CFG, **kwargs: Any) -> list[Any]:
    """``(values, next, source, step)`` of every snapshot, newest first."""
    return [
        (h.values, h.next, h.metadata["source"], h.metadata["step"])
        for h in graph.get_state_history(config, **kwargs)
    ]


def _abc(g: EngineAPI, **compile_kwargs: Any) -> Any:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    return b.compile(checkpointer=g.InMemorySaver(), **compile_kwargs)


def _run_and_resume(graph: Any, first: Any = None) -> Script:
    yield "invoke", attempt(lambda: graph.invoke(first or {"x": 1}, CFG))
    yield "paused", snap(graph)
    yield "resume updates", attempt(lambda: list(graph.stream(None, CFG)))
    yield "final", snap(graph)
    yield "history", history(graph)


ckpt = program(registry=CHECKPOINT)


@ckpt
def interrupt_before_and_resume(g: EngineAPI) -> Case:
    graph = _abc(g, interrupt_before=["b"])
    return Case(graph, script=lambda: _run_and_resume(graph))


@ckpt
def interrupt_after_and_resume(g: EngineAPI) -> Case:
    graph = _abc(g, interrupt_after=["a"])
    return Case(graph, script=lambda: _run_and_resume(graph))


@ckpt
def interrupt_before_star_stops_at_every_step(g: EngineAPI) -> Case:
    graph = _abc(g, interrupt_before="*")

    def script() -> Script:
        yield "first", graph.invoke({"x": 1}, CFG)
        for i in range(4):
            yield f"resume {i}", list(graph.stream(None, CFG, stream_mode="updates"))
        yield "final", snap(graph)

    return Case(graph, script=script)


@ckpt
def interrupt_at_call_time_replaces_compile_time(g: EngineAPI) -> Case:
    graph = _abc(g, interrupt_before=["b"])

    def script() -> Script:
        yield "updates", list(graph.stream({"x": 1}, CFG, interrupt_before=["c"]))
        yield "paused", snap(graph)

    return Case(graph, script=script)


@ckpt
def static_breakpoint_without_checkpointer(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_sequence([say("a"), say("b")]).add_edge(g.START, "a")
    graph = b.compile(interrupt_before=["b"])

    def script() -> Script:
        yield "invoke", graph.invoke({"x": 1})
        yield "updates", list(graph.stream({"x": 1}))

    return Case(graph, script=script)


def _asker(g: EngineAPI, checkpointer: bool = True) -> Any:
    def ask(s: Any) -> dict[str, Any]:
        first = g.interrupt("first?")
        second = g.interrupt({"q": "second?"})
        return {"log": [f"{first}/{second}"]}

    b = g.StateGraph(S).add_node("ask", ask).add_node("sib", say("sib")).add_node("end", say("end"))
    b.add_edge(g.START, "ask").add_edge(g.START, "sib").add_edge("ask", "end")
    return b.compile(checkpointer=g.InMemorySaver() if checkpointer else None)


@ckpt
def dynamic_interrupt_resumed_twice(g: EngineAPI) -> Case:
    graph = _asker(g)

    def script() -> Script:
        yield "invoke", graph.invoke({"x": 1}, CFG)
        yield "paused", snap(graph)
        yield "resume 1", list(graph.stream(g.Command(resume="A"), CFG, stream_mode="values"))
        yield "none does not resume", graph.invoke(None, CFG)
        yield "resume 2", list(graph.stream(g.Command(resume="B"), CFG))
        yield "final", snap(graph)

    return Case(graph, script=script)


@ckpt
def dynamic_interrupt_without_checkpointer(g: EngineAPI) -> Case:
    graph = _asker(g, checkpointer=False)

    def script() -> Script:
        yield "invoke", graph.invoke({"x": 1})
        yield "updates", list(graph.stream({"x": 1}))

    return Case(graph, script=script)


@ckpt
def several_pending_interrupts_need_ids(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"log": [str(g.interrupt(f"q{s}"))]}

    b = g.StateGraph(S).add_node("split", say("split")).add_node("ask", ask)
    b.add_edge(g.START, "split").add_conditional_edges(
        "split", lambda s: [g.Send("ask", 1), g.Send("ask", 2)]
    )
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        out = graph.invoke({"x": 1}, CFG)
        yield "invoke", out
        yield "bare resume", attempt(lambda: graph.invoke(g.Command(resume="v"), CFG))
        first = out["__interrupt__"][0]
        yield "resume one", graph.invoke(g.Command(resume={first.id: "one"}), CFG)
        yield "paused", snap(graph)

    return Case(graph, script=script)


@ckpt
def update_state_as_node(g: EngineAPI) -> Case:
    graph = _abc(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        graph.update_state(CFG, {"x": 5, "log": ["edit"]}, as_node="a")
        yield "after as a", snap(graph)
        graph.update_state(CFG, {"log": ["as-b"]}, as_node="b")
        yield "after as b", snap(graph)
        yield "resume", graph.invoke(None, CFG)
        yield "history", history(graph)

    return Case(graph, script=script)


@ckpt
def update_state_special_nodes_and_errors(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["c"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "ambiguous", attempt(lambda: graph.update_state(CFG, {"x": 2}))
        yield "unknown", attempt(lambda: graph.update_state(CFG, {"x": 2}, as_node="zz"))
        yield "end with values", attempt(lambda: graph.update_state(CFG, {"x": 2}, as_node=g.END))
        graph.update_state(CFG, {"x": 3}, as_node="__input__")
        yield "as input", snap(graph)
        graph.update_state(CFG, None, as_node=g.END)
        yield "as end", snap(graph)

    return Case(graph, script=script)


@ckpt
def update_state_on_fresh_thread(g: EngineAPI) -> Case:
    graph = _abc(g)

    def script() -> Script:
        graph.update_state(CFG, {"x": 1})
        yield "inferred start", snap(graph)
        cfg2 = {"configurable": {"thread_id": "t2"}}
        graph.update_state(cfg2, {"x": 2}, as_node="a")
        yield "as a", snap(graph, cfg2)
        yield "continue", graph.invoke(None, cfg2)

    return Case(graph, script=script)


@ckpt
def fork_from_an_old_checkpoint(g: EngineAPI) -> Case:
    graph = _abc(g)

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        old = next(h for h in graph.get_state_history(CFG) if h.next == ("b",))
        yield "replay", graph.invoke(None, old.config)
        graph.update_state(old.config, {"x": 9})
        yield "edited fork", snap(graph)
        yield "continue fork", graph.invoke(None, CFG)
        yield "history", history(graph)
        yield "filtered", history(graph, filter={"source": "input"})
        yield "limited", history(graph, limit=2)

    return Case(graph, script=script)


@ckpt
def failing_task_keeps_sibling_writes(g: EngineAPI) -> Case:
    calls: list[int] = []

    def flaky(s: Any) -> dict[str, Any]:
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.05)  # let the sibling's writes be saved first (else LangGraph races)
            raise ValueError("boom")
        return {"log": ["flaky"]}

    b = g.StateGraph(S).add_node("ok", say("ok")).add_node("flaky", flaky)
    b.add_edge(g.START, "ok").add_edge(g.START, "flaky")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"x": 1}, CFG))
        yield "failed state", snap(graph)
        yield "retry", graph.invoke(None, CFG)

    return Case(graph, script=script)


@ckpt
def second_run_on_thread_and_errors(g: EngineAPI) -> Case:
    graph = _abc(g)

    def script() -> Script:
        yield "no thread id", attempt(lambda: graph.invoke({"x": 1}))
        yield "fresh none", attempt(lambda: graph.invoke(None, CFG))
        graph.invoke({"x": 1}, CFG)
        yield "second run", graph.invoke({"x": 2}, CFG)
        yield "none on finished", graph.invoke(None, CFG)
        yield "history", history(graph)
        no_saver = g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a").compile()
        yield "no checkpointer", attempt(lambda: no_saver.get_state(CFG))

    return Case(graph, script=script)


@ckpt
def tuples_become_lists_after_saving(g: EngineAPI) -> Case:
    class T(TypedDict):
        pair: tuple[int, int]
        log: Annotated[list[str], operator.add]

    b = (
        g.StateGraph(T)
        .add_node("a", lambda s: {"pair": (1, 2)})
        .add_node("b", lambda s: {"log": [type(s["pair"]).__name__]})
    )
    b.add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["b"])

    def script() -> Script:
        yield "first", graph.invoke({"log": []}, CFG)
        yield "resumed", graph.invoke(None, CFG)
        yield "state", snap(graph)

    return Case(graph, script=script)


@ckpt
def dynamic_interrupt_none_input_reinterrupts(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"log": [str(g.interrupt("only?"))]}

    b = g.StateGraph(S).add_node("ask", ask).add_edge(g.START, "ask")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", graph.invoke({"x": 1}, CFG)
        yield "none", graph.invoke(None, CFG)
        yield "paused", snap(graph)
        yield "resume", graph.invoke(g.Command(resume="yes"), CFG)

    return Case(graph, script=script)
