"""A reducer key that one node replaces instead of extending, with ``Overwrite``.

``START -> draft -> review -> compact -> publish -> END``. ``notes`` has an
``operator.add`` reducer: ``draft``, ``review`` and ``publish`` append to it, but
``compact`` writes ``Overwrite([...])``, which stores its list as the new value without
calling the reducer.

Things to look at in the debugger: the reducer diff of the ``compact`` step shows the
whole list dropped and replaced (old value, the ``Overwrite`` write, new value), while
every other step shows a concatenation; ``revision`` is a plain key for comparison.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "State", "build"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"notes": ["brief: announce the 1.0 release"]}
"""The editor's brief, the first note of the thread."""


class State(TypedDict):
    """Editorial notes (a reducer key) and the current revision number (a plain key)."""

    notes: Annotated[list[str], operator.add]
    revision: int


def draft(state: State) -> dict[str, Any]:
    """Write a first draft from the brief."""
    return {"notes": ["draft: sgdebug 1.0 is out"], "revision": 1}


def review(state: State) -> dict[str, Any]:
    """Ask for a change and bump the revision."""
    return {"notes": ["review: mention the TUI"], "revision": state["revision"] + 1}


def build(engine: Engine = "sgdebug") -> Any:
    """``draft -> review -> compact -> publish`` on ``engine``."""
    lg = api(engine)

    def compact(state: State) -> dict[str, Any]:
        """Squash the whole thread into one summary line, replacing the list."""
        summary = f"summary of {len(state['notes'])} notes at revision {state['revision']}"
        return {"notes": lg.Overwrite([summary])}

    def publish(state: State) -> dict[str, Any]:
        """Append the final line after the compacted summary."""
        return {"notes": [f"published revision {state['revision']}"]}

    builder = lg.StateGraph(State)
    builder.add_sequence([draft, review, compact, publish])
    builder.add_edge(lg.START, "draft")
    builder.add_edge("publish", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
