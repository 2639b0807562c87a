"""The session thread's snapshots: numbering, lookup and their tree (engines list them).

Snapshots are numbered in creation order (0 is the input snapshot), which never changes as
the history grows; ``goto``, ``diff`` and ``show`` take that number or a checkpoint id (or a
unique part of one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sgdebug.debugger.results import HistoryEntry
from sgdebug.inspect import HistoryTree, LastChange, SnapshotLink, link_tree

__all__ = ["SnapshotError", "config_for", "entry_tree", "last_changes", "resolve"]


class SnapshotError(LookupError):
    """A snapshot reference that names no snapshot (or several)."""


def config_for(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    """The runnable config of a thread (and a checkpoint of it)."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id is not None:
        configurable["checkpoint_ns"] = ""
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def resolve(entries: Sequence[HistoryEntry], ref: str) -> HistoryEntry:
    """The snapshot ``ref`` names: its number, its checkpoint id, or a unique part of the id."""
    text = ref.strip()
    if not entries:
        raise SnapshotError("there are no snapshots yet: start a run first")
    if text.lstrip("-").isdigit():
        number = int(text)
        if number < 0:
            number += len(entries)
        if 0 <= number < len(entries):
            return entries[number]
        raise SnapshotError(
            f"no snapshot {text}: snapshots are numbered 0 to {len(entries) - 1} (see `history`)"
        )
    exact = [e for e in entries if e.checkpoint_id == text]
    if exact:
        return exact[0]
    found = [e for e in entries if len(text) >= 4 and text in e.checkpoint_id]
    if len(found) == 1:
        return found[0]
    if found:
        numbers = ", ".join(str(e.index) for e in found[:8])
        raise SnapshotError(f"{text!r} matches several snapshots ({numbers}); use its number")
    raise SnapshotError(f"no snapshot {text!r}: give a number from `history` or a checkpoint id")


def last_changes(entries: Sequence[HistoryEntry]) -> tuple[LastChange, ...]:
    """The last change of each state key along the branch from the root to the current
    snapshot (none when no entry is current), folded from the entries' ``changes``."""
    current = next((e for e in reversed(entries) if e.current), None)
    path: list[HistoryEntry] = []
    while current is not None:
        path.append(current)
        parent = current.parent_index
        # A parent is older than its child: a damaged file's loop ends the walk.
        current = entries[parent] if parent is not None and parent < current.index else None
    last: dict[str, LastChange] = {}
    for entry in reversed(path):
        for key, writers in entry.changes:
            last[key] = LastChange(key, entry.step, writers)
    return tuple(last.values())


def entry_tree(entries: Sequence[HistoryEntry], cursor: str | None) -> HistoryTree:
    """The tree of ``entries``, laid out by ``inspect``, without loading any snapshot (the
    TUI's history and the REPL's ``history`` draw it, however long the history)."""
    by_index = {e.index: e for e in entries}
    links = []
    for entry in entries:
        parent = by_index.get(entry.parent_index) if entry.parent_index is not None else None
        links.append(
            SnapshotLink(
                entry.checkpoint_id,
                parent.checkpoint_id if parent is not None else None,
                entry.step,
                entry.source,
                entry.created_at,
                entry.ran,
            )
        )
    return link_tree(links, cursor)
