"""The native engine's history: every snapshot of a thread as a :class:`HistoryEntry`.

Two reads of the checkpointer, whatever the length of the history: where each checkpoint
stands (:meth:`~sgdebug.runtime.checkpoint.BaseCheckpointSaver.list_record_info`) and who wrote what
against each (:meth:`~sgdebug.runtime.checkpoint.BaseCheckpointSaver.list_write_info`); no value is
decoded. What made each snapshot (its ``changes``) comes from those: a ``loop`` snapshot's
from the writes of its parent's tasks; an ``update``'s (an edit: rare) from the versions
that differ from its parent's, the two records read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from sgdebug.debugger.results import HistoryEntry
from sgdebug.inspect.channels import UPDATE_WRITER
from sgdebug.runtime import CompiledStateGraph
from sgdebug.runtime.checkpoint import BaseCheckpointSaver, WriteInfo

__all__ = ["history", "stored_versions", "tasks_done", "update_changes"]

SPECIAL = frozenset(("__error__", "__interrupt__", "__resume__", "__no_writes__"))
"""Pending writes that are not channel writes."""
NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""The task id of a resuming ``Command``'s writes (they belong to no task)."""
_PUSH = "__pregel_push"
_PULL = "__pregel_pull"

Changes = tuple[tuple[str, tuple[str, ...]], ...]


def history(
    graph: CompiledStateGraph, thread_id: str, current: str | None
) -> tuple[HistoryEntry, ...]:
    """Every snapshot of the thread, oldest first (``current`` marked)."""
    saver = graph.checkpointer
    records = list(saver.list_record_info(thread_id))[::-1]
    done = tasks_done(saver.list_write_info(thread_id), graph)
    index = {r.id: i for i, r in enumerate(records)}
    parents = {r.parent_id for r in records}
    entries = []
    for i, record in enumerate(records):
        parent = record.parent_id
        ran: tuple[str, ...] = ()
        changes: Changes = ()
        if record.source == "loop" and parent in done:
            ran, changes = done[parent]
        elif record.source == "update" and parent is not None:
            changes = update_changes(saver, thread_id, (parent, record.id), graph.state_keys)
        entries.append(
            HistoryEntry(
                index=i,
                checkpoint_id=record.id,
                parent_index=index.get(parent) if parent else None,
                step=record.step,
                source=record.source,
                created_at=record.created_at,
                ran=ran,
                current=record.id == current,
                head=record.id not in parents,
                changes=changes,
            )
        )
    return tuple(entries)


def stored_versions(
    saver: BaseCheckpointSaver, thread_id: str | None, checkpoint_id: str | None
) -> Mapping[str, int] | None:
    """The channel versions stored with a checkpoint (the channel table's ``ver`` at a
    snapshot the session went back to); ``None`` when there is none."""
    if thread_id is None or checkpoint_id is None:
        return None
    record = saver.get_record(thread_id, checkpoint_id)
    return record.versions if record is not None else None


def tasks_done(
    writes: Iterable[WriteInfo], graph: CompiledStateGraph
) -> dict[str, tuple[tuple[str, ...], Changes]]:
    """Per checkpoint with writes: the tasks that wrote (in the order the writes are
    listed), and the state keys written with their writers in plan order (``Send`` tasks
    first, then nodes in ``add_node`` order), as the checkpoint's snapshot lists its
    tasks' results: what its ``loop`` children show."""
    by_task: dict[str, dict[str, list[WriteInfo]]] = {}
    for w in writes:
        by_task.setdefault(w.checkpoint_id, {}).setdefault(w.task_id, []).append(w)
    keys = graph.state_keys
    order = {name: i for i, name in enumerate(graph.builder.nodes)}
    done = {}
    for checkpoint, tasks in by_task.items():
        ran = [
            ws[0].task_name for ws in tasks.values() if any(w.channel not in SPECIAL for w in ws)
        ]
        planned = tasks.values() if len(tasks) == 1 else sorted(
            tasks.values(), key=lambda ws: _plan(ws[0].path, order)
        )  # fmt: skip
        writers: dict[str, list[str]] = {}
        for ws in planned:
            for w in ws:
                if w.channel in keys and w.task_id != NULL_TASK:
                    writers.setdefault(w.channel, []).append(w.task_name)
        changes = tuple((k, tuple(dict.fromkeys(names))) for k, names in writers.items())
        done[checkpoint] = (tuple(dict.fromkeys(ran)), changes)
    return done


def update_changes(
    saver: BaseCheckpointSaver, thread_id: str, ids: tuple[str, str], keys: AbstractSet[str]
) -> Changes:
    """The state keys an edit changed: those whose version differs from the parent's
    (``ids``: the parent's checkpoint and the edit's)."""
    parent, record = (saver.get_record(thread_id, i) for i in ids)
    if parent is None or record is None:
        return ()
    old, new = parent.versions, record.versions
    changed = [k for k in new if k in keys and new[k] != old.get(k)]
    changed += [k for k in old if k in keys and k not in new]
    return tuple((key, (UPDATE_WRITER,)) for key in changed)


def _plan(path: tuple[Any, ...], order: Mapping[str, int]) -> tuple[int, int]:
    """Where a task of ``path`` stands in its superstep's plan."""
    kind = path[0] if path else None
    where = path[1] if len(path) > 1 else None
    if kind == _PUSH:
        return 0, where if isinstance(where, int) else 0
    if kind == _PULL and isinstance(where, str):
        return 1, order.get(where, len(order))
    return 2, 0
