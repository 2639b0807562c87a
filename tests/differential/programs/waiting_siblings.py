"""Parallel nodes that are quick for a few runs, then wait for a later sibling of their
step: LangGraph runs each task in a thread of its own, so the one waiting sees its sibling
run; sgdebug runs a step of proven-fast nodes in the calling thread, one after the other,
and must hand the rest of the step to other threads when one waits (it waited forever).

Each program runs its graph on a few inputs that do not wait (the nodes prove fast), then
on one that does. A waiting node gives up after :data:`WAIT_S` and says so in the state,
so a runtime that does not hand off fails the comparison instead of hanging.
"""

from __future__ import annotations

import operator
import queue
import threading
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

WAIT_S = 5.0
"""The most a node waits for its sibling (a step run one task after the other ends)."""
QUICK = 3
"""Inputs that do not wait, before the one that does (each is invoked and streamed)."""


class S(TypedDict):
    """Whether the nodes wait this time, and what they saw."""

    wait: bool
    key: str
    log: Annotated[list[str], operator.add]


def _inputs() -> tuple[dict[str, Any], ...]:
    quick = {"wait": False, "key": "", "log": []}
    return (quick,) * QUICK + ({"wait": True, "key": "", "log": []},)


class _Handed:
    """Per key (one per graph run, see :func:`nested_steps_of_fast_nodes_that_wait`): what
    the second node hands the first."""

    def __init__(self) -> None:
        self._queues: dict[str, queue.Queue[str]] = {}
        self._lock = threading.Lock()

    def of(self, key: str) -> queue.Queue[str]:
        with self._lock:
            return self._queues.setdefault(key, queue.Queue())

    def nodes(self) -> tuple[Callable[[S], dict[str, Any]], Callable[[S], dict[str, Any]]]:
        """``first`` waits for what ``second`` puts in the queue, when the input waits."""

        def first(state: S) -> dict[str, Any]:
            if not state["wait"]:
                return {"log": ["first"]}
            try:
                got = self.of(state["key"]).get(timeout=WAIT_S)
            except queue.Empty:
                got = "nothing: it waited in vain"
            return {"log": [f"first got {got}"]}

        def second(state: S) -> dict[str, Any]:
            if state["wait"]:
                self.of(state["key"]).put("second's note")
            return {"log": ["second"]}

        return first, second


def _pair(g: EngineAPI, handed: _Handed) -> Any:
    """``START -> (first, second, third) -> END``, in that step order."""
    first, second = handed.nodes()
    b = g.StateGraph(S).add_node("first", first).add_node("second", second)
    b.add_node("third", lambda state: {"log": ["third"]})
    for name in ("first", "second", "third"):
        b.add_edge(g.START, name)
    return b.compile()


@program()
def fast_nodes_then_one_waits_for_a_later_sibling(g: EngineAPI) -> Case:
    return Case(_pair(g, _Handed()), inputs=_inputs(), unordered=True)


@program()
def fast_nodes_then_one_waits_for_a_sibling_under_max_concurrency(g: EngineAPI) -> Case:
    """Two at once: the waiting node and the one it waits for."""
    graph = _pair(g, _Handed())
    return Case(graph, inputs=_inputs(), config={"max_concurrency": 2}, unordered=True)


@program()
def fast_nodes_then_all_wait_at_a_barrier(g: EngineAPI) -> Case:
    barrier = threading.Barrier(4, timeout=WAIT_S)

    def node(name: str) -> Callable[[S], dict[str, Any]]:
        def meet(state: S) -> dict[str, Any]:
            if not state["wait"]:
                return {"log": [name]}
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                barrier.reset()
                return {"log": [f"{name} met nobody"]}
            return {"log": [f"{name} met the others"]}

        return meet

    b = g.StateGraph(S)
    for name in ("p", "q", "r", "s"):
        b.add_node(name, node(name)).add_edge(g.START, name)
    return Case(b.compile(), inputs=_inputs(), unordered=True)


OUTER = 10
"""Subgraph runs in the outer step: more than sgdebug's pool has threads on a small machine
(``cpu_count + 4``), so the inner steps' tasks cannot count on a free pool thread."""


@program()
def nested_steps_of_fast_nodes_that_wait(g: EngineAPI) -> Case:
    """Parallel nodes each running a subgraph whose first node waits for its second (the
    subgraph's run gets the node's name as its key)."""
    inner = _pair(g, _Handed())

    def outer_node(key: str) -> Callable[[S], dict[str, Any]]:
        def run(state: S) -> dict[str, Any]:
            got = inner.invoke({"wait": state["wait"], "key": key, "log": []})
            return {"log": [f"{key}: {', '.join(sorted(got['log']))}"]}

        return run

    b = g.StateGraph(S)
    for i in range(OUTER):
        b.add_node(f"sub{i}", outer_node(f"sub{i}")).add_edge(g.START, f"sub{i}")
    return Case(b.compile(), inputs=_inputs(), unordered=True)
