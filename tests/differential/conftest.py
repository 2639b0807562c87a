"""Shared fixtures of the differential suite: which engine is compared, and a record cache.

``SGDEBUG_DIFF_ENGINE=langgraph pytest tests/differential`` compares LangGraph with itself,
which checks that every program is deterministic enough to be compared at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from sgdebug.sample_graphs._engines import Engine

from .harness import Program, run_program

Recorder = Callable[[Program, Engine], dict[str, Any]]


@pytest.fixture(scope="session")
def engine() -> Engine:
    """The engine compared against LangGraph (default: sgdebug)."""
    name = os.environ.get("SGDEBUG_DIFF_ENGINE", "sgdebug")
    assert name in ("sgdebug", "langgraph"), name
    return "langgraph" if name == "langgraph" else "sgdebug"


@pytest.fixture(scope="session")
def record() -> Recorder:
    """``record(program, engine)``: the program's record, computed once per session."""
    cache: dict[tuple[str, str, Engine], dict[str, Any]] = {}

    def get(prog: Program, engine: Engine) -> dict[str, Any]:
        key = (prog.build.__module__, prog.name, engine)
        if key not in cache:
            cache[key] = run_program(prog, engine)
        return cache[key]

    return get


LANGGRAPH_RETRIES = 4
"""LangGraph runs parallel sync tasks in a thread pool: on a loaded machine the order of
their ``updates`` events can change from run to run. A record that does not match is
compared again with fresh LangGraph runs, so a test fails only when no LangGraph run
matches (never because LangGraph was nondeterministic once)."""


def settle(
    program: Program, first: dict[str, Any], matches: Callable[[dict[str, Any]], str]
) -> str:
    """``matches(record)`` → mismatch report; retried on fresh LangGraph records if needed."""
    report = matches(first)
    for _ in range(LANGGRAPH_RETRIES):
        if not report:
            break
        report = matches(run_program(program, "langgraph"))
    return report
