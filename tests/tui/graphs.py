"""Small graphs for the TUI tests: a node that raises until the state is fixed, a node that
waits (so a test can look at the screen while it runs) and a reducer graph."""

from __future__ import annotations

import linecache
import operator
import threading
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from sgdebug.runtime import END, START, CompiledStateGraph, StateGraph, interrupt


class FlakyState(TypedDict):
    """``divisor`` must be non-zero for ``divide`` to work."""

    divisor: int
    result: float


def divide(state: FlakyState) -> dict[str, Any]:
    """Raises ZeroDivisionError while ``divisor`` is 0."""
    return {"result": 10 / state["divisor"]}


def flaky_graph() -> CompiledStateGraph:
    """START -> divide -> END; ``divide`` raises on ``{"divisor": 0}``."""
    builder = StateGraph(FlakyState)
    builder.add_node("divide", divide)
    builder.add_edge(START, "divide")
    builder.add_edge("divide", END)
    return builder.compile()


class SlowState(TypedDict):
    """How many times ``slow`` ran."""

    laps: Annotated[list[int], operator.add]


def slow_graph(gate: threading.Event, timeout: float = 10.0) -> CompiledStateGraph:
    """``slow`` waits for ``gate`` (at most ``timeout`` s) on every lap; it loops 3 times."""

    def slow(state: SlowState) -> dict[str, Any]:
        gate.wait(timeout)
        return {"laps": [len(state["laps"]) + 1]}

    def again(state: SlowState) -> str:
        return "slow" if len(state["laps"]) < 3 else END

    builder = StateGraph(SlowState)
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    builder.add_conditional_edges("slow", again, ["slow", END])
    return builder.compile()


def lap_graph(before: Callable[[int], object], laps: int) -> CompiledStateGraph:
    """``lap`` records one lap per step until there are ``laps``; each lap first calls
    ``before(laps done so far)`` (where a test waits, or moves a clock on)."""

    def lap(state: SlowState) -> dict[str, Any]:
        before(len(state["laps"]))
        return {"laps": [len(state["laps"]) + 1]}

    builder = StateGraph(SlowState)
    builder.add_node("lap", lap)
    builder.add_edge(START, "lap")
    builder.add_conditional_edges("lap", lambda s: "lap" if len(s["laps"]) < laps else END)
    return builder.compile()


class AskState(TypedDict):
    """The answer ``ask`` got from ``interrupt()``."""

    answer: str


def ask(state: AskState) -> dict[str, Any]:
    """Asks the user (through ``interrupt()``) for an answer."""
    return {"answer": str(interrupt("your name?"))}


def ask_graph() -> CompiledStateGraph:
    """START -> ask -> END; ``ask`` waits for ``resume``."""
    builder = StateGraph(AskState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile()


FLAKY_FILE = "flaky_node.py"
"""The file name the snapshot graph's node reports in tracebacks (the same on every machine)."""
_FLAKY_SOURCE = '''\
def divide(state):
    """Raises ZeroDivisionError while the divisor is 0."""
    return {"result": 10 / state["divisor"]}
'''


def snapshot_flaky_graph() -> CompiledStateGraph:
    """Like :func:`flaky_graph`, with a node whose traceback names ``flaky_node.py``."""
    namespace: dict[str, Any] = {}
    exec(compile(_FLAKY_SOURCE, FLAKY_FILE, "exec"), namespace)
    lines = _FLAKY_SOURCE.splitlines(keepends=True)
    linecache.cache[FLAKY_FILE] = (len(_FLAKY_SOURCE), None, lines, FLAKY_FILE)
    builder = StateGraph(FlakyState)
    builder.add_node("divide", namespace["divide"])
    builder.add_edge(START, "divide")
    builder.add_edge("divide", END)
    return builder.compile()


class ItemsState(TypedDict):
    """A log of items and a plain note."""

    items: Annotated[list[str], operator.add]
    note: str


def append_twice(state: ItemsState) -> dict[str, Any]:
    """The classic bug: appends to the list it was given, then returns the item too."""
    state["items"].append("new")
    return {"items": ["new"]}


def noted(state: ItemsState) -> dict[str, Any]:
    """A well-behaved node."""
    return {"note": "done"}


def duplicating_graph() -> CompiledStateGraph:
    """START -> append_twice -> noted -> END."""
    builder = StateGraph(ItemsState)
    builder.add_node("append_twice", append_twice).add_node("noted", noted)
    builder.add_edge(START, "append_twice").add_edge("append_twice", "noted")
    builder.add_edge("noted", END)
    return builder.compile()
