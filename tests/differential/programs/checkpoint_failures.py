"""Checkpoint programs: steps that fail outside their tasks' bodies.

A step whose next tasks' inputs cannot be built (a pydantic state rejecting a value) fails
before any of them runs: ``invoke`` raises, and so does every read that plans the step
after the stored checkpoint (``get_state``, ``get_state_history``). Commit failures (a
reducer raising, two writes to a plain key) are in ``checkpoint_history``. See
``programs/checkpoint.py`` for how these scripts are observed and compared.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from pydantic import BaseModel

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, say
from .checkpoint import Rec, Script, ckpt, history, snap, thread


class Picky(BaseModel):
    """A pydantic state: ``x`` must be an integer."""

    x: int
    log: Annotated[list[str], operator.add] = []


def _picky(g: EngineAPI) -> Any:
    """``START -> a -> b``; ``a`` writes ``x = "bad"`` when ``x`` is 0 (outputs are not
    validated: the next step's input is)."""
    b = g.StateGraph(Picky)
    b.add_node("a", lambda s: {"x": "bad" if s.x == 0 else s.x, "log": ["a"]})
    b.add_node("b", say("b"))
    b.add_edge(g.START, "a").add_edge("a", "b")
    return b.compile(checkpointer=g.InMemorySaver())


@ckpt
def schema_rejects_the_input_before_the_first_node(g: EngineAPI) -> Case:
    graph = _picky(g)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": "abc"}, thread("t1")))
        yield "state", snap(graph, thread("t1"))
        yield "history", history(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["invoke"].name == "ValidationError"
        assert r["state"] == r["invoke"]  # planning the stored step fails again
        assert r["history"] == r["invoke"]

    return Case(graph, script=script, spec=spec)


@ckpt
def schema_rejects_a_nodes_write_before_the_next_node(g: EngineAPI) -> Case:
    graph = _picky(g)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 0}, thread("t1")))
        yield "state", snap(graph, thread("t1"))
        yield "ok thread", attempt(lambda: graph.invoke({"x": 2}, thread("t2")))

    def spec(r: Rec) -> None:
        assert r["invoke"].name == "ValidationError"
        assert r["state"] == r["invoke"]
        assert r["ok thread"] == {"x": 2, "log": ["a", "b"]}

    return Case(graph, script=script, spec=spec)
