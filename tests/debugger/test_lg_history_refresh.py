"""The LangGraph engine keeps a thread's history up to date without reading it all again."""

from __future__ import annotations

from typing import Any

import pytest

from sgdebug.debugger import Session, Target
from sgdebug.debugger.results import HistoryEntry

from .engine_scenarios import sample
from .helpers import ok

MOVES = (
    "restart", "step", "continue", "resume 'shorter'", "goto 2", "set feedback = ['edited']",
    "step", "resume 'yes'", "goto 1", "update {'draft': 'forked'} as draft",
    "continue", "resume 'no'", "restart",
)  # fmt: skip
"""Steps, an interrupt answered, edits, a fork from an old snapshot, a new run."""


def read_afresh(session: Session) -> tuple[HistoryEntry, ...]:
    """The history as a new session on the same checkpointer reads it, at the same place."""
    engine = session.engine
    other = Session(Target(engine.graph, {}, "graph"))
    assert engine.thread_id is not None and engine.checkpoint_id is not None
    assert other.attach(engine.thread_id, engine.checkpoint_id).ok
    entries: tuple[HistoryEntry, ...] = other.history().value
    return entries


def test_after_every_move_the_history_is_what_a_fresh_read_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = sample("approval", "langgraph")
    graph = session.engine.graph
    whole_reads: list[str | None] = []
    read_all = graph.get_state_history

    def counted(config: Any, **kwargs: Any) -> Any:
        whole_reads.append(config["configurable"]["thread_id"])
        return read_all(config, **kwargs)

    monkeypatch.setattr(graph, "get_state_history", counted)
    longest = 0
    for line in MOVES:
        ok(session, line)
        shown = session.history().value
        monkeypatch.setattr(graph, "get_state_history", read_all)  # (the fresh session's)
        assert shown == read_afresh(session), f"after {line!r}"
        monkeypatch.setattr(graph, "get_state_history", counted)
        longest = max(longest, len(shown))
    assert longest > 8
    # Read whole once per thread (a long history costs LangGraph O(steps) to read).
    assert whole_reads == ["thread-1", "thread-2"]
