"""The session thread's snapshots: numbering, lookup, previews of a position, diffs.

Snapshots are numbered in creation order (0 is the input snapshot), which never changes as
the history grows; ``goto``, ``diff`` and ``show`` take that number or a checkpoint id (or a
unique part of one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sgdebug.debugger.results import HistoryEntry, TaskInfo, ValueChange
from sgdebug.debugger.runinfo import pregel_task_info
from sgdebug.runtime import CompiledStateGraph, Interrupt, StateSnapshot

__all__ = [
    "Preview",
    "SnapshotError",
    "config_for",
    "diff_values",
    "list_history",
    "preview",
    "resolve",
    "snapshot_index",
]

_SPECIAL = ("__error__", "__interrupt__", "__resume__", "__no_writes__")


class SnapshotError(LookupError):
    """A snapshot reference that names no snapshot (or several)."""


def config_for(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    """The runnable config of a thread (and a checkpoint of it)."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id is not None:
        configurable["checkpoint_ns"] = ""
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def list_history(
    graph: CompiledStateGraph, thread_id: str, current: str | None
) -> tuple[HistoryEntry, ...]:
    """Every snapshot of the thread, oldest first."""
    saver = graph.checkpointer
    records = list(saver.list_records(thread_id))[::-1]
    index = {r.id: i for i, r in enumerate(records)}
    parents = {r.parent_id for r in records}
    entries = []
    for i, record in enumerate(records):
        ran: tuple[str, ...] = ()
        if record.source == "loop" and record.parent_id is not None:
            writes = saver.get_writes(thread_id, record.parent_id)
            found = [w.task_name for w in writes if w.channel not in _SPECIAL]
            ran = tuple(dict.fromkeys(found))
        entries.append(
            HistoryEntry(
                index=i,
                checkpoint_id=record.id,
                parent_index=index.get(record.parent_id) if record.parent_id else None,
                step=record.step,
                source=record.source,
                created_at=record.created_at,
                ran=ran,
                current=record.id == current,
                head=record.id not in parents,
            )
        )
    return tuple(entries)


def snapshot_index(graph: CompiledStateGraph, thread_id: str, checkpoint_id: str) -> int | None:
    """The number of a snapshot (its position in creation order)."""
    ids = [r.id for r in graph.checkpointer.list_records(thread_id)]
    try:
        return len(ids) - 1 - ids.index(checkpoint_id)
    except ValueError:
        return None


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


@dataclass(frozen=True, slots=True)
class Preview:
    """A position read back from the checkpointer (no live run)."""

    snapshot: StateSnapshot
    step: int
    tasks: tuple[TaskInfo, ...]
    interrupts: tuple[Interrupt, ...]


def preview(
    graph: CompiledStateGraph, thread_id: str, checkpoint_id: str, *, latest: bool
) -> Preview:
    """The values and pending tasks of a snapshot, with each task's input."""
    config = config_for(thread_id, None if latest else checkpoint_id)
    snapshot = graph.get_state(config)
    inputs = _planned_inputs(graph, thread_id, checkpoint_id)
    tasks = tuple(
        pregel_task_info(t, *inputs.get(t.id, (None, ())), latest=latest) for t in snapshot.tasks
    )
    metadata = snapshot.metadata or {}
    step = int(metadata.get("step", -1)) + 1
    interrupts = tuple(snapshot.interrupts) if latest else ()
    return Preview(snapshot, step, tasks, interrupts)


def _planned_inputs(
    graph: CompiledStateGraph, thread_id: str, checkpoint_id: str
) -> dict[str, tuple[Any, tuple[str, ...]]]:
    """Task id -> (input, triggers), by planning the step that follows the checkpoint."""
    try:
        from sgdebug.runtime._persist import Persistence
        from sgdebug.runtime._run import Run, RunOptions

        saver = graph.checkpointer
        record = saver.get_record(thread_id, checkpoint_id)
        if record is None:
            return {}
        persist = Persistence(saver, thread_id)
        run = Run(graph, RunOptions({}, 10007))
        run.restore(persist, persist.load(record))
        return {t.id: (t.input, tuple(t.triggers)) for t in run.next_tasks()}
    except Exception:  # a preview is a nicety: never fail a view on it
        return {}


def diff_values(old: Any, new: Any) -> tuple[ValueChange, ...]:
    """Key by key, what differs between two states (dicts; other values as one ``value``)."""
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        if old == new:
            return ()
        return (ValueChange("value", "changed", old, new),)
    changes = []
    for key in dict.fromkeys([*new, *old]):
        if key not in new:
            changes.append(ValueChange(str(key), "removed", old[key], None))
        elif key not in old:
            changes.append(ValueChange(str(key), "added", None, new[key]))
        elif not _same(old[key], new[key]):
            changes.append(ValueChange(str(key), "changed", old[key], new[key]))
    return tuple(changes)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return a is b
