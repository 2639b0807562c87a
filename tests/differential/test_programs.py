"""Every runtime-core program gives the same record on sgdebug.runtime as on LangGraph.

``test_langgraph_matches_spec`` checks the corpus itself: LangGraph's record shows what the
program says it expects (taken from LANGGRAPH_SEMANTICS.md where the document says it).
``test_same_as_langgraph`` is the differential test proper.
"""

from __future__ import annotations

import pytest

from sgdebug.sample_graphs._engines import Engine

from . import programs  # noqa: F401 - registers the programs
from .conftest import Recorder
from .harness import CORE, check_expectations, diff, run_program

NAMES = list(CORE)


def test_corpus_size() -> None:
    assert len(CORE) >= 60


@pytest.mark.parametrize("name", NAMES)
def test_langgraph_matches_spec(name: str, record: Recorder) -> None:
    check_expectations(CORE[name], record(CORE[name], "langgraph"))


@pytest.mark.parametrize("name", NAMES)
def test_same_as_langgraph(name: str, record: Recorder, engine: Engine) -> None:
    expected = record(CORE[name], "langgraph")
    got = run_program(CORE[name], engine)
    report = diff(expected, got, ("langgraph", engine))
    assert not report, "\n" + report
