"""A node that raises while ``fail`` is set: ``check`` raises ``ValueError``, else says ok."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    fail: bool
    result: str


def check(state: State) -> State:
    if state.get("fail"):
        raise ValueError("check was told to fail")
    return {"result": "ok"}


builder = StateGraph(State)
builder.add_node("check", check)
builder.add_edge(START, "check")
builder.add_edge("check", END)
graph = builder.compile()
