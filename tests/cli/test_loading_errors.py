"""Every way loading a target fails: one paragraph on stderr, exit status 2, nothing run."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Sgdebug = Callable[..., subprocess.CompletedProcess[str]]
Write = Callable[[str, str], Path]

SCRIPT = "continue\n"

FILES = {
    "crashes.py": "import app\nraise KeyError('API_TOKEN')\n",
    "typo.py": "def f(:\n    pass\n",
    "needs_dep.py": "import some_dependency_nobody_installed\n",
    "shapes.py": """\
        from app import builder, graph
        from sgdebug.runtime import StateGraph
        from app import State

        settings = {"debug": True}
        def needs_args(llm, tools):
            return builder
        def offline():
            raise ConnectionError("model offline")
        def returns_none():
            return None
        broken = StateGraph(State)
        broken.add_node("a", lambda s: s)
        broken.add_edge("a", "b")
        """,
    "lg_app.py": """\
        from typing import TypedDict
        from langgraph.graph import START, StateGraph

        class State(TypedDict):
            x: int

        builder = StateGraph(State)
        builder.add_node("n", lambda state: state)
        builder.add_edge(START, "n")
        graph = builder.compile()
        """,
}


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("app", "needs a colon between the module (or .py file) and the name of the graph"),
        ("app:", "after the colon comes the name of the graph"),
        ("no_such_module:graph", "there is no module named 'no_such_module'"),
        ("missing/app.py:graph", "there is no file 'missing/app.py'"),
        ("crashes:graph", "Importing module 'crashes' raised KeyError"),
        ("typo.py:graph", "raised SyntaxError"),
        ("needs_dep:graph", "No module named 'some_dependency_nobody_installed'"),
        ("app:grahp", "has no attribute 'grahp'. Did you mean 'graph'?"),
        ("shapes:settings", "is a dict, not a graph"),
        ("shapes:needs_args", "needs 2 arguments (llm, tools)"),
        ("shapes:offline", "Calling 'shapes:offline' raised ConnectionError"),
        ("shapes:returns_none", "returned a NoneType, not a graph"),
        ("shapes:broken", "not a valid graph: Graph must have an entrypoint"),
    ],
)
def test_a_target_that_cannot_load_exits_2_with_one_message(
    sgdebug: Sgdebug, write: Write, target: str, says: str
) -> None:
    for name, text in FILES.items():
        write(name, text)

    result = sgdebug("run", target, "--script", "-", stdin=SCRIPT)

    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
    assert says in result.stderr
    assert "Traceback" not in result.stderr.split("\n", 1)[0]


def test_the_users_traceback_is_shown_without_sgdebug_frames(
    sgdebug: Sgdebug, write: Write
) -> None:
    write("crashes.py", FILES["crashes.py"])

    result = sgdebug("graph", "crashes:graph")

    lines = result.stderr.splitlines()
    assert result.returncode == 2
    assert lines[0] == (
        "Error: Cannot load 'crashes:graph': Importing module 'crashes' raised KeyError; "
        "the error is in the code being loaded."
    )
    assert lines[1] == "Traceback (most recent call last):"
    assert lines[2].endswith('crashes.py", line 2, in <module>')
    assert lines[-1] == "KeyError: 'API_TOKEN'"
    assert "sgdebug" not in "\n".join(lines[1:])


def test_a_langgraph_program_loads_and_runs_as_it_is(sgdebug: Sgdebug, write: Write) -> None:
    write("lg_app.py", FILES["lg_app.py"])

    result = sgdebug("run", "lg_app:graph", "--input", '{"x": 1}', "--script", "-",
                     stdin="continue\nprint state['x']\ninfo\n")  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert "The run finished." in result.stdout
    assert "langgraph" in result.stdout


@pytest.mark.parametrize("command", ["open", "repl", "graph"])
def test_every_command_reports_loading_errors_the_same_way(sgdebug: Sgdebug, command: str) -> None:
    result = sgdebug(command, "app:nothing_here", stdin=SCRIPT)

    assert result.returncode == 2
    assert "Error: Cannot load 'app:nothing_here': 'app'" in result.stderr
    assert "Graphs it defines: builder, graph." in result.stderr
