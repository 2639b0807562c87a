"""Parallel branches of different lengths joined by a waiting edge.

``START -> b`` and ``START -> c`` run in the same superstep; ``b -> b_2`` makes the ``b``
branch one step longer; ``add_edge(["b_2", "c"], "d")`` makes ``d`` wait until *both*
``b_2`` and ``c`` have run, so it runs once, in the third step, with every write in.
``width`` adds more short branches next to ``c`` (``c2``, ``c3``, ...), all joined into
``d``; the benchmark uses ``width=50``.

Things to look at in the debugger: the first step has ``width`` pending tasks; their
``trail`` writes are applied in task order (sorted by node name), whatever order the
threads finish in; after step 2 ``d`` is still not scheduled because the join's barrier
is waiting for ``b_2``. With plain edges ``b_2 -> d`` and ``c -> d`` instead, ``d`` would
run twice.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "State", "branch_names", "build"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"trail": ["a"]}
"""The trail starts with the input's own mark."""


class State(TypedDict):
    """Every node appends its name to ``trail``; ``d`` records what it saw."""

    trail: Annotated[list[str], operator.add]
    joined: str


def branch_names(width: int = 2) -> list[str]:
    """The nodes that start in parallel from START: ``b``, ``c``, then ``c2``... ."""
    if width < 2:
        raise ValueError(f"fanout needs width >= 2, got {width}")
    return ["b", "c", *(f"c{index}" for index in range(2, width))]


def _mark(name: str) -> Callable[[State], dict[str, Any]]:
    def node(state: State) -> dict[str, Any]:
        return {"trail": [name]}

    node.__name__ = name
    node.__doc__ = f"Append {name!r} to the trail."
    return node


def d(state: State) -> dict[str, Any]:
    """The join: runs once both branches are done and records the trail it saw."""
    return {"trail": ["d"], "joined": " + ".join(state["trail"])}


def build(engine: Engine = "sgdebug", width: int = 2) -> Any:
    """START fans out to ``width`` branches (``b`` is two nodes long), joined into ``d``."""
    lg = api(engine)
    branches = branch_names(width)
    builder = lg.StateGraph(State)
    for name in [*branches, "b_2"]:
        builder.add_node(name, _mark(name))
    builder.add_node("d", d)
    for name in branches:
        builder.add_edge(lg.START, name)
    builder.add_edge("b", "b_2")
    builder.add_edge(["b_2", *branches[1:]], "d")
    builder.add_edge("d", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
