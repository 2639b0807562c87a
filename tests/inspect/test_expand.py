"""Opening a subgraph node in place (``inspect.expand``), on both engines' graphs."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from sgdebug.inspect import draw
from sgdebug.inspect.expand import expand, expand_all, expandable
from sgdebug.inspect.node_paths import node_paths
from sgdebug.inspect.topology import END, START, Topology, topology
from sgdebug.sample_graphs import ENGINES, Engine, api, build


class S(TypedDict, total=False):
    x: int


def pairs(topo: Topology) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.kind) for e in topo.edges}


def deep(engine: Engine) -> Any:
    """``a -> outer -> b``; ``outer`` is ``first -> inner``, or straight to its END when
    ``x`` is big; ``inner`` runs ``leaf``."""
    lg = api(engine)
    leaf = lg.StateGraph(S)
    leaf.add_node("leaf", lambda s: {"x": 1})
    leaf.add_edge(lg.START, "leaf")
    leaf.add_edge("leaf", lg.END)
    outer = lg.StateGraph(S)
    outer.add_node("first", lambda s: {"x": 2})
    outer.add_node("inner", leaf.compile())
    outer.add_edge(lg.START, "first")
    outer.add_conditional_edges("first", lambda s: lg.END if s["x"] > 5 else "inner",
                                {"deeper": "inner", "out": lg.END})  # fmt: skip
    outer.add_edge("inner", lg.END)
    parent = lg.StateGraph(S)
    parent.add_node("a", lambda s: {"x": 0})
    parent.add_node("outer", outer.compile())
    parent.add_node("b", lambda s: {"x": 3})
    parent.add_edge(lg.START, "a")
    parent.add_edge("a", "outer")
    parent.add_edge("outer", "b")
    parent.add_edge("b", lg.END)
    return parent.compile()


@pytest.mark.parametrize("engine", ENGINES)
def test_expanding_puts_the_inner_nodes_between_the_parents_neighbours(engine: Engine) -> None:
    topo = topology(build("nested", engine).compile())
    assert expandable(topo) == ("research",)
    opened = expand(topo, "research")
    assert opened.names == (START, "plan", "research/gather", "research/summarize", "write", END)
    assert pairs(opened) == {
        (START, "plan", "plain"),
        ("plan", "research/gather", "plain"),
        ("research/gather", "research/summarize", "plain"),
        ("research/summarize", "write", "plain"),
        ("write", END, "plain"),
    }
    assert draw(opened, 60, 40).mode == "boxes"


@pytest.mark.parametrize("engine", ENGINES)
def test_nested_subgraphs_open_one_level_at_a_time(engine: Engine) -> None:
    topo = topology(deep(engine))
    assert node_paths(topo) == ("a", "outer", "outer/first", "outer/inner", "outer/inner/leaf",
                                "b")  # fmt: skip
    once = expand_all(topo, ["outer"])
    assert expandable(once) == ("outer/inner",)
    assert ("outer/first", "b", "conditional") in pairs(once)  # its branch to END leaves
    assert ("outer/first", "outer/inner", "conditional") in pairs(once)
    both = expand_all(topo, ["outer/inner", "outer"])  # any order: parents first
    assert both.names == (START, "a", "outer/first", "outer/inner/leaf", "b", END)
    assert ("outer/first", "outer/inner/leaf", "conditional") in pairs(both)
    assert ("outer/inner/leaf", "b", "plain") in pairs(both)
    assert expand_all(topo, ["nope", "a"]) == topo  # not subgraphs: nothing opens
    with pytest.raises(ValueError, match="'a' is not a subgraph node"):
        expand(topo, "a")


@pytest.mark.parametrize("engine", ENGINES)
def test_an_inner_node_without_a_way_on_leaves_for_the_parents_successors(engine: Engine) -> None:
    """A subgraph ending after ``ask`` (no edge to END: nothing else is triggered) still
    leads to the node after it in the parent once opened."""
    lg = api(engine)
    inner = lg.StateGraph(S)
    inner.add_node("draft", lambda s: {"x": 1})
    inner.add_node("ask", lambda s: {"x": 2})
    inner.add_edge(lg.START, "draft")
    inner.add_edge("draft", "ask")
    parent = lg.StateGraph(S)
    parent.add_node("review", inner.compile())
    parent.add_node("finish", lambda s: {"x": 3})
    parent.add_edge(lg.START, "review")
    parent.add_edge("review", "finish")
    opened = expand(topology(parent.compile()), "review")
    assert ("review/ask", "finish", "plain") in pairs(opened)
    assert ("review/draft", "finish", "plain") not in pairs(opened)
