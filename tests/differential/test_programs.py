"""Every runtime-core program gives the same record on sgdebug.runtime as on LangGraph.

``test_langgraph_matches_spec`` checks the corpus itself: LangGraph's record shows what the
program says it expects (taken from LANGGRAPH_SEMANTICS.md where the document says it).
``test_same_as_langgraph`` is the differential test proper, on both paths of sgdebug:
``plain`` (no hook, a user's invoke/stream) and ``hooked`` (a pause hook pausing everywhere,
the debugger's path; see ``conftest.path``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from sgdebug.sample_graphs._engines import Engine

from . import programs  # noqa: F401 - registers the programs
from .conftest import PATHS, Recorder, RunPath, compare, settle
from .harness import CORE, Program, check_expectations, diff, run_program

NAMES = list(CORE)


def test_corpus_size() -> None:
    assert len(CORE) >= 60


@pytest.mark.parametrize("name", NAMES)
def test_langgraph_matches_spec(name: str, record: Recorder) -> None:
    report = settle(CORE[name], record(CORE[name], "langgraph"), _spec_report(CORE[name]))
    assert not report, report


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("name", NAMES)
def test_same_as_langgraph(name: str, path: RunPath, record: Recorder, engine: Engine) -> None:
    if engine == "langgraph" and path == "hooked":
        pytest.skip("pause hooks are sgdebug's")
    report = compare(
        CORE[name],
        record(CORE[name], "langgraph"),
        lambda: run_program(CORE[name], engine),
        lambda expected, got: diff(expected, got, ("langgraph", engine)),
    )
    assert not report, "\n" + report


def _spec_report(program: Program) -> Callable[[dict[str, Any]], str]:
    def check(rec: dict[str, Any]) -> str:
        try:
            check_expectations(program, rec)
        except AssertionError as exc:
            return f"LangGraph's record does not show what the program expects: {exc!r}"
        return ""

    return check
