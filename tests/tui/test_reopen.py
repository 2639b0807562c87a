"""Reopening a session file: the first frame shows what the live session showed, and
building it reads the file a fixed number of times however long the history is."""

from __future__ import annotations

import collections
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sgdebug.debugger import Session, SessionOptions, Target, run_line
from sgdebug.debugger.frame import Frame, FrameBuilder
from sgdebug.debugger.session_file import SessionFile, SessionRecord
from sgdebug.sample_graphs import load

READS = (
    "get_record", "list_records", "get_blob", "get_writes", "decode",
    "list_record_info", "list_write_info",
)  # fmt: skip
"""The saver's ways to read the file."""


def loop_session(store: SessionFile) -> Session:
    module = load("loop")
    graph = module.build(iterations=1_000).compile()
    options = SessionOptions(recursion_limit=10_000)
    target = Target(graph, vars(module), "loop")
    return Session(target, input=module.EXAMPLE_INPUT, saver=store.saver, store=store,
                   options=options)  # fmt: skip


def recorded(path: Path, *lines: str) -> Frame:
    """Run ``lines`` in a new session file at ``path``; the live session's last frame."""
    store = SessionFile.open(path)
    store.save(SessionRecord("loop:graph", str(path.parent), {"count": 0}))
    session = loop_session(store)
    builder = FrameBuilder(session)
    session.restart()
    for line in lines:
        outcome = run_line(session, line)
        assert outcome is not None and outcome.ok, line
    frame = builder.build()
    store.close()
    return frame


def reopened(path: Path, counts: collections.Counter[str] | None = None) -> Frame:
    """The first frame of the session file at ``path`` reopened (reads counted)."""
    store = SessionFile.open(path)
    if counts is not None:
        for name in READS:
            setattr(store.saver, name, _counted(getattr(store.saver, name), name, counts))
    session = loop_session(store)
    record = store.record
    assert record is not None and record.thread_id is not None
    assert session.attach(record.thread_id, input=record.input).ok
    frame = FrameBuilder(session).build()
    store.close()
    return frame


def _counted(method: Callable[..., Any], name: str, counts: collections.Counter[str]) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        counts[name] += 1
        return method(*args, **kwargs)

    return call


def writers(frame: Frame) -> dict[str, tuple[int | None, tuple[str, ...]]]:
    return {row.name: (row.last_step, row.writers) for row in frame.channels}


@pytest.mark.parametrize(
    "lines", [("step 4",), ("step 2", "set count = 7"), ("step 2", "set count = 7", "step 1")]
)
def test_a_reopened_session_shows_the_last_writers_the_live_one_showed(
    tmp_path: Path, lines: tuple[str, ...]
) -> None:
    path = tmp_path / "session.db"
    live = recorded(path, *lines)
    again = reopened(path)
    assert writers(again) == writers(live)
    assert again.view.snapshot_index == live.view.snapshot_index
    assert [e.checkpoint_id for e in again.entries] == [e.checkpoint_id for e in live.entries]


def test_reopening_reads_the_file_as_often_for_a_long_history_as_for_a_short_one(
    tmp_path: Path,
) -> None:
    counts = {}
    for steps in (3, 60):
        path = tmp_path / f"{steps}.db"
        recorded(path, f"step {steps}")
        found: collections.Counter[str] = collections.Counter()
        frame = reopened(path, found)
        assert len(frame.entries) == steps + 1
        counts[steps] = found
    assert counts[3] == counts[60]
    # The current snapshot's and its parent's (the diff of the step that made it): never
    # one per snapshot.
    assert counts[3]["get_writes"] <= 4
