"""Programs asking which subgraphs a graph has: ``nodes[name].subgraphs`` (found in the
node's function without running it) and ``get_subgraphs`` / ``aget_subgraphs``.

Graphs are recorded by name. Functions reading module globals are made with ``exec`` on a
globals dict holding that engine's graphs.
"""

from __future__ import annotations

import asyncio
import functools
import operator
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program


class S(TypedDict):
    """The state of every graph here."""

    log: Annotated[list[str], operator.add]


class Box:
    """Holds anything as ``payload``."""

    def __init__(self, payload: Any) -> None:
        self.payload = payload


class Holder:
    """A graph reached only through ``self``."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph

    def as_node(self, state: Any) -> Any:
        return self.graph.invoke(state)


def _leaf(g: EngineAPI, tag: str) -> Any:
    b = g.StateGraph(S).add_node(f"{tag}_n", lambda s: {"log": [tag]})
    return b.add_edge(g.START, f"{tag}_n").compile(name=tag)


def _global_fn(g: EngineAPI, source: str, **names: Any) -> Callable[..., Any]:
    scope: dict[str, Any] = dict(names)
    exec(compile(source, f"<{g.name}>", "exec"), scope)
    fn: Callable[..., Any] = scope["node"]
    return fn


def _closure_shapes(g: EngineAPI) -> dict[str, Any]:
    sub, dead, first, second = (_leaf(g, t) for t in ("closure", "dead", "aa", "zz"))
    holder, lost = Box(_leaf(g, "nested_attr")), Box("not a graph")
    later = Box(_leaf(g, "chain_first"))
    wrapped = _leaf(g, "via_wrapped")

    def inner(state: Any) -> Any:
        return wrapped.invoke(state)

    def bare(state: Any) -> Any:
        return {"log": []}

    bare.__wrapped__ = inner  # type: ignore[attr-defined]
    return {
        "closure": lambda s: sub.invoke(s),
        "dead_code": lambda s: {"log": []} if True else dead.invoke(s),
        "two_cells": lambda s: (second.invoke(s), first.invoke(s)),
        "nested_def": lambda s: (lambda: holder.payload.invoke(s))(),
        "broken_chain": lambda s: lost.payload.missing.invoke(s),
        "chain_before_cell": lambda s: (later.payload.invoke(s), sub.invoke(s)),
        "wrapped": bare,
        "wraps": functools.wraps(inner)(lambda s: inner(s)),
        "partial": functools.partial(lambda s, extra: sub.invoke(s), extra=1),
        "method_self": Holder(sub).as_node,
        "plain": lambda s: {"log": [str(len("abc"))]},
    }


def _global_shapes(g: EngineAPI) -> dict[str, Any]:
    graphs = {"G": _leaf(g, "module_global"), "G2": _leaf(g, "second_global")}
    chain = Box(Box(_leaf(g, "attr_chain")))
    return {
        "global": _global_fn(g, "def node(s):\n    return G.invoke(s)", **graphs),
        "global_order": _global_fn(g, "def node(s):\n    G2.invoke(s)\n    G.invoke(s)", **graphs),
        "attr_chain": _global_fn(
            g, "def node(s):\n    return CHAIN.payload.payload.invoke(s)", CHAIN=chain
        ),
        "recombined": _global_fn(
            g, "def node(s):\n    x = Box(1)\n    return CHAIN.payload, x.payload", CHAIN=chain,
            Box=Box,
        ),
        "list_item": _global_fn(g, "def node(s):\n    return L[0].invoke(s)", L=[graphs["G"]]),
        "nested_global": _global_fn(
            g, "def node(s):\n    def f():\n        return G.invoke(s)\n    return f()", **graphs
        ),
        "async": _global_fn(g, "async def node(s):\n    return await G.ainvoke(s)", **graphs),
    }  # fmt: skip


def _detected(g: EngineAPI, action: Any) -> list[str]:
    b = g.StateGraph(S).add_node("n", action).add_edge(g.START, "n")
    return [sub.name for sub in b.compile().nodes["n"].subgraphs]


@program()
def subgraph_detection_in_node_functions(g: EngineAPI) -> Case:
    shapes = {**_closure_shapes(g), **_global_shapes(g), "graph": _leaf(g, "the_node")}

    def script() -> Iterator[tuple[str, Any]]:
        for label, action in shapes.items():
            yield label, _detected(g, action)

    return Case(None, script=script)


def _nested(g: EngineAPI) -> Any:
    research = g.StateGraph(S).add_node("review", _leaf(g, "research_review_inner"))
    deep = g.StateGraph(S).add_node("d", _leaf(g, "deepest")).add_edge(g.START, "d")
    research.add_node("deep", deep.compile(name="deep")).add_edge(g.START, "review")
    called = _leaf(g, "called")
    b = g.StateGraph(S).add_node("research", research.compile(name="research"))
    b.add_node("research_review", _leaf(g, "research_review"))
    b.add_node("review", _leaf(g, "review")).add_node("caller", lambda s: called.invoke(s))
    b.add_node("plain", lambda s: {"log": []})
    return b.add_edge(g.START, "research").compile()


QUERIES: tuple[dict[str, Any], ...] = (
    {},
    {"recurse": True},
    {"namespace": "research"},
    {"namespace": "research", "recurse": True},
    {"namespace": "research|review"},
    {"namespace": "research|review", "recurse": True},
    {"namespace": "research|deep|d", "recurse": True},
    {"namespace": "research_review", "recurse": True},
    {"namespace": "caller"},
    {"namespace": "plain"},
    {"namespace": "research:1|review:2", "recurse": True},
    {"namespace": ""},
    {"namespace": "research|", "recurse": True},
    {"namespace": "nowhere", "recurse": True},
)


@program()
def get_subgraphs_by_namespace(g: EngineAPI) -> Case:
    graph = _nested(g)

    async def collect(query: dict[str, Any]) -> list[tuple[str, str]]:
        return [(ns, sub.name) async for ns, sub in graph.aget_subgraphs(**query)]

    def script() -> Iterator[tuple[str, Any]]:
        for query in QUERIES:
            yield f"get {query}", [(ns, sub.name) for ns, sub in graph.get_subgraphs(**query)]
        for query in QUERIES[:6]:
            yield f"aget {query}", asyncio.run(collect(query))

    return Case(graph, script=script)


def _drawn(g: EngineAPI) -> dict[str, Any]:
    """Graphs whose subgraphs ``get_graph(xray=)`` draws inside their nodes."""
    child = g.StateGraph(S).add_node("s1", lambda s: {}).add_node("s2", lambda s: {})
    child = child.add_edge(g.START, "s1").add_edge("s1", "s2").compile()
    mid = g.StateGraph(S).add_node("inner", child).add_node("m", lambda s: {})
    mid = mid.add_edge(g.START, "inner").add_edge("inner", "m").compile()
    fork = g.StateGraph(S).add_node("p", lambda s: {}).add_node("q", lambda s: {})
    fork.add_node("r", lambda s: {}).add_edge(g.START, "p")
    fork.add_conditional_edges("p", lambda s: "q", ["q", "r"])
    hidden = g.StateGraph(S).add_node("h", lambda s: {}).add_edge(g.START, "h")
    hidden = hidden.compile(checkpointer=False)
    b = g.StateGraph(S).add_node("mid", mid).add_node("call", lambda s: child.invoke(s))
    b.add_node("fork", fork.compile()).add_node("hidden", hidden)
    b.add_node("calls_hidden", lambda s: hidden.invoke(s))
    b.add_edge(g.START, "mid").add_edge("mid", "call").add_edge("call", "fork")
    b.add_edge("fork", "hidden").add_edge("hidden", "calls_hidden")
    return {"chain": b.compile()}


@program()
def get_graph_xray_draws_subgraphs_of_nodes_and_functions(g: EngineAPI) -> Case:
    graphs = _drawn(g)

    def script() -> Iterator[tuple[str, Any]]:
        for label, graph in graphs.items():
            for xray in (False, True, 1, 2):
                yield f"{label} xray={xray}", graph.get_graph(xray=xray).draw_mermaid()
            yield f"{label} subgraphs", [ns for ns, _ in graph.get_subgraphs(recurse=True)]

    return Case(graphs["chain"], script=script)
