"""Programs exercising the builder API and every builder/compile error (exact messages)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say


class S(TypedDict):
    """The state of every builder program."""

    log: Annotated[list[str], operator.add]


def _ab(g: EngineAPI) -> Any:
    """A builder with nodes ``a`` and ``b`` and no edges."""
    return g.StateGraph(S).add_node("a", say("a")).add_node("b", say("b"))


def route(state: Any) -> str:
    """A path function returning ``b``."""
    return "b"


def literal_route(state: Any) -> Literal["b", "zz"]:
    """A path function whose Literal annotation names an unknown node."""
    return "b"


@program(raises=err("ValueError", "Node `a` already present."))
def node_already_present(g: EngineAPI) -> Case:
    return Case(_ab(g).add_node("a", say("x")))


@program(raises=err("ValueError", "Node `__start__` is reserved."))
def node_named_start_is_reserved(g: EngineAPI) -> Case:
    return Case(_ab(g).add_node(g.START, say("x")))


@program(raises=err("ValueError", "Node `__end__` is reserved."))
def node_named_end_is_reserved(g: EngineAPI) -> Case:
    return Case(_ab(g).add_node(g.END, say("x")))


@program(
    raises=err("ValueError", "'|' is a reserved character and is not allowed in the node names.")
)
def node_name_with_pipe(g: EngineAPI) -> Case:
    return Case(_ab(g).add_node("x|y", say("x")))


@program(
    raises=err("ValueError", "':' is a reserved character and is not allowed in the node names.")
)
def node_name_with_colon(g: EngineAPI) -> Case:
    return Case(_ab(g).add_node("x:y", say("x")))


@program(raises=err("ValueError", "END cannot be a start node"))
def edge_from_end(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.END, "a"))


@program(raises=err("ValueError", "START cannot be an end node"))
def edge_to_start(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge("a", g.START))


@program(raises=err("ValueError", "Need to add_node `zz` first"))
def waiting_edge_unknown_source(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(["a", "zz"], "b"))


@program(raises=err("ValueError", "Need to add_node `__start__` first"))
def waiting_edge_start_in_sources(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge([g.START, "a"], "b"))


@program(raises=err("ValueError", "END cannot be a start node"))
def waiting_edge_end_in_sources(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(["a", g.END], "b"))


@program(raises=err("ValueError", "START cannot be an end node"))
def waiting_edge_to_start(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(["a", "b"], g.START))


@program(raises=err("ValueError", "Need to add_node `zz` first"))
def waiting_edge_unknown_target(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(["a", "b"], "zz"))


@program(raises=err("ValueError", "Branch with name `route` already exists for node `a`"))
def duplicate_branch_name(g: EngineAPI) -> Case:
    b = _ab(g).add_conditional_edges("a", route)
    return Case(b.add_conditional_edges("a", route, ["b"]))


@program(raises=err("ValueError", "Branch with name `None` already exists for node `a`"))
def duplicate_lambda_branch(g: EngineAPI) -> Case:
    b = _ab(g).add_conditional_edges("a", lambda s: "b")
    return Case(b.add_conditional_edges("a", lambda s: "a"))


@program(raises=err("ValueError", "Sequence requires at least one node."))
def add_sequence_empty(g: EngineAPI) -> Case:
    return Case(g.StateGraph(S).add_sequence([]))


@program(
    raises=err(
        "ValueError",
        "Node names must be unique: node with the name 'n' already exists. If you need to use "
        "two different runnables/callables with the same name (for example, using `lambda`), "
        "please provide them as tuples (name, runnable/callable).",
    )
)
def add_sequence_duplicate_name(g: EngineAPI) -> Case:
    return Case(g.StateGraph(S).add_sequence([say("n"), say("n")]))


NO_ENTRY = "Graph must have an entrypoint: add at least one edge from START to another node"


@program(raises=err("ValueError", NO_ENTRY))
def compile_empty_graph(g: EngineAPI) -> Case:
    return Case(g.StateGraph(S).compile())


@program(raises=err("ValueError", NO_ENTRY))
def compile_without_start_edge(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge("a", "b").compile())


@program(raises=err("ValueError", "Found edge starting at unknown node 'zz'"))
def compile_edge_from_unknown_node(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.START, "a").add_edge("zz", "b").compile())


@program(raises=err("ValueError", "Found edge ending at unknown node `zz`"))
def compile_edge_to_unknown_node(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.START, "a").add_edge("a", "zz").compile())


@program(raises=err("ValueError", "Found edge starting at unknown node 'zz'"))
def compile_branch_from_unknown_node(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.START, "a").add_conditional_edges("zz", route).compile())


@program(raises=err("ValueError", "At 'a' node, 'condition' branch found unknown target 'zz'"))
def compile_path_map_unknown_target(g: EngineAPI) -> Case:
    b = _ab(g).add_edge(g.START, "a")
    return Case(b.add_conditional_edges("a", lambda s: "x", {"x": "b", "y": "zz"}).compile())


@program(raises=err("ValueError", "At 'a' node, 'route' branch found unknown target 'zz'"))
def compile_path_list_unknown_target(g: EngineAPI) -> Case:
    return Case(
        _ab(g).add_edge(g.START, "a").add_conditional_edges("a", route, ["b", "zz"]).compile()
    )


@program(raises=err("ValueError", "At 'a' node, 'literal_route' branch found unknown target 'zz'"))
def compile_literal_unknown_target(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.START, "a").add_conditional_edges("a", literal_route).compile())


@program(raises=err("ValueError", "Interrupt node `zz` not found"))
def compile_interrupt_before_unknown(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.START, "a").compile(interrupt_before=["a", "zz"]))


@program(raises=err("ValueError", "Interrupt node `zz` not found"))
def compile_interrupt_after_unknown(g: EngineAPI) -> Case:
    return Case(_ab(g).add_edge(g.START, "a").compile(interrupt_after=["zz"]))


@program(raises=err("ValueError", "Node zz not in nodes"))
def compile_interrupt_before_unknown_with_after_star(g: EngineAPI) -> Case:
    b = _ab(g).add_edge(g.START, "a")
    return Case(b.compile(interrupt_before=["zz"], interrupt_after="*"))


@program()
def add_node_infers_names(g: EngineAPI) -> Case:
    def first(s: Any) -> dict[str, Any]:
        return {"log": ["first"]}

    b = g.StateGraph(S).add_node(first).add_node(lambda s: {"log": ["lam"]})
    b.add_edge(g.START, "first").add_edge("first", "<lambda>")
    return Case(b.compile(), expect=({"log": ["first", "lam"]},))


@program()
def entry_and_finish_points_and_unreachable_nodes(g: EngineAPI) -> Case:
    b = _ab(g).add_node("island", say("island"))
    b.set_entry_point("a").add_edge("a", "b").set_finish_point("b").add_edge("island", "a")
    return Case(draw=True, graph=b.compile(), expect=({"log": ["a", "b"]},))


@program()
def add_sequence_with_names_and_tuples(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_sequence([say("s1"), ("two", say("s2")), say("s3")])
    b.add_edge(g.START, "s1")
    return Case(draw=True, graph=b.compile(), expect=({"log": ["s1", "s2", "s3"]},))


@program()
def builder_changes_after_compile_are_ignored(g: EngineAPI) -> Case:
    b = _ab(g).add_edge(g.START, "a")
    graph = b.compile()
    b.add_edge("a", "b").add_node("late", say("late")).add_edge("b", "late")
    return Case(graph, expect=({"log": ["a"]},))


@program()
def same_builder_compiled_twice(g: EngineAPI) -> Case:
    b = _ab(g).add_edge(g.START, "a")
    b.compile()
    return Case(b.add_edge("a", "b").compile(), expect=({"log": ["a", "b"]},))
