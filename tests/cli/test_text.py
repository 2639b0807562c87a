"""Text in and out of the command line: a script saved with a BOM, a C locale without UTF-8."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import Sgdebug, Write

START = '{"count": 1, "log": []}'
BOM = "\ufeff"

ACCENTS = """\
from typing import TypedDict
from sgdebug.runtime import END, START, StateGraph

class State(TypedDict):
    text: str

def café(state: State) -> dict:
    return {"text": state["text"] + " → ✓ é"}

builder = StateGraph(State)
builder.add_node("café", café)
builder.add_edge(START, "café")
builder.add_edge("café", END)
graph = builder.compile()
"""


def test_a_script_file_that_starts_with_a_bom_runs(sgdebug: Sgdebug, project: Path) -> None:
    (project / "debug.txt").write_text(f"{BOM}step\nprint state['count']\n", encoding="utf-8")

    result = sgdebug("run", "app:graph", "--input", START, "--script", "debug.txt")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "(sgdebug) step\n" in result.stdout
    assert result.stdout.endswith("(sgdebug) print state['count']\n1\n")


def test_a_script_on_stdin_that_starts_with_a_bom_runs(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", START, stdin=f"{BOM}continue\n")

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith("The run finished.\n")


def _c_locale(project: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``sgdebug ARGS`` under ``LC_ALL=C`` with UTF-8 mode off: stdout encodes ASCII only."""
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    result = subprocess.run(
        [sys.executable, "-m", "sgdebug", *args],
        cwd=project,
        input=stdin.encode(),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    return _decoded(result)


def _decoded(result: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[str]:
    out, err = (stream.decode("utf-8", "replace") for stream in (result.stdout, result.stderr))
    return subprocess.CompletedProcess(result.args, result.returncode, out, err)


@pytest.fixture
def accents(write: Write) -> Path:
    return write("accents.py", ACCENTS)


def test_headless_output_survives_a_c_locale(project: Path, accents: Path) -> None:
    result = _c_locale(
        project, "run", "accents.py:graph", "--input", '{"text": "x"}',
        stdin="continue\nprint state['text']\nstate\n",
    )  # fmt: skip

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout.endswith("  text = 'x \\u2192 \\u2713 \\xe9'\n")  # escaped, not lost


@pytest.mark.parametrize("form", ["text", "mermaid"])
def test_sgdebug_graph_survives_a_c_locale(project: Path, accents: Path, form: str) -> None:
    result = _c_locale(project, "graph", "accents.py:graph", "--format", form)

    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "caf" in result.stdout
