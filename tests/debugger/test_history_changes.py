"""Who last wrote each channel, read from the history entries (no snapshot loaded).

A reopened session (or a ``goto``) shows each channel's last writer: the entries of the
history say what made each snapshot, and folding them along the branch must give what the
snapshots themselves say (``changes_from_history``), on both engines, for steps with several
writers, ``Send`` tasks, edits and forks.
"""

from __future__ import annotations

from typing import Any

import pytest

from sgdebug.debugger import HistoryEntry, Session
from sgdebug.debugger.history import last_changes
from sgdebug.inspect import LastChange, changes_from_history
from sgdebug.inspect.channels import UPDATE_WRITER
from sgdebug.runtime import StateSnapshot

from .engine_scenarios import on_both, run, sample

SCRIPTS = {
    "fanout": ("step 3",),  # a, b and c write the same reducer channel in one step
    "map_reduce": ("step 3",),  # Send tasks
    "loop": ("step 2", "set count = 7", "step"),  # an edit, then a step after it
}


def by_channel(changes: tuple[LastChange, ...]) -> dict[str, tuple[int, tuple[str, ...]]]:
    return {c.channel: (c.step, c.writers) for c in changes}


def from_snapshots(session: Session) -> tuple[LastChange, ...]:
    """The last changes read from every snapshot on the path to the current one."""
    entries: tuple[HistoryEntry, ...] = session.history().value
    current = next(e for e in entries if e.current)
    path = [current]
    while path[-1].parent_index is not None:
        path.append(entries[path[-1].parent_index])
    snapshots = []
    for entry in reversed(path):
        shown = session.show(str(entry.index)).value
        assert isinstance(shown, StateSnapshot)
        snapshots.append(shown)
    return changes_from_history(snapshots)


def started(name: str, engine: Any, *lines: str) -> Session:
    session = sample(name, engine)
    run(session, "restart", *lines)
    return session


@on_both
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_entries_give_the_last_writers_the_snapshots_give(name: str, engine: Any) -> None:
    session = started(name, engine, *SCRIPTS[name])
    from_entries = by_channel(last_changes(session.history().value))
    assert from_entries == by_channel(from_snapshots(session))
    assert from_entries  # something was written


@on_both
def test_after_goto_the_last_writers_are_those_of_the_old_snapshot(engine: Any) -> None:
    session = started("loop", engine, "step 3")
    run(session, "goto 2", "set count = 5", "step")  # a second branch from snapshot 2
    run(session, "goto 3")  # back on the first branch
    assert by_channel(last_changes(session.history().value)) == by_channel(from_snapshots(session))


def test_a_loop_snapshot_names_what_each_node_wrote() -> None:
    session = started("fanout", "native", "step 3")
    entries = session.history().value
    assert [e.changes for e in entries] == [
        (),  # the input snapshot
        (("trail", ("__start__",)),),
        (("trail", ("b", "c")),),  # two writers of one reducer channel, in plan order
        (("trail", ("b_2",)),),
    ]


@on_both
def test_an_edit_names_the_key_it_changed(engine: Any) -> None:
    session = started("loop", engine, "step 2", "set count = 7")
    edit = session.history().value[-1]
    assert edit.source == "update"
    assert dict(edit.changes) == {"count": (UPDATE_WRITER,)}
