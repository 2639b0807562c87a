"""``--engine native`` on a program written with LangGraph: it runs on sgdebug's runtime
through the ``langgraph`` import alias; what the alias lacks stops it with one sentence."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Sgdebug = Callable[..., subprocess.CompletedProcess[str]]
Write = Callable[[str, str], Path]

FILES = {
    "lg_app.py": """\
        import operator
        from typing import Annotated, TypedDict

        from langgraph.graph import END, START, StateGraph
        from lg_nodes import double

        class State(TypedDict):
            x: int
            log: Annotated[list[str], operator.add]

        builder = StateGraph(State)
        builder.add_node("double", double)
        builder.add_edge(START, "double")
        builder.add_edge("double", END)
        graph = builder.compile()
        """,
    "lg_nodes.py": """\
        from langgraph.graph import StateGraph

        def double(state: dict) -> dict:
            return {"x": state["x"] * 2, "log": [StateGraph.__module__]}
        """,
    "lg_tools.py": """\
        from lg_app import graph
        from langgraph.prebuilt import ToolNode
        """,
    "lg_policy.py": """\
        from langgraph.types import TracePolicy
        from lg_app import builder
        """,
}
SCRIPT = "info\ncontinue\nprint state\n"
SENTENCE = (
    "sgdebug's runtime does not provide {} yet; run this program on the langgraph engine "
    "(leave out --engine native)"
)


@pytest.fixture(autouse=True)
def files(write: Write) -> None:
    for name, text in FILES.items():
        write(name, text)


def test_engine_native_runs_a_langgraph_program_on_the_runtime(sgdebug: Sgdebug) -> None:
    result = sgdebug(
        "run", "lg_app:graph", "--engine", "native", "--input", '{"x": 3, "log": []}',
        "--script", "-", stdin=SCRIPT,
    )  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert "Engine: native" in result.stdout
    assert "{'x': 6, 'log': ['sgdebug.runtime._state_graph']}" in result.stdout


def test_without_engine_native_the_program_runs_on_langgraph(sgdebug: Sgdebug) -> None:
    result = sgdebug(
        "run", "lg_app:graph", "--input", '{"x": 3, "log": []}', "--script", "-", stdin=SCRIPT
    )

    assert result.returncode == 0, result.stderr
    assert "Engine: langgraph" in result.stdout
    assert "{'x': 6, 'log': ['langgraph.graph.state']}" in result.stdout


@pytest.mark.parametrize(
    ("target", "missing"),
    [
        ("lg_tools:graph", "langgraph.prebuilt"),
        ("lg_policy:builder", "langgraph.types.TracePolicy"),
    ],
)
def test_what_the_alias_lacks_exits_2_with_one_sentence(
    sgdebug: Sgdebug, target: str, missing: str
) -> None:
    result = sgdebug("run", target, "--engine", "native", "--script", "-", stdin=SCRIPT)

    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == f"Error: {SENTENCE.format(missing)}\n"
