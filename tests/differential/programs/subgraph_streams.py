"""Programs streaming subgraphs' events: ``stream(subgraphs=True)`` in every mode.

Each case passes ``subgraphs=True`` to every call (``invoke`` too, which then returns the
last ``values`` chunk of any namespace). Namespaces hold task ids, normalised like the
other ids. Parallel subgraphs are left out: the order of their events depends on thread
timing in LangGraph.
"""

from __future__ import annotations

import itertools
import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program

SUBGRAPHS = {"subgraphs": True}
ALL_MODES: tuple[Any, ...] = (
    "custom",
    "tasks",
    "debug",
    None,
    ["updates", "custom", "values"],
    ["tasks", "updates"],
)


class S(TypedDict):
    """The state of every graph here."""

    x: int
    log: Annotated[list[str], operator.add]


def _talk(g: EngineAPI, word: str) -> Any:
    """A node that writes a custom chunk and appends ``word`` to ``log``."""

    def node(state: Any) -> dict[str, Any]:
        g.get_stream_writer()({"from": word})
        return {"log": [word]}

    node.__name__ = node.__qualname__ = word
    return node


def _child(g: EngineAPI, *words: str) -> Any:
    b = g.StateGraph(S)
    for word in words:
        b.add_node(word, _talk(g, word))
    b.add_edge(g.START, words[0])
    for a, z in itertools.pairwise(words):
        b.add_edge(a, z)
    return b.compile()


@program()
def stream_subgraph_node_every_mode(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", _talk(g, "a")).add_node("sub", _child(g, "s1", "s2"))
    b.add_node("z", _talk(g, "z"))
    b.add_edge(g.START, "a").add_edge("a", "sub").add_edge("sub", "z")
    return Case(b.compile(), inputs=({"x": 1, "log": []},), kwargs=SUBGRAPHS, modes=ALL_MODES)


@program()
def stream_without_subgraphs_hides_their_custom_chunks(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", _talk(g, "a")).add_node("sub", _child(g, "s1"))
    b.add_edge(g.START, "a").add_edge("a", "sub")
    return Case(b.compile(), inputs=({"x": 1},), modes=("custom", ["custom", "tasks"]))


@program()
def stream_subgraph_invoked_in_node(g: EngineAPI) -> Case:
    child = _child(g, "s1", "s2")

    def call(state: Any) -> dict[str, Any]:
        g.get_stream_writer()("before")
        out = child.invoke({"log": ["call"], "x": state["x"]})
        g.get_stream_writer()("after")
        return {"log": out["log"]}

    b = g.StateGraph(S).add_node("call", call).add_edge(g.START, "call")
    return Case(b.compile(), inputs=({"x": 2},), kwargs=SUBGRAPHS, modes=ALL_MODES)


@program()
def stream_subgraph_streamed_in_node(g: EngineAPI) -> Case:
    """The node streams the child itself (values): it gets its own chunks, the caller's
    stream gets the child's events in the caller's modes."""
    child = _child(g, "s1", "s2")

    def call(state: Any) -> dict[str, Any]:
        seen = [c["log"] for c in child.stream({"log": ["call"]}, stream_mode="values")]
        return {"log": [str(seen)]}

    b = g.StateGraph(S).add_node("call", call).add_edge(g.START, "call")
    return Case(b.compile(), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=ALL_MODES)


@program()
def stream_subgraph_started_by_send(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("sub", _child(g, "s1", "s2")).add_node("z", _talk(g, "z"))
    b.add_conditional_edges(g.START, lambda s: [g.Send("sub", {"log": ["sent"]})])
    b.add_edge("sub", "z")
    return Case(b.compile(), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=ALL_MODES)


@program()
def stream_subgraphs_three_levels(g: EngineAPI) -> Case:
    mid = g.StateGraph(S).add_node("inner", _child(g, "s1")).add_node("m", _talk(g, "m"))
    mid.add_edge(g.START, "inner").add_edge("inner", "m")
    top = g.StateGraph(S).add_node("mid", mid.compile()).add_node("t", _talk(g, "t"))
    top.add_edge(g.START, "t").add_edge("t", "mid")
    b = g.StateGraph(S).add_node("top", top.compile()).add_edge(g.START, "top")
    return Case(b.compile(), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=ALL_MODES)


@program()
def stream_subgraph_error(g: EngineAPI) -> Case:
    def fail(state: Any) -> dict[str, Any]:
        raise ValueError("inner broke")

    c = g.StateGraph(S).add_node("ok", _talk(g, "ok")).add_node("bad", fail)
    c.add_edge(g.START, "ok").add_edge("ok", "bad")
    b = g.StateGraph(S).add_node("sub", c.compile()).add_edge(g.START, "sub")
    return Case(
        b.compile(),
        inputs=({"x": 0},),
        kwargs=SUBGRAPHS,
        modes=("custom", ["updates", "values", "tasks"]),
        expect=(err("ValueError", "inner broke"),),
    )


@program()
def stream_subgraph_output_keys(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("sub", _child(g, "s1")).add_edge(g.START, "sub")
    kwargs = {"subgraphs": True, "output_keys": ["log"]}
    return Case(b.compile(), inputs=({"x": 0},), kwargs=kwargs, modes=(["values", "updates"],))


@program()
def astream_subgraph_node_and_ainvoke_in_node(g: EngineAPI) -> Case:
    child = _child(g, "s1", "s2")

    async def call(state: Any) -> dict[str, Any]:
        out = await child.ainvoke({"log": ["call"]})
        return {"log": out["log"]}

    b = g.StateGraph(S).add_node("sub", _child(g, "n1")).add_node("call", call)
    b.add_edge(g.START, "sub").add_edge("sub", "call")
    return Case(b.compile(), inputs=({"x": 0},), kwargs=SUBGRAPHS, modes=ALL_MODES, use_async=True)


@program()
def stream_subgraph_v2_parts_carry_the_namespace(g: EngineAPI) -> Case:
    """``version="v2"`` parts name their namespace in ``ns``; ``invoke`` gives a GraphOutput."""
    b = g.StateGraph(S).add_node("a", _talk(g, "a")).add_node("sub", _child(g, "s1", "s2"))
    b.add_edge(g.START, "a").add_edge("a", "sub")
    kwargs = {**SUBGRAPHS, "version": "v2"}
    modes = tuple(m for m in ALL_MODES if m != "debug")  # (v2 parts keep debug timestamps)
    return Case(b.compile(), inputs=({"x": 1, "log": []},), kwargs=kwargs, modes=modes)
