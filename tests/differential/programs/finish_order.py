"""Programs whose parallel tasks finish out of scheduling order: a streamed step reports
each task as it finishes (``updates``, ``tasks`` and ``debug`` results), as LangGraph does.

The slow task is the first one scheduled; it waits for the fast one to finish (an event,
so it cannot end first on a loaded machine), then for :data:`AFTER_S` more, well past the
runtime's grace for tasks finishing together (``engine._finish_order.GRACE_S``).
"""

from __future__ import annotations

import asyncio
import operator
import threading
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

AFTER_S = 0.2
"""How long after the fast task the slow one finishes (seconds)."""
WAIT_S = 5.0
"""The most the slow task waits for the fast one (a task run alone does not hang)."""
MODES: tuple[Any, ...] = ("tasks", "debug", ["updates", "values"], ["updates", "custom"])


class S(TypedDict):
    """Who ran, in commit (scheduling) order."""

    log: Annotated[list[str], operator.add]


def _fast(gate: threading.Event) -> Any:
    def fast(state: Any) -> dict[str, Any]:
        gate.set()
        return {"log": ["fast"]}

    return fast


def _graph(g: EngineAPI, slow: Any, fast: Any) -> Any:
    """``START -> (a_slow, b_fast) -> join``: ``a_slow`` is scheduled first (name order)."""
    b = g.StateGraph(S).add_node("a_slow", slow).add_node("b_fast", fast)
    b.add_node("join", lambda state: {"log": ["join"]})
    b.add_edge(g.START, "a_slow").add_edge(g.START, "b_fast")
    return b.add_edge(["a_slow", "b_fast"], "join").compile()


@program()
def parallel_tasks_stream_in_finish_order(g: EngineAPI) -> Case:
    gate = threading.Event()

    def slow(state: Any) -> dict[str, Any]:
        gate.wait(WAIT_S)
        gate.clear()
        threading.Event().wait(AFTER_S)
        return {"log": ["slow"]}

    return Case(_graph(g, slow, _fast(gate)), inputs=({"log": []},), modes=MODES)


@program()
def async_parallel_tasks_stream_in_finish_order(g: EngineAPI) -> Case:
    gate = threading.Event()  # (an asyncio.Event binds to the first run's loop)

    async def slow(state: Any) -> dict[str, Any]:
        for _ in range(int(WAIT_S / 0.001)):
            if gate.is_set():
                break
            await asyncio.sleep(0.001)
        gate.clear()
        await asyncio.sleep(AFTER_S)
        return {"log": ["slow"]}

    async def fast(state: Any) -> dict[str, Any]:
        gate.set()
        return {"log": ["fast"]}

    return Case(_graph(g, slow, fast), inputs=({"log": []},), modes=MODES, use_async=True)
