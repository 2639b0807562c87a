"""A counting loop: ``tick`` adds one to ``count`` and logs it until ``count`` reaches ``limit``
(taking ``delay`` seconds each time, when given)."""

from __future__ import annotations

import operator
import time
from typing import Annotated, Literal

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    count: int
    limit: int
    delay: float
    log: Annotated[list[str], operator.add]


def tick(state: State) -> State:
    time.sleep(state.get("delay", 0))
    count = state.get("count", 0) + 1
    return {"count": count, "log": [f"tick {count}"]}


def report(state: State) -> State:
    return {"log": [f"done at {state.get('count', 0)}"]}


def again(state: State) -> Literal["tick", "report"]:
    return "tick" if state.get("count", 0) < state.get("limit", 3) else "report"


builder = StateGraph(State)
builder.add_node("tick", tick)
builder.add_node("report", report)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", again)
builder.add_edge("report", END)
graph = builder.compile()
