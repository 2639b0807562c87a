"""Helpers for running the ``sgdebug`` command line in a subprocess, as a user does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

Sgdebug = Callable[..., subprocess.CompletedProcess[str]]

GRAPH_MODULE = """\
import operator
from typing import Annotated, TypedDict

from sgdebug.runtime import END, START, StateGraph


class State(TypedDict):
    count: int
    log: Annotated[list[str], operator.add]


def first(state: State) -> dict:
    return {"count": state["count"] + 1, "log": ["first"]}


def second(state: State) -> dict:
    if state["count"] > 100:
        raise ValueError(f"count too large: {state['count']}")
    return {"count": state["count"] * 10, "log": ["second"]}


builder = StateGraph(State)
builder.add_node("first", first)
builder.add_node("second", second)
builder.add_edge(START, "first")
builder.add_edge("first", "second")
builder.add_edge("second", END)
graph = builder.compile()
"""


SLOW_LOOP = """\
import time
from typing import TypedDict
from sgdebug.runtime import END, START, StateGraph

class State(TypedDict):
    n: int

def tick(state: State) -> dict:
    time.sleep(0.02)
    return {"n": state["n"] + 1}

builder = StateGraph(State)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 10_000 else END)
graph = builder.compile()
"""
"""``tick`` loops 10,000 times, 20 ms each: a run that is still going when a test acts."""

SPINNING = """\
from pathlib import Path
from typing import TypedDict
from sgdebug.runtime import END, START, StateGraph

class State(TypedDict):
    n: int

def spin(state: State) -> dict:
    Path("spinning").touch()
    while True:
        pass

def also_spin(state: State) -> dict:
    while True:
        pass

builder = StateGraph(State)
builder.add_node("spin", spin)
builder.add_edge(START, "spin")
builder.add_edge("spin", END)
graph = builder.compile()

parallel = StateGraph(State)  # the second node runs in a worker thread
parallel.add_node("spin", spin)
parallel.add_node("also_spin", also_spin)
parallel.add_edge(START, "spin")
parallel.add_edge(START, "also_spin")
parallel_graph = parallel.compile()
"""
"""``graph``'s ``spin`` (and ``parallel_graph``'s, beside ``also_spin`` in a worker thread)
never returns; ``spin`` first touches the file ``spinning``."""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder holding ``app.py`` (``app:graph``: ``first -> second``)."""
    (tmp_path / "app.py").write_text(GRAPH_MODULE)
    return tmp_path


@pytest.fixture
def sgdebug(project: Path) -> Sgdebug:
    """Run ``python -m sgdebug *args`` in ``project``, with ``stdin`` as its input."""

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sgdebug", *args],
            cwd=project,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    return run


Write = Callable[[str, str], Path]


@pytest.fixture
def write(project: Path) -> Write:
    """Write a file into ``project``: ``write("name.py", source)`` (dedented)."""

    def put(name: str, text: str) -> Path:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
        return path

    return put
