"""Programs sending ``Command(graph=Command.PARENT)`` from subgraphs, and errors in them.

A subgraph's node returning the command ends the subgraph's run; the task of the parent
that ran the subgraph (the subgraph as the node, or a node invoking it) applies its update
and goto in the parent's graph, whatever that node's own code would have returned.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say

TRACE: tuple[Any, ...] = (["updates", "tasks"], "debug")
SUBGRAPHS = {"subgraphs": True}


class S(TypedDict):
    """The state of every graph here."""

    x: int
    log: Annotated[list[str], operator.add]


def _jumper(g: EngineAPI, goto: Any, **update: Any) -> Any:
    """A child graph: ``c1`` logs, then ``jump`` sends a command to the parent."""

    def jump(state: Any) -> Any:
        return g.Command(graph=g.Command.PARENT, goto=goto, update=update or None)

    b = g.StateGraph(S).add_node("c1", say("c1")).add_node("jump", jump)
    b.add_node("never", say("never"))
    b.add_edge(g.START, "c1").add_edge("c1", "jump").add_edge("jump", "never")
    return b.compile()


def _parent(g: EngineAPI, node: Any) -> Any:
    b = g.StateGraph(S).add_node("run", node).add_node("target", say("target"))
    b.add_node("next", say("next")).add_edge(g.START, "run").add_edge("run", "next")
    return b.compile()


@program()
def parent_command_from_subgraph_invoked_in_node(g: EngineAPI) -> Case:
    child = _jumper(g, "target", log=["jumped"])

    def run(state: Any) -> dict[str, Any]:
        child.invoke({"log": ["call"]})
        return {"log": ["unreachable"]}

    return Case(_parent(g, run), inputs=({"x": 0},), modes=TRACE)


@program()
def parent_command_streamed_from_subgraph(g: EngineAPI) -> Case:
    child = _jumper(g, "target", log=["jumped"], x=5)

    def run(state: Any) -> dict[str, Any]:
        child.invoke({"log": ["call"]})
        return {"log": ["unreachable"]}

    return Case(_parent(g, run), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=TRACE)


@program()
def parent_command_goes_one_level_up(g: EngineAPI) -> Case:
    mid = g.StateGraph(S).add_node("inner", _jumper(g, "target", log=["up"]))
    mid.add_node("target", say("mid-target")).add_edge(g.START, "inner")
    top = g.StateGraph(S).add_node("mid", mid.compile()).add_node("target", say("top-target"))
    top.add_edge(g.START, "mid")
    return Case(top.compile(), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=TRACE)


@program()
def parent_command_from_a_parallel_branch(g: EngineAPI) -> Case:
    def jump(state: Any) -> Any:
        return g.Command(graph=g.Command.PARENT, goto="target", update={"log": ["jumped"]})

    c = g.StateGraph(S).add_node("c1", say("c1")).add_node("jump", jump)
    c.add_edge(g.START, "c1").add_edge(g.START, "jump")
    b = g.StateGraph(S).add_node("sub", c.compile()).add_node("target", say("target"))
    b.add_edge(g.START, "sub")
    return Case(b.compile(), inputs=({"x": 0},), modes=(["updates", "values"],))


@program()
def parent_command_with_send_and_first_of_a_list(g: EngineAPI) -> Case:
    def jump(state: Any) -> Any:
        return [
            g.Command(graph=g.Command.PARENT, goto=[g.Send("target", {"log": ["sent"]})]),
            g.Command(graph=g.Command.PARENT, goto="next", update={"log": ["second"]}),
        ]

    c = g.StateGraph(S).add_node("jump", jump).add_edge(g.START, "jump")
    return Case(_parent(g, c.compile()), inputs=({"x": 0},), modes=TRACE)


@program()
def parent_command_unknown_target_is_dropped(g: EngineAPI) -> Case:
    return Case(_parent(g, _jumper(g, "nowhere", log=["lost"])), inputs=({"x": 0},))


@program()
def parent_command_async_from_ainvoke_in_node(g: EngineAPI) -> Case:
    child = _jumper(g, "target", log=["jumped"])

    async def run(state: Any) -> dict[str, Any]:
        await child.ainvoke({"log": ["call"]})
        return {"log": ["unreachable"]}

    return Case(_parent(g, run), inputs=({"x": 0},), use_async=True, modes=TRACE)


@program()
def parent_command_async_subgraph_node(g: EngineAPI) -> Case:
    async def jump(state: Any) -> Any:
        return g.Command(graph=g.Command.PARENT, goto="target", update={"log": ["a-jump"]})

    c = g.StateGraph(S).add_node("jump", jump).add_edge(g.START, "jump")
    graph = _parent(g, c.compile())
    return Case(graph, inputs=({"x": 0},), use_async=True, kwargs=SUBGRAPHS, modes=TRACE)


@program()
def recursion_limit_inside_subgraph(g: EngineAPI) -> Case:
    c = g.StateGraph(S).add_node("loop", lambda s: {"x": s["x"] + 1})
    c.add_edge(g.START, "loop")
    c.add_conditional_edges("loop", lambda s: "loop" if s["x"] < 30 else g.END)
    b = g.StateGraph(S).add_node("sub", c.compile()).add_edge(g.START, "sub")
    limit = (
        "Recursion limit of 10 reached without hitting a stop condition. You can increase the "
        "limit by setting the `recursion_limit` config key."
    )
    return Case(
        b.compile(),
        inputs=({"x": 0},),
        config={"recursion_limit": 10},
        kwargs=SUBGRAPHS,
        modes=("updates",),
        expect=(err("GraphRecursionError", limit + "\nFor troubleshooting, visit: "
                    "https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT"),),
    )  # fmt: skip


@program()
def error_in_subgraph_invoked_in_node(g: EngineAPI) -> Case:
    def fail(state: Any) -> dict[str, Any]:
        raise LookupError("deep")

    c = g.StateGraph(S).add_node("c1", say("c1")).add_node("bad", fail)
    c.add_edge(g.START, "c1").add_edge("c1", "bad")
    child = c.compile()

    def run(state: Any) -> dict[str, Any]:
        return child.invoke({"log": []})  # type: ignore[no-any-return]

    return Case(_parent(g, run), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=TRACE)
