"""Checkpoint programs: a compiled subgraph's ``interrupt_before_nodes`` /
``interrupt_after_nodes`` set after it was compiled, and put back (issue 15).

The LangGraph engine of the debugger stops inside a subgraph this way: for each move it sets
those attributes on the compiled subgraph objects (at any depth), streams the parent, then
gives the user's values back; a stop leaves the subgraph at its checkpoint and the parent's
task unfinished, and the next call with ``None`` re-enters it past the stop. These programs
pin that behaviour on both engines (see ``checkpoint.py`` for how scripts are compared).
"""

from __future__ import annotations

from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt
from .checkpoint import CFG, Rec, Script, ckpt, history, snap
from .checkpoint_subgraphs import L


def _counted(calls: list[str], name: str) -> Any:
    def node(state: Any) -> dict[str, Any]:
        calls.append(name)
        return {"log": [name]}

    return node


def _chain(g: EngineAPI, calls: list[str], names: list[str], subgraph: Any = None) -> Any:
    """``START -> names...`` (a node named ``sub`` runs ``subgraph``)."""
    builder = g.StateGraph(L)
    for name in names:
        builder.add_node(name, subgraph if name == "sub" else _counted(calls, name))
    previous = g.START
    for name in names:
        builder.add_edge(previous, name)
        previous = name
    return builder


def _inner_next(graph: Any) -> Any:
    """The ``next`` of each started subgraph the head stands in, outermost first."""

    def started(state: Any) -> bool:
        return hasattr(state, "next") and bool(state.config["configurable"].get("checkpoint_id"))

    def read() -> Any:
        found, tasks = [], graph.get_state(CFG, subgraphs=True).tasks
        while tasks and started(tasks[0].state):
            found.append(tuple(tasks[0].state.next))
            tasks = tasks[0].state.tasks
        return found

    return attempt(read)


@ckpt
def subgraph_interrupts_set_after_compile_stop_it_two_levels_deep_then_put_back(
    g: EngineAPI,
) -> Case:
    calls: list[str] = []
    inner = _chain(g, calls, ["x", "y"]).compile()
    middle = _chain(g, calls, ["p", "sub", "q"], inner).compile()
    graph = _chain(g, calls, ["sub", "z"], middle).compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        inner.interrupt_before_nodes = ["y"]
        middle.interrupt_after_nodes = ["p"]
        yield "first", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "inside first", _inner_next(graph)
        yield "root first", snap(graph)
        yield "second", attempt(lambda: graph.invoke(None, CFG))
        yield "inside second", _inner_next(graph)
        inner.interrupt_before_nodes = []
        middle.interrupt_after_nodes = []
        yield "last", attempt(lambda: graph.invoke(None, CFG))
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["first"] == {"log": []}  # stopped after p, inside ``sub``
        assert r["inside first"] == [("sub",)]
        assert r["inside second"] == [("sub",), ("y",)]  # two deep, before y
        # (each subgraph hands back its whole log, added to its parent's: LANGGRAPH_SEMANTICS 14)
        assert r["last"] == {"log": ["p", "p", "x", "y", "q", "z"]}
        assert r["calls"] == ["p", "x", "y", "q", "z"]  # each node ran once

    return Case(graph, script=script, spec=spec)


@ckpt
def every_node_set_after_compile_stops_before_each_step_and_a_stop_is_seen_once(
    g: EngineAPI,
) -> Case:
    calls: list[str] = []
    inner = _chain(g, calls, ["i1", "i2"]).compile()
    graph = _chain(g, calls, ["sub", "z"], inner).compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        inner.interrupt_before_nodes = "*"
        yield "entered", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "inside entered", _inner_next(graph)
        yield "stepped", attempt(lambda: graph.invoke(None, CFG))
        yield "inside stepped", _inner_next(graph)
        inner.interrupt_before_nodes = []
        inner.interrupt_after_nodes = "*"  # (a watch: after each step)
        yield "watched", attempt(lambda: graph.invoke(None, CFG))
        yield "inside watched", _inner_next(graph)
        inner.interrupt_after_nodes = []
        yield "last", attempt(lambda: graph.invoke(None, CFG))
        yield "calls", list(calls)

    def spec(r: Rec) -> None:
        assert r["inside entered"] == [("i1",)]  # before its first node
        assert r["inside stepped"] == [("i2",)]
        assert r["inside watched"] == [()]  # after its last node, still inside
        assert r["last"] == {"log": ["i1", "i2", "z"]}
        assert r["calls"] == ["i1", "i2", "z"]

    return Case(graph, script=script, spec=spec)
