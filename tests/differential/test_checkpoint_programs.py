"""Checkpoint/interrupt programs (issue 3): the same records on sgdebug as on LangGraph.

``test_langgraph_matches_spec`` checks the corpus itself: LangGraph's record shows what each
program's ``spec`` says (taken from LANGGRAPH_SEMANTICS.md section 5 where the document says
it). ``test_same_as_langgraph`` runs every program on sgdebug twice, once with sgdebug's
``InMemorySaver`` and once with its ``SqliteSaver`` (a fresh database file per graph), and
compares each record with LangGraph's run on LangGraph's ``InMemorySaver``; each of those
runs both without a hook (``plain``) and with a pause hook pausing everywhere (``hooked``).

Programs in ``KNOWN_MISMATCHES`` show a known difference of sgdebug.runtime; their
differential tests are strict xfails, so they fail loudly once the runtime is fixed (then
delete the entry). Each reason names what LangGraph 1.2.22 does and sgdebug does not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sgdebug.sample_graphs._engines import Engine

from .conftest import PATHS, Recorder, RunPath, compare
from .harness import CHECKPOINT, check_expectations, diff, run_program
from .programs import (  # noqa: F401 - registers the programs
    checkpoint,
    checkpoint_async,
    checkpoint_async_savers,
    checkpoint_async_saves,
    checkpoint_bulk,
    checkpoint_cache,
    checkpoint_called_subgraphs,
    checkpoint_durability,
    checkpoint_failures,
    checkpoint_history,
    checkpoint_interrupts,
    checkpoint_policies,
    checkpoint_response,
    checkpoint_store,
    checkpoint_stream_close,
    checkpoint_stream_out,
    checkpoint_subgraph_armed,
    checkpoint_subgraph_steps,
    checkpoint_subgraph_stops,
    checkpoint_subgraph_streams,
    checkpoint_subgraphs,
    checkpoint_sync_savers,
    checkpoint_timeouts,
    checkpoint_tuples,
    checkpoint_update,
)

NAMES = list(CHECKPOINT)
SAVERS = ("memory", "sqlite")

KNOWN_MISMATCHES: dict[str, str] = {}
"""Program -> what sgdebug.runtime gets wrong in it (see the module docstring)."""


def test_corpus_size() -> None:
    assert len(CHECKPOINT) >= 40
    assert set(KNOWN_MISMATCHES) <= set(CHECKPOINT)


@pytest.mark.parametrize("name", NAMES)
def test_langgraph_matches_spec(name: str, record: Recorder) -> None:
    check_expectations(CHECKPOINT[name], record(CHECKPOINT[name], "langgraph"))


@pytest.fixture
def saver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any] | None]:
    """The sgdebug saver factory of this run (``None``: the engine's own InMemorySaver)."""
    if request.param == "memory":
        yield None
        return
    from sgdebug.runtime.checkpoint import SqliteSaver

    opened: list[Any] = []

    def make() -> Any:
        opened.append(SqliteSaver.from_path(tmp_path / f"{len(opened)}.db"))
        return opened[-1]

    yield make
    for db in opened:
        db.close()


@pytest.mark.parametrize("path", PATHS, indirect=True)
@pytest.mark.parametrize("saver", SAVERS, indirect=True)
@pytest.mark.parametrize("name", NAMES)
def test_same_as_langgraph(
    name: str,
    saver: Callable[[], Any] | None,
    path: RunPath,
    record: Recorder,
    engine: Engine,
    request: pytest.FixtureRequest,
) -> None:
    if engine == "langgraph" and saver is not None:
        pytest.skip("SqliteSaver is sgdebug's")
    if engine == "langgraph" and path == "hooked":
        pytest.skip("pause hooks are sgdebug's")
    if engine == "sgdebug" and name in KNOWN_MISMATCHES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_MISMATCHES[name], strict=True))
    report = compare(
        CHECKPOINT[name],
        record(CHECKPOINT[name], "langgraph"),
        lambda: run_program(CHECKPOINT[name], engine, saver),
        lambda expected, got: diff(expected, got, ("langgraph", engine)),
    )
    assert not report, "\n" + report
