"""Checkpoint programs: the ``checkpoints`` / ``debug`` stream of a graph running subgraphs.

A pending task whose node runs a subgraph (the node itself, or a graph its function
calls; not one compiled with ``checkpointer=False``) carries the config of that
subgraph's checkpoints as its ``state``. Only the root's events are streamed here
(``subgraphs=False``).
"""

from __future__ import annotations

from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, say
from .checkpoint import S, Script, ckpt, events, thread


@ckpt
def checkpoint_stream_names_the_subgraph_of_each_task(g: EngineAPI) -> Case:
    child = g.StateGraph(S).add_node("s1", say("s1")).add_edge(g.START, "s1").compile()
    hidden = g.StateGraph(S).add_node("h1", say("h1")).add_edge(g.START, "h1")
    hidden = hidden.compile(checkpointer=False)
    b = g.StateGraph(S).add_node("sub", child).add_node("call", lambda s: child.invoke(s))
    b.add_node("nosub", hidden).add_node("plain", say("plain"))
    b.add_edge(g.START, "sub").add_edge("sub", "call").add_edge("call", "nosub")
    b.add_edge("nosub", "plain")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        for i, mode in enumerate(("checkpoints", "debug", ["checkpoints", "updates"])):
            call: Any = lambda: graph.stream({"log": []}, thread(f"t{i}"), stream_mode=mode)  # noqa: E731, B023
            yield f"stream {mode}", events(call)

    return Case(graph, script=script)


def _asking_child(g: EngineAPI) -> Any:
    def ask(state: Any) -> dict[str, Any]:
        return {"log": [f"answer:{g.interrupt('q?')}"]}

    c = g.StateGraph(S).add_node("c1", say("c1")).add_node("ask", ask)
    return c.add_edge(g.START, "c1").add_edge("c1", "ask").compile()


@ckpt
def stream_subgraphs_checkpoints_and_interrupts(g: EngineAPI) -> Case:
    """A subgraph inheriting the parent's saver streams its own checkpoints under its
    namespace, and its interrupt in its namespace and in the parent's; resuming re-enters
    it."""
    b = g.StateGraph(S).add_node("a", say("a")).add_node("sub", _asking_child(g))
    b.add_node("z", say("z")).add_edge(g.START, "a").add_edge("a", "sub").add_edge("sub", "z")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        for i, mode in enumerate((["updates", "values"], "checkpoints", "debug", "tasks")):
            config = thread(f"t{i}")

            def run(inp: Any, cfg: dict[str, Any] = config, m: Any = mode) -> Any:
                return graph.stream(inp, cfg, stream_mode=m, subgraphs=True)

            yield f"stream {mode}", events(lambda: run({"log": []}))
            yield f"resume {mode}", events(lambda: run(g.Command(resume="yes")))

    return Case(graph, script=script)


@ckpt
def a_subgraphs_breakpoint_is_reported_by_the_root(g: EngineAPI) -> Case:
    """A subgraph stopping at its own ``interrupt_before`` streams no ``__interrupt__``
    update under its namespace: the root reports ``{"__interrupt__": ()}`` once the step
    stops (after the values its finished tasks wrote); resuming goes on inside it."""
    inner = g.StateGraph(S).add_node("i1", say("i1")).add_node("i2", say("i2"))
    inner = inner.add_edge(g.START, "i1").add_edge("i1", "i2").compile(interrupt_before=["i2"])
    b = g.StateGraph(S).add_node("inner", inner).add_node("z", say("z"))
    b.add_edge(g.START, "inner").add_edge("inner", "z")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        modes = (["updates", "values"], "updates", "debug")
        for i, (mode, nested) in enumerate((m, n) for m in modes for n in (False, True)):
            config = thread(f"t{i}")

            def run(inp: Any, cfg: dict[str, Any] = config, m: Any = mode, n: Any = nested) -> Any:
                return graph.stream(inp, cfg, stream_mode=m, subgraphs=n)

            yield f"stream {mode} {nested}", events(lambda: run({"log": []}))
            yield f"resume {mode} {nested}", events(lambda: run(None))

    return Case(graph, script=script)
