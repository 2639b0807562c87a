"""What escapes a subgraph, with the notes LangGraph adds (the differential harness leaves
notes out: their task ids are random): one ``During task ...`` note per level, innermost
first, and none on a ``Command.PARENT`` that leaves the root graph."""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.sample_graphs._engines import ENGINES, Engine, EngineAPI, api


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def _three_levels(g: EngineAPI, inner: Any) -> Any:
    leaf = g.StateGraph(S).add_node("leaf", inner).add_edge(g.START, "leaf").compile()
    mid = g.StateGraph(S).add_node("inner", leaf).add_edge(g.START, "inner").compile()
    return g.StateGraph(S).add_node("mid", mid).add_edge(g.START, "mid").compile()


def _raised(graph: Any, config: dict[str, Any] | None = None) -> tuple[str, str, list[str]]:
    with pytest.raises(BaseException) as info:
        graph.invoke({"x": 0, "log": []}, config)
    notes = [re.sub(r"id '[^']*'", "id <id>", n) for n in getattr(info.value, "__notes__", [])]
    return type(info.value).__name__, str(info.value), notes


def _fail(state: Any) -> dict[str, Any]:
    raise KeyError("deep")


def _loop(state: Any) -> dict[str, Any]:
    return {"x": state["x"] + 1}


def _outcomes(engine: Engine) -> list[tuple[str, str, list[str]]]:
    g = api(engine)
    loop = g.StateGraph(S).add_node("spin", _loop).add_edge(g.START, "spin")
    loop.add_conditional_edges("spin", lambda s: "spin")
    spinning = g.StateGraph(S).add_node("sub", loop.compile()).add_edge(g.START, "sub")

    def escape(state: Any) -> Any:
        return g.Command(graph=g.Command.PARENT, goto="nowhere")

    root = g.StateGraph(S).add_node("a", escape).add_edge(g.START, "a").compile()
    return [
        _raised(_three_levels(g, _fail)),
        _raised(spinning.compile(), {"recursion_limit": 4}),
        _raised(root),
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_errors_from_subgraphs_carry_one_note_per_level(engine: Engine) -> None:
    failed, limited, escaped = _outcomes(engine)
    assert failed == (
        "KeyError",
        "'deep'",
        [
            "During task with name 'leaf' and id <id>",
            "During task with name 'inner' and id <id>",
            "During task with name 'mid' and id <id>",
        ],
    )
    assert limited[0] == "GraphRecursionError"
    assert limited[1].startswith("Recursion limit of 4 reached")
    assert limited[2] == ["During task with name 'sub' and id <id>"]
    assert escaped == ("ParentCommand", "Command(goto='nowhere')", [])


def test_both_engines_agree() -> None:
    assert _outcomes("sgdebug") == _outcomes("langgraph")
