"""Checkpoint/interrupt programs (issue 3): the same records on sgdebug as on LangGraph.

The runtime core does not claim checkpoints yet, so the differential half is skipped unless
``SGDEBUG_DIFF_CHECKPOINTS=1``; the LangGraph half always runs, to keep the corpus honest.
"""

from __future__ import annotations

import os

import pytest

from sgdebug.sample_graphs._engines import Engine

from .conftest import Recorder
from .harness import CHECKPOINT, check_expectations, diff, run_program
from .programs import checkpoint  # noqa: F401 - registers the programs

NAMES = list(CHECKPOINT)
CLAIMED = os.environ.get("SGDEBUG_DIFF_CHECKPOINTS") == "1"


@pytest.mark.parametrize("name", NAMES)
def test_langgraph_matches_spec(name: str, record: Recorder) -> None:
    check_expectations(CHECKPOINT[name], record(CHECKPOINT[name], "langgraph"))


@pytest.mark.skipif(not CLAIMED, reason="issue 3 (checkpoints) not claimed yet")
@pytest.mark.parametrize("name", NAMES)
def test_same_as_langgraph(name: str, record: Recorder, engine: Engine) -> None:
    expected = record(CHECKPOINT[name], "langgraph")
    got = run_program(CHECKPOINT[name], engine)
    report = diff(expected, got, ("langgraph", engine))
    assert not report, "\n" + report
