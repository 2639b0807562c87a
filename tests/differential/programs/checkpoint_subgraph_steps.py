"""Checkpoint programs: subgraphs compiled to stop before or after every node
(``interrupt_before="*"`` / ``interrupt_after="*"``), stepped with ``invoke(None)``.

The debugger's step inside a subgraph gives a subgraph's run exactly these stops through
its inner breakpoint ``FRAME/*`` (``sgdebug.runtime.engine._inner_breaks``;
``tests/runtime/test_inner_breaks.py`` checks the two give the same pauses): where each
pause stands, parent and subgraph alike, and that stepping ends as a run without stops.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, say
from .checkpoint import CFG, Rec, Script, ckpt, snap

PAUSES = 8
"""More ``invoke(None)`` calls than any program here pauses (the rest change nothing)."""


class L(TypedDict):
    """An append log."""

    log: Annotated[list[str], operator.add]


def _frames(st: Any) -> list[Any]:
    """Each level's ``(next, values, step)``, from the root down the first started
    subgraph."""
    out = [(st.next, st.values, st.metadata.get("step") if st.metadata else None)]
    for task in st.tasks:
        if task.state is not None and not isinstance(task.state, dict):
            return out + _frames(task.state)
    return out


def _stepped(graph: Any, given: dict[str, Any]) -> Script:
    yield "first", attempt(lambda: graph.invoke(given, CFG))
    yield "at 0", attempt(lambda: _frames(graph.get_state(CFG, subgraphs=True)))
    for pause in range(1, PAUSES):
        yield f"invoke {pause}", attempt(lambda: graph.invoke(None, CFG))
        yield f"at {pause}", attempt(lambda: _frames(graph.get_state(CFG, subgraphs=True)))
    yield "final", snap(graph)


def _deep(g: EngineAPI, inner: Callable[[Any], Any]) -> Any:
    b = g.StateGraph(L).add_node("x", say("x")).add_node("y", say("y"))
    b.add_edge(g.START, "x").add_edge("x", "y")
    a = g.StateGraph(L).add_node("p", say("p")).add_node("b", inner(b))
    a.add_edge(g.START, "p").add_edge("p", "b")
    top = g.StateGraph(L).add_node("a", a.compile()).add_node("z", say("z"))
    top.add_edge(g.START, "a").add_edge("a", "z")
    return top.compile(checkpointer=g.InMemorySaver())


PLAIN = {"log": ["p", "p", "x", "y", "z"]}
"""What a run without stops ends with (each subgraph hands back its whole log)."""


def _ends_like_a_plain_run(r: Rec) -> None:
    assert r["final"]["values"] == PLAIN


@ckpt
def subgraph_compiled_to_stop_before_every_node_stepped(g: EngineAPI) -> Case:
    graph = _deep(g, lambda b: b.compile(interrupt_before="*"))

    def spec(r: Rec) -> None:
        assert [level[0] for level in r["at 0"]] == [("a",), ("b",), ("x",)]
        assert [level[0] for level in r["at 1"]] == [("a",), ("b",), ("y",)]
        _ends_like_a_plain_run(r)

    return Case(graph, script=lambda: _stepped(graph, {"log": []}), spec=spec)


@ckpt
def subgraph_compiled_to_stop_after_every_node_stepped(g: EngineAPI) -> Case:
    graph = _deep(g, lambda b: b.compile(interrupt_after="*"))

    def spec(r: Rec) -> None:
        assert [level[0] for level in r["at 0"]] == [("a",), ("b",), ("y",)]
        _ends_like_a_plain_run(r)

    return Case(graph, script=lambda: _stepped(graph, {"log": []}), spec=spec)
