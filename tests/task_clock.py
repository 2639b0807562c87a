"""A clock per thread for timing tests, and two nodes side by side that move it on.

The runtime times a task where it runs (``Task.seconds``); with this clock in place of
``time.perf_counter`` each task's time is exactly what its node moved its thread's clock
on by, however the pool schedules the tasks (no wall-clock assertion).
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from sgdebug.runtime import START, StateGraph

TOOK = {"slow": 2.0, "quick": 0.5}
"""What each node moves its clock on by."""


class S(TypedDict):
    ran: Annotated[list[str], operator.add]


class ThreadClock:
    """``time.perf_counter`` with a clock per thread, moved on by the node running there."""

    def __init__(self) -> None:
        self._local = threading.local()

    def __call__(self) -> float:
        now: float = getattr(self._local, "now", 0.0)
        return now

    def advance(self, seconds: float) -> None:
        self._local.now = self() + seconds


def side_by_side(clock: ThreadClock, *, asynchronous: bool = False, langgraph: bool = False) -> Any:
    """START -> ``slow`` and ``quick`` in one step (built with LangGraph with ``langgraph``)."""

    def node(name: str) -> Callable[[S], Any]:
        def run(state: S) -> dict[str, Any]:
            clock.advance(TOOK[name])
            return {"ran": [name]}

        async def arun(state: S) -> dict[str, Any]:
            return run(state)

        return arun if asynchronous else run

    if langgraph:
        from langgraph.graph import START as LG_START
        from langgraph.graph import StateGraph as LGStateGraph

        lg_builder: Any = LGStateGraph(S)  # (its overloads type a node by its schema)
        for name in TOOK:
            lg_builder.add_node(name, node(name)).add_edge(LG_START, name)
        return lg_builder.compile()
    builder = StateGraph(S)
    for name in TOOK:
        builder.add_node(name, node(name)).add_edge(START, name)
    return builder.compile()
