"""A graph that asks: ``draft`` writes a draft, ``review`` asks a human with ``interrupt()``."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    topic: str
    draft: str
    verdict: str


def draft(state: State) -> State:
    return {"draft": f"a note on {state.get('topic', 'nothing')}"}


def review(state: State) -> State:
    answer = interrupt({"question": "approve?", "draft": state.get("draft")})
    return {"verdict": str(answer)}


builder = StateGraph(State)
builder.add_node("draft", draft)
builder.add_node("review", review)
builder.add_edge(START, "draft")
builder.add_edge("draft", "review")
builder.add_edge("review", END)
graph = builder.compile()
