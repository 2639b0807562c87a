"""A saver's checkpoints as LangGraph's checkpointer API shows them: ``get_tuple`` and
``list`` (and their async twins), over the records a saver keeps.

A :class:`CheckpointTuple` has LangGraph's shape: the config naming the checkpoint, the
checkpoint itself as a dict (``v``, ``id``, ``ts``, ``channel_values``, ``channel_versions``,
``versions_seen``, ``updated_channels``), its metadata, its parent's config and the writes
pending on it as ``(task_id, channel, value)``. Channel versions are sgdebug's own
(integers), not LangGraph's version strings. A config naming a ``checkpoint_ns`` reads
that namespace's checkpoints (``""`` the root graph's); one naming none lists the root's
and then every subgraph's, as LangGraph's in-memory saver does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from sgdebug.runtime.checkpoint._keys import split_thread_key, thread_key
from sgdebug.runtime.checkpoint._load import as_langgraph_reads, load_value
from sgdebug.runtime.checkpoint._offered import OfferedCheckpoint
from sgdebug.runtime.checkpoint._slots import task_path_text, write_slots

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import (
        BaseCheckpointSaver,
        CheckpointRecord,
        PendingWrite,
    )

__all__ = [
    "CheckpointTuple",
    "aget_tuple",
    "alist_tuples",
    "get_tuple",
    "list_tuples",
    "select_records",
]

CHECKPOINT_VERSION = 4
"""The ``v`` of the checkpoint dicts (LangGraph 1.2's checkpoint format number)."""


class CheckpointTuple(NamedTuple):
    """One stored checkpoint with its config, metadata, parent and pending writes."""

    config: dict[str, Any]
    checkpoint: dict[str, Any]
    metadata: dict[str, Any]
    parent_config: dict[str, Any] | None = None
    pending_writes: list[tuple[str, str, Any]] | None = None


def _configurable(config: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return (config or {}).get("configurable") or {}


def _config(key: str, checkpoint_id: str) -> dict[str, Any]:
    thread_id, ns = split_thread_key(key)
    ids = {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}
    return {"configurable": ids}


def _tuple(saver: BaseCheckpointSaver, record: CheckpointRecord) -> CheckpointTuple:
    thread_id = record.thread_id
    versions = record.versions  # a channel never written (an empty list's []) is left out
    values = {
        key: as_langgraph_reads(load_value(saver, thread_id, blob_id)[0])
        for key, blob_id in record.blobs.items()
        if key in versions
    }
    checkpoint = {
        "v": CHECKPOINT_VERSION,
        "id": record.id,
        "ts": record.created_at,
        "channel_values": values,
        "channel_versions": dict(record.versions),
        "versions_seen": {k: dict(v) for k, v in record.versions_seen.items()},
        "updated_channels": None,
    }
    pending = langgraph_order(saver.get_writes(thread_id, record.id))
    writes = [(w.task_id, w.channel, w.value) for w in pending]
    parent = None if record.parent_id is None else _config(thread_id, record.parent_id)
    # (the dict carries its record: a run reading through a saver's own get_tuple uses it)
    offered = OfferedCheckpoint(checkpoint, record, {})
    return CheckpointTuple(_config(thread_id, record.id), offered, record.metadata, parent, writes)


def langgraph_order(writes: Sequence[PendingWrite]) -> list[PendingWrite]:
    """A checkpoint's pending writes (each task's together, in its order) as LangGraph's
    savers list them: by the path each was written at (as text: a resuming ``Command``'s,
    ``""``, first; an ``update_state``'s, ``"~__interrupt__, 0000000000"``, before pulled
    tasks'), then task id, then slot (a task's ``__resume__``, ``__interrupt__``,
    ``__error__``, then its channel writes)."""
    by_task: dict[str, list[PendingWrite]] = {}
    for write in writes:
        by_task.setdefault(write.task_id, []).append(write)
    slotted: list[tuple[str, str, int, PendingWrite]] = []
    for task in by_task.values():
        slotted += ((task_path_text(w.path), w.task_id, slot, w) for slot, w in write_slots(task))
    slotted.sort(key=lambda item: item[:3])
    return [item[3] for item in slotted]


def _keys(saver: BaseCheckpointSaver, configurable: Mapping[str, Any]) -> list[str]:
    """The saver's keys ``configurable`` reads: its namespace of its thread, or (naming no
    namespace) the thread's root and then its subgraphs'; every thread's without one."""
    thread_id = configurable.get("thread_id")
    ns = configurable.get("checkpoint_ns")
    if thread_id is not None and ns is not None:
        return [thread_key(str(thread_id), str(ns))]
    threads = [str(thread_id)] if thread_id is not None else saver.threads()
    return [thread_key(t, n) for t in threads for n in ("", *saver.namespaces(t))]


def get_tuple(saver: BaseCheckpointSaver, config: Mapping[str, Any]) -> CheckpointTuple | None:
    """The checkpoint ``config`` names (its thread's latest without a ``checkpoint_id``), or
    ``None`` when there is none."""
    configurable = _configurable(config)
    thread_id = configurable.get("thread_id")
    if thread_id is None:
        return None
    key = thread_key(str(thread_id), str(configurable.get("checkpoint_ns") or ""))
    record = saver.get_record(key, configurable.get("checkpoint_id"))
    return None if record is None else _tuple(saver, record)


def list_tuples(
    saver: BaseCheckpointSaver,
    config: Mapping[str, Any] | None,
    *,
    filter: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> Iterator[CheckpointTuple]:
    """The checkpoints of ``config``'s thread (every thread's when it names none), newest
    first in each namespace (see :func:`_keys`): those whose metadata has every item of
    ``filter``, older than ``before``, at most ``limit`` of them."""
    configurable = _configurable(config)
    records = (r for key in _keys(saver, configurable) for r in saver.list_records(key))
    only, before_id = configurable.get("checkpoint_id"), _configurable(before).get("checkpoint_id")
    for record in select_records(records, only, before_id, filter, limit):
        yield _tuple(saver, record)


def select_records(
    records: Iterable[CheckpointRecord],
    only: str | None,
    before_id: str | None,
    filter: Mapping[str, Any] | None,
    limit: int | None,
) -> Iterator[CheckpointRecord]:
    """The records of ``records`` (newest first) that a checkpoint listing keeps: the one
    named ``only`` (if given), those older than ``before_id``, those whose metadata has
    every item of ``filter``; at most ``limit`` of them."""
    count = 0
    for record in records:
        if only is not None and record.id != only:
            continue
        if before_id is not None and record.id >= before_id:
            continue
        metadata = record.metadata
        if filter and any(metadata.get(k) != v for k, v in filter.items()):
            continue
        if limit is not None and count >= limit:
            return
        count += 1
        yield record


async def aget_tuple(
    saver: BaseCheckpointSaver, config: Mapping[str, Any]
) -> CheckpointTuple | None:
    """Async :func:`get_tuple`."""
    return get_tuple(saver, config)


async def alist_tuples(
    saver: BaseCheckpointSaver,
    config: Mapping[str, Any] | None,
    *,
    filter: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> AsyncIterator[CheckpointTuple]:
    """Async :func:`list_tuples`."""
    for item in list_tuples(saver, config, filter=filter, before=before, limit=limit):
        yield item
