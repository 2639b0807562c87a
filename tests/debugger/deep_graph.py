"""A graph two subgraphs deep, for stepping tests: ``a -> z``, ``a`` runs ``p -> b -> q``,
``b`` runs ``x -> y``. Every node adds its name to ``log`` (a plain key: each subgraph
hands back its whole log), with no interrupt(), so a run is one list and stepping must not
change it."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, TypedDict

from sgdebug.sample_graphs import Engine
from sgdebug.sample_graphs._engines import api

__all__ = ["EXAMPLE_INPUT", "LOG", "State", "build"]

EXAMPLE_INPUT: dict[str, Any] = {"log": ["in"]}
LOG = ["in", "p", "x", "y", "q", "z"]
"""The log a whole run ends with."""


class State(TypedDict, total=False):
    log: list[str]


def _node(name: str) -> Callable[[State], dict[str, Any]]:
    def run(state: State) -> dict[str, Any]:
        return {"log": [*state["log"], name]}

    run.__name__ = name
    return run


def _chain(engine: Engine, nodes: list[tuple[str, Any]]) -> Any:
    lg = api(engine)
    builder = lg.StateGraph(State)
    for name, action in nodes:
        builder.add_node(name, action)
    names = [lg.START, *(name for name, _ in nodes), lg.END]
    for source, target in itertools.pairwise(names):
        builder.add_edge(source, target)
    return builder


def build(engine: Engine = "sgdebug", checkpointer: Any = None) -> Any:
    """The root graph's builder (``checkpointer``: what each subgraph compiles with)."""
    b = _chain(engine, [("x", _node("x")), ("y", _node("y"))]).compile(checkpointer=checkpointer)
    a = _chain(engine, [("p", _node("p")), ("b", b), ("q", _node("q"))])
    return _chain(engine, [("a", a.compile(checkpointer=checkpointer)), ("z", _node("z"))])
