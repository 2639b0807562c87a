"""Topology of compiled graphs: node kinds, plain/join/conditional edges, dynamic branches.

Each program is built with one engine's public names (:func:`api`), so the same program is
read from sgdebug's builder and from LangGraph's, and both must give the same topology.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import pytest

from sgdebug.inspect.topology import (
    END,
    START,
    Topology,
    TopologyBranch,
    TopologyEdge,
    TopologyJoin,
    mermaid,
    topology,
)
from sgdebug.sample_graphs import ENGINES, SAMPLES, Engine, api, build, load


class State(TypedDict):
    """A one-key state for the test programs."""

    x: int


def step(state: State) -> dict[str, Any]:
    """A node that changes nothing."""
    return {}


def pairs(topo: Topology) -> set[tuple[str, str, str]]:
    """Edges as (source, target, kind)."""
    return {(e.source, e.target, e.kind) for e in topo.edges}


def without_actions(topo: Topology) -> Topology:
    """The topology with action names blanked (they differ between the engines)."""
    from dataclasses import replace

    nodes = tuple(replace(node, action="", subgraph=None) for node in topo.nodes)
    return replace(topo, nodes=nodes)


# -- sample graphs --------------------------------------------------------------------------


def test_linear_sample_is_a_chain_from_start_to_end() -> None:
    topo = topology(load("linear").graph)
    assert topo.names == (START, "node_1", "node_2", END)
    assert pairs(topo) == {
        (START, "node_1", "plain"),
        ("node_1", "node_2", "plain"),
        ("node_2", END, "plain"),
    }
    assert [n.kind for n in topo.nodes] == ["start", "function", "function", "end"]
    assert topo.branches == () and topo.joins == ()


def test_fanout_sample_has_a_join_with_all_its_sources() -> None:
    topo = topology(load("fanout").graph)
    assert topo.joins == (TopologyJoin(("b_2", "c"), "d"),)
    joins = [e for e in topo.edges if e.kind == "join"]
    assert {(e.source, e.target) for e in joins} == {("b_2", "d"), ("c", "d")}
    assert all(e.join == ("b_2", "c") for e in joins)
    assert (START, "b", "plain") in pairs(topo) and (START, "c", "plain") in pairs(topo)


def test_loop_sample_branch_lists_its_targets() -> None:
    topo = topology(load("loop").graph)
    assert topo.branches == (
        TopologyBranch("attempt", "should_retry", ("attempt", "report"), (None, None)),
    )
    assert ("attempt", "attempt", "conditional") in pairs(topo)
    assert topo.edges_from("attempt") == (
        TopologyEdge("attempt", "attempt", "conditional", branch="should_retry"),
        TopologyEdge("attempt", "report", "conditional", branch="should_retry"),
    )


def test_chatbot_sample_routes_to_tools_or_end_and_loops_back() -> None:
    topo = topology(load("chatbot").graph)
    assert pairs(topo) == {
        (START, "agent", "plain"),
        ("agent", "tools", "conditional"),
        ("agent", END, "conditional"),
        ("tools", "agent", "plain"),
    }
    assert topo.edges_to("agent") == (
        TopologyEdge(START, "agent", "plain"),
        TopologyEdge("tools", "agent", "plain"),
    )


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_sample_edge_joins_known_nodes(name: str) -> None:
    topo = topology(load(name).graph)
    names = set(topo.names)
    assert topo.names[0] == START
    assert all(e.source in names and e.target in names for e in topo.edges)
    assert len(set(topo.edges)) == len(topo.edges)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_langgraph_builds_give_the_same_topology(name: str) -> None:
    ours = topology(build(name, "sgdebug").compile())
    theirs = topology(build(name, "langgraph").compile())
    assert without_actions(ours) == without_actions(theirs)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_mermaid_is_the_runtime_drawing_and_equals_langgraphs(name: str) -> None:
    graph = load(name).graph
    text = mermaid(graph)
    assert text == graph.get_graph().draw_mermaid()
    assert text == build(name, "langgraph").compile().get_graph().draw_mermaid()


# -- conditional edges ----------------------------------------------------------------------


def _routed(engine: Engine, path: Any, path_map: Any = None) -> Topology:
    lg = api(engine)
    g = lg.StateGraph(State)
    for name in ("a", "b", "c"):
        g.add_node(name, step)
    g.add_edge(lg.START, "a")
    g.add_conditional_edges("a", path, path_map)
    return topology(g.compile())


@pytest.mark.parametrize("engine", ENGINES)
def test_a_branch_without_known_targets_is_dynamic_and_may_reach_end(engine: Engine) -> None:
    topo = _routed(engine, lambda state: "b")
    (branch,) = topo.branches
    assert branch.dynamic and branch.targets == () and branch.name == "condition"
    assert topo.edges_from("a") == ()
    assert END in topo.names  # returning END is always allowed: the drawing shows the way


@pytest.mark.parametrize("engine", ENGINES)
def test_path_map_keys_that_differ_from_targets_become_labels(engine: Engine) -> None:
    topo = _routed(engine, lambda state: "go", {"go": "b", "stop": END, "c": "c"})
    assert {(e.target, e.label) for e in topo.edges_from("a")} == {
        ("b", "go"),
        (END, "stop"),
        ("c", None),
    }
    assert topo.names[-1] == END
    assert not topo.branches[0].dynamic


@pytest.mark.parametrize("engine", ENGINES)
def test_a_literal_return_annotation_gives_the_targets(engine: Engine) -> None:
    def choose(state: State) -> Literal["b", "c"]:
        return "b"

    topo = _routed(engine, choose)
    assert topo.branches[0].targets == ("b", "c")
    assert {e.target for e in topo.edges_from("a")} == {"b", "c"}


@pytest.mark.parametrize("engine", ENGINES)
def test_command_destinations_are_conditional_edges_without_a_branch_name(
    engine: Engine,
) -> None:
    lg = api(engine)

    def hop(state: State) -> Any:
        return lg.Command(goto="b")

    hop.__annotations__["return"] = lg.Command[Literal["b", "c"]]
    g = lg.StateGraph(State)
    g.add_node("a", hop)
    g.add_node("b", step)
    g.add_node("c", step)
    g.add_edge(lg.START, "a")
    topo = topology(g.compile())
    assert {(e.target, e.kind, e.branch) for e in topo.edges_from("a")} == {
        ("b", "conditional", None),
        ("c", "conditional", None),
    }
    assert topo.branches == (TopologyBranch("a", "", ("b", "c"), (None, None)),)


# -- node kinds -----------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_node_kinds_flags_and_metadata(engine: Engine) -> None:
    lg = api(engine)
    inner = lg.StateGraph(State)
    inner.add_node("inner", step)
    inner.add_edge(lg.START, "inner")
    g = lg.StateGraph(State)
    g.add_node("sub", inner.compile())
    g.add_node("late", step, defer=True, metadata={"team": "ops"})
    g.add_edge(lg.START, "sub")
    g.add_edge("sub", "late")
    topo = topology(g.compile(interrupt_before=["sub"], interrupt_after=["late"]))
    sub, late = topo.node("sub"), topo.node("late")
    assert sub.kind == "subgraph" and not sub.deferred
    assert sub.subgraph is not None and sub.subgraph.names == (START, "inner")
    assert sub.interrupt_before and not sub.interrupt_after
    assert late.kind == "function" and late.deferred and late.subgraph is None
    assert late.interrupt_after and not late.interrupt_before
    assert late.metadata == (("team", "ops"),)
    assert late.action.endswith("step")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_node_whose_function_invokes_a_compiled_graph_says_which(engine: Engine) -> None:
    lg = api(engine)
    inner = lg.StateGraph(State)
    inner.add_node("inner", step).add_edge(lg.START, "inner")
    reviewer, unnamed = inner.compile(name="reviewer"), inner.compile()

    def call_both(state: State) -> dict[str, Any]:
        reviewer.invoke(state)
        return dict(unnamed.invoke(state))

    g = lg.StateGraph(State)
    g.add_node("sub", reviewer).add_node("calls", call_both).add_node("plain", step)
    g.add_edge(lg.START, "sub").add_edge("sub", "calls").add_edge("calls", "plain")
    topo = topology(g.compile())

    assert topo.node("calls").kind == "function"
    assert topo.node("calls").calls == ("reviewer", "")  # (the second given no name)
    assert topo.node("plain").calls == ()
    assert topo.node("sub").calls == ()  # (a subgraph node: its kind says it)


def test_interrupt_on_every_node_marks_them_all() -> None:
    graph = build("linear").compile(interrupt_before="*")
    topo = topology(graph)
    assert [n.interrupt_before for n in topo.nodes] == [False, True, True, False]


def test_node_lookup_of_an_unknown_name_raises() -> None:
    with pytest.raises(KeyError):
        topology(load("linear").graph).node("nope")
