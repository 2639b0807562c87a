"""A session file keeps how long each step's tasks ran (both engines): reopened, the
session shows the times it showed before; a file from before times were kept still opens,
and a damaged time is left out, not an error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sgdebug.cli._setup import LaunchOptions, Opened, open_session, prepare
from sgdebug.debugger.frame import FrameBuilder, StepTiming

TARGETS = {
    "native": "sgdebug.sample_graphs.loop:graph",
    "langgraph": "sgdebug.sample_graphs.loop:langgraph_graph",
}


def _open(target: str, path: Path) -> Opened:
    return open_session(prepare(LaunchOptions(target, None, session=path)))


def _times_after_a_run(target: str, path: Path) -> dict[str, StepTiming]:
    opened = _open(target, path)
    assert opened.store is not None
    try:
        builder = FrameBuilder(opened.session)
        assert opened.session.continue_().ok
        return dict(builder.build().step_times)
    finally:
        opened.store.close()


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_a_reopened_session_shows_the_step_times_it_showed(engine: str, tmp_path: Path) -> None:
    path = tmp_path / "loop.db"
    shown = _times_after_a_run(TARGETS[engine], path)

    reopened = _open(TARGETS[engine], path)
    assert reopened.store is not None
    try:
        frame = FrameBuilder(reopened.session).build()
    finally:
        reopened.store.close()

    assert len(shown) >= 4  # the three attempts and the report
    assert frame.step_times == shown
    runs = [seconds for t in shown.values() for node, seconds in t.tasks if node == "attempt"]
    total, count = frame.totals["attempt"]
    assert count == 3
    assert total == pytest.approx(sum(runs))
    assert frame.durations["attempt"] == runs[-1]


def test_a_file_without_times_and_one_with_a_damaged_time_still_open(tmp_path: Path) -> None:
    path = tmp_path / "loop.db"
    shown = _times_after_a_run(TARGETS["native"], path)
    damaged, *kept = list(shown)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE step_times SET tasks = '[[\"attempt\", -1]]' WHERE checkpoint_id = ?",
                     (damaged,))  # fmt: skip
    conn.close()

    reopened = _open(TARGETS["native"], path)
    assert reopened.store is not None
    try:
        assert list(FrameBuilder(reopened.session).build().step_times) == kept
    finally:
        reopened.store.close()

    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE step_times")  # as a file from before times were kept
    conn.close()
    old = _open(TARGETS["native"], path)
    assert old.store is not None
    try:
        assert old.started.ok
        assert FrameBuilder(old.session).build().step_times == {}
    finally:
        old.store.close()
