"""A conditional edge that loops a node until a counter reaches its target.

``START -> attempt``; after each ``attempt`` the path function ``should_retry`` sends
the run back to ``attempt`` while ``count < iterations``, then on to ``report``. Each pass
through the loop is one superstep, so ``iterations`` passes take ``iterations + 2``
supersteps counting the input step and ``report`` (the benchmark uses 2,000; pass a
``recursion_limit`` above that).

Things to look at in the debugger: set a breakpoint on ``attempt`` and continue to see it
hit once per pass; the branch result of each step shows which way ``should_retry`` went;
rewind to an earlier pass and edit ``count`` to shorten the loop.
"""

from __future__ import annotations

from typing import Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "State", "attempt", "build", "report", "supersteps"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"count": 0}
"""Start counting from zero."""


class State(TypedDict):
    """How many passes were made and the final report."""

    count: int
    status: str


def attempt(state: State) -> dict[str, Any]:
    """One pass of the loop: bump the counter."""
    count = state["count"] + 1
    return {"count": count, "status": f"attempt {count}"}


def report(state: State) -> dict[str, Any]:
    """Leave the loop with a summary."""
    return {"status": f"done after {state['count']} attempts"}


def supersteps(iterations: int) -> int:
    """Supersteps that run a task: the input step, one per pass, and ``report``."""
    return iterations + 2


def build(engine: Engine = "sgdebug", iterations: int = 3) -> Any:
    """``attempt`` loops on itself ``iterations`` times, then ``report`` ends the run."""
    if iterations < 1:
        raise ValueError(f"loop needs iterations >= 1, got {iterations}")
    lg = api(engine)

    def should_retry(state: State) -> str:
        """Back to ``attempt`` until the counter reaches the target."""
        return "attempt" if state["count"] < iterations else "report"

    builder = lg.StateGraph(State)
    builder.add_node("attempt", attempt)
    builder.add_node("report", report)
    builder.add_edge(lg.START, "attempt")
    builder.add_conditional_edges("attempt", should_retry, ["attempt", "report"])
    builder.add_edge("report", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
