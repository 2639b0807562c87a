"""A graph with a subgraph: ``prepare`` sets the text, ``inner`` (a subgraph) shouts it; with
``ask`` set, the subgraph's ``exclaim`` asks with ``interrupt()`` what to end with."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    text: str
    shouted: str
    ask: bool


def upper(state: State) -> State:
    return {"shouted": state.get("text", "").upper()}


def exclaim(state: State) -> State:
    end = str(interrupt("end with?")) if state.get("ask") else "!"
    return {"shouted": state.get("shouted", "") + end}


inner_builder = StateGraph(State)
inner_builder.add_node("upper", upper)
inner_builder.add_node("exclaim", exclaim)
inner_builder.add_edge(START, "upper")
inner_builder.add_edge("upper", "exclaim")
inner_builder.add_edge("exclaim", END)


def prepare(state: State) -> State:
    return {"text": state.get("text") or "hello"}


builder = StateGraph(State)
builder.add_node("prepare", prepare)
builder.add_node("inner", inner_builder.compile())
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "inner")
builder.add_edge("inner", END)
graph = builder.compile()
