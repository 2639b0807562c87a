"""A step's parallel tasks start in LangGraph's order (the step's task order).

Each parallel node notes that it started in a list shared by the step's tasks, then waits at
a barrier with its siblings (so they really run at once: none can finish before all have
started); the join node writes the order it saw into the state, so it is compared like any
other result, on every run path.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program


class Seen(TypedDict):
    """The start order the join node saw, and what the parallel nodes returned."""

    order: list[Any]
    got: Annotated[list[Any], operator.add]


class _Starts:
    """The start notes of one step's tasks; ``overlap`` is how many run at once."""

    def __init__(self, overlap: int) -> None:
        self.seen: list[Any] = []
        self.barrier = threading.Barrier(overlap, timeout=10)

    def node(self, name: str) -> Callable[[Any], dict[str, Any]]:
        def started(arg: Any) -> dict[str, Any]:
            label = arg if isinstance(arg, int) else name
            self.seen.append(label)
            self.barrier.wait()
            return {"got": [label]}

        started.__name__ = name
        return started

    def join(self, state: Any) -> dict[str, Any]:
        order, self.seen = self.seen, []
        return {"order": order}


def _case(graph: Any, config: dict[str, Any] | None = None) -> Case:
    # the parallel nodes finish together: LangGraph streams their updates in finish order
    blank: dict[str, list[Any]] = {"order": [], "got": []}
    return Case(graph, inputs=(blank, blank), config=config, unordered=True)


@program()
def parallel_nodes_start_in_edge_order(g: EngineAPI) -> Case:
    starts = _Starts(4)
    b = g.StateGraph(Seen).add_node("join", starts.join)
    for name in ("d", "b", "a", "c"):
        b.add_node(name, starts.node(name)).add_edge(g.START, name).add_edge(name, "join")
    return _case(b.compile())


@program()
def sends_start_in_send_order(g: EngineAPI) -> Case:
    starts = _Starts(5)

    def fan(state: Any) -> list[Any]:
        return [g.Send("work", i) for i in (3, 0, 4, 1, 2)]

    b = g.StateGraph(Seen).add_node("work", starts.node("work")).add_node("join", starts.join)
    b.add_conditional_edges(g.START, fan, ["work"]).add_edge("work", "join")
    return _case(b.compile())


@program()
def nodes_then_sends_start_in_step_order(g: EngineAPI) -> Case:
    """Edge-triggered nodes and a branch's Sends in one step."""
    starts = _Starts(4)

    def fan(state: Any) -> list[Any]:
        return ["y", g.Send("work", 7), g.Send("work", 5)]

    b = g.StateGraph(Seen).add_node("pre", lambda s: {"got": ["pre"]})
    for name in ("x", "y", "work"):
        b.add_node(name, starts.node(name)).add_edge(name, "join")
    b.add_node("join", starts.join).add_edge(g.START, "pre").add_edge("pre", "x")
    b.add_conditional_edges("pre", fan, ["y", "work"])
    return _case(b.compile())


@program()
def parallel_nodes_start_in_order_under_max_concurrency(g: EngineAPI) -> Case:
    starts = _Starts(2)
    b = g.StateGraph(Seen).add_node("join", starts.join)
    for name in ("p", "q", "r", "s"):
        b.add_node(name, starts.node(name)).add_edge(g.START, name).add_edge(name, "join")
    return _case(b.compile(), {"max_concurrency": 2})
