"""Programs exercising compiled graphs used as nodes, and Command.PARENT from inside one."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say


class S(TypedDict):
    """Parent state."""

    x: int
    log: Annotated[list[str], operator.add]


class Inner(TypedDict):
    """A subgraph state sharing only ``log`` with the parent, plus its own key."""

    log: Annotated[list[str], operator.add]
    inner: str


def _child(g: EngineAPI) -> Any:
    b = g.StateGraph(S).add_sequence([say("s1"), say("s2")]).add_edge(g.START, "s1")
    return b.compile()


@program()
def subgraph_node_reapplies_parent_reducers(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", say("a")).add_node("sub", _child(g))
    b.add_node("z", say("z"))
    b.add_edge(g.START, "a").add_edge("a", "sub").add_edge("sub", "z")
    return Case(
        draw=True,
        graph=b.compile(),
        inputs=({"log": ["i"], "x": 1},),
        modes=("debug",),
        expect=({"x": 1, "log": ["i", "a", "i", "a", "s1", "s2", "z"]},),
    )


@program()
def subgraph_with_its_own_keys(g: EngineAPI) -> Case:
    c = g.StateGraph(Inner)
    c.add_node("i1", lambda s: {"inner": "secret", "log": ["i1"]})
    c.add_node("i2", lambda s: {"log": [f"i2:{s.get('inner')}"]})
    c.add_edge(g.START, "i1").add_edge("i1", "i2")
    b = (
        g.StateGraph(S)
        .add_node("sub", c.compile())
        .add_node("after", lambda s: {"log": [str(sorted(s))]})
    )
    b.add_edge(g.START, "sub").add_edge("sub", "after")
    return Case(
        b.compile(),
        inputs=({"x": 1},),
        expect=({"x": 1, "log": ["i1", "i2:secret", "['log', 'x']"]},),
    )


@program()
def subgraph_inside_subgraph(g: EngineAPI) -> Case:
    mid = g.StateGraph(S).add_node("inner", _child(g)).add_node("m", say("m"))
    mid.add_edge(g.START, "inner").add_edge("inner", "m")
    b = g.StateGraph(S).add_node("mid", mid.compile()).add_edge(g.START, "mid")
    return Case(b.compile(), inputs=({"x": 0},))


@program()
def subgraph_error_propagates(g: EngineAPI) -> Case:
    def fail(s: Any) -> dict[str, Any]:
        raise KeyError("inner-missing")

    c = g.StateGraph(S).add_node("ok", say("ok")).add_node("bad", fail)
    c.add_edge(g.START, "ok").add_edge("ok", "bad")
    b = g.StateGraph(S).add_node("sub", c.compile()).add_edge(g.START, "sub")
    return Case(b.compile(), expect=(err("KeyError", "'inner-missing'"),))


@program()
def command_parent_from_subgraph(g: EngineAPI) -> Case:
    c = g.StateGraph(S).add_node("c1", say("c1"))

    def parent_cmd(s: Any) -> Any:
        update = {"log": ["from_child"], "x": 7}
        return g.Command(graph=g.Command.PARENT, goto="target", update=update)

    c.add_node("c2", parent_cmd).add_node("c3", say("c3"))
    c.add_edge(g.START, "c1").add_edge("c1", "c2").add_edge("c2", "c3")
    b = g.StateGraph(S).add_node("sub", c.compile()).add_node("target", say("target"))
    b.add_node("static", say("static")).add_node("other", say("other"))
    b.add_edge(g.START, "sub").add_edge("sub", "static")
    return Case(b.compile(), inputs=({"x": 0},))


@program()
def subgraph_in_parallel_with_node(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("sub", _child(g)).add_node("p", say("p"))
    b.add_node("j", say("j"))
    b.add_edge(g.START, "sub").add_edge(g.START, "p").add_edge(["sub", "p"], "j")
    return Case(b.compile(), inputs=({"x": 0},))


@program()
def subgraph_called_from_a_node_function(g: EngineAPI) -> Case:
    child = _child(g)

    def call(s: Any) -> dict[str, Any]:
        out = child.invoke({"log": ["call"], "x": s["x"]})
        return {"log": out["log"]}

    b = g.StateGraph(S).add_node("call", call).add_edge(g.START, "call")
    return Case(b.compile(), inputs=({"x": 0},), expect=({"x": 0, "log": ["call", "s1", "s2"]},))
