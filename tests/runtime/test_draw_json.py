"""``get_graph().to_json()``: the same JSON as LangGraph's for the same program.

Every program of ``test_draw`` plus node kinds whose JSON names a different class (a
LangChain Runnable, a callable object, a subgraph), a subgraph entered through a
conditional edge (its start node stays in the xray drawing, prefixed), and a self loop.
"""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from sgdebug.runtime._draw import get_graph
from sgdebug.sample_graphs._engines import EngineAPI, api

from .test_draw import PROGRAMS, Program


class State(TypedDict):
    x: int


def _noop(state: Any) -> dict[str, Any]:
    return {}


class _Callable:
    def __call__(self, state: Any) -> dict[str, Any]:
        return {}


def p_node_kinds(x: EngineAPI) -> Any:
    from langchain_core.runnables import RunnableLambda

    inner = x.StateGraph(State).add_node("p", _noop).add_edge(x.START, "p")
    g = x.StateGraph(State).add_node("fn", _noop).add_node("lam", RunnableLambda(_noop))
    g.add_node("sub", inner.compile()).add_node("obj", _Callable())
    g.add_edge(x.START, "fn").add_edge("fn", "lam").add_edge("lam", "sub").add_edge("sub", "obj")
    return g.compile()


def p_subgraph_conditional_entry(x: EngineAPI) -> Any:
    inner = x.StateGraph(State).add_node("p", _noop).add_node("q", _noop)
    inner.add_conditional_edges(x.START, lambda s: "p", ["p", "q"])
    g = x.StateGraph(State).add_node("sub", inner.compile(), metadata={"team": "a"})
    g.add_node("after", _noop).add_edge(x.START, "sub").add_edge("sub", "after")
    return g.compile(interrupt_before=["after"])


def p_self_loop(x: EngineAPI) -> Any:
    g = x.StateGraph(State).add_node("again", _noop).add_edge(x.START, "again")
    g.add_conditional_edges("again", lambda s: x.END, {"more": "again", "done": x.END})
    return g.compile()


CASES: dict[str, Program] = {
    **PROGRAMS,
    "node_kinds": p_node_kinds,
    "subgraph_conditional_entry": p_subgraph_conditional_entry,
    "self_loop": p_self_loop,
}


@pytest.mark.parametrize("xray", [False, True], ids=["plain", "xray"])
@pytest.mark.parametrize("program", CASES.values(), ids=list(CASES))
def test_to_json_equals_langgraphs(program: Program, xray: bool) -> None:
    ours, theirs = program(api("sgdebug")), program(api("langgraph"))
    assert get_graph(ours, xray=xray).to_json() == theirs.get_graph(xray=xray).to_json()


def test_node_json_names_the_class_langgraph_holds() -> None:
    nodes = {n["id"]: n for n in p_node_kinds(api("sgdebug")).get_graph().to_json()["nodes"]}
    assert nodes["__start__"]["data"]["id"][-1] == "RunnableCallable"
    assert nodes["fn"]["data"] == {
        "id": ["langgraph", "_internal", "_runnable", "RunnableCallable"],
        "name": "fn",
    }
    assert nodes["lam"]["data"]["id"] == ["langchain_core", "runnables", "base", "RunnableLambda"]
    assert nodes["sub"]["data"]["id"] == ["langgraph", "graph", "state", "CompiledStateGraph"]
    assert nodes["obj"]["type"] == "runnable"
    assert nodes["__end__"] == {"id": "__end__"}
