"""Helpers shared by the debugger tests: sample sessions and command outcomes."""

from __future__ import annotations

from typing import Any

from sgdebug.debugger import Outcome, Session, Target, run_line
from sgdebug.sample_graphs import load


def sample_session(name: str, *, extra: dict[str, Any] | None = None, **kwargs: Any) -> Session:
    """A session on sample ``name`` with its example input (not started yet)."""
    module = load(name)
    namespace = {**vars(module), **(extra or {})}
    return Session(Target(module.graph, namespace, name), input=module.EXAMPLE_INPUT, **kwargs)


def ok(session: Session, line: str) -> Outcome:
    """Run ``line``; it must succeed."""
    outcome = run_line(session, line)
    assert outcome is not None
    assert outcome.ok, outcome.message
    return outcome


def refused(session: Session, line: str) -> Outcome:
    """Run ``line``; the session must refuse it."""
    outcome = run_line(session, line)
    assert outcome is not None
    assert not outcome.ok, f"{line!r} should have been refused"
    return outcome
