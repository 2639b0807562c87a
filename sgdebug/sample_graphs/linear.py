"""Two nodes in a row: the smallest graph worth stepping through.

``START -> node_1 -> node_2 -> END``. Each node replaces ``cur_id`` (a plain key, so the
last write wins) and appends a line to ``logs`` (an ``operator.add`` reducer, so writes
accumulate, starting from the input's lines).

Things to look at in the debugger: step over ``node_1`` and watch the channel table show
``cur_id`` *replaced* but ``logs`` *extended*; the reducer diff of each step shows the old
list, the node's write and the concatenated result.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "State", "build", "node_1", "node_2"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {
    "cur_id": "request-7",
    "logs": ["received request-7"],
}
"""A request id and the log line written when it arrived."""


class State(TypedDict):
    """The whole state: an id that is overwritten and a log that grows."""

    cur_id: str
    logs: Annotated[list[str], operator.add]


def node_1(state: State) -> dict[str, Any]:
    """Validate the request: take over ``cur_id`` and log what was received."""
    return {
        "cur_id": f"{state['cur_id']}:validated",
        "logs": [f"node_1 validated {state['cur_id']}"],
    }


def node_2(state: State) -> dict[str, Any]:
    """Finish the request: log how many lines came before and mark it done."""
    seen = len(state["logs"])
    return {
        "cur_id": f"{state['cur_id']}:done",
        "logs": [f"node_2 finished {state['cur_id']} after {seen} log lines"],
    }


def build(engine: Engine = "sgdebug") -> Any:
    """``START -> node_1 -> node_2 -> END`` on ``engine``."""
    lg = api(engine)
    builder = lg.StateGraph(State)
    builder.add_node("node_1", node_1)
    builder.add_node("node_2", node_2)
    builder.add_edge(lg.START, "node_1")
    builder.add_edge("node_1", "node_2")
    builder.add_edge("node_2", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
