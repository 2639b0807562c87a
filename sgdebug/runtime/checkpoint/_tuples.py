"""A saver's checkpoints as LangGraph's checkpointer API shows them: ``get_tuple`` and
``list`` (and their async twins), over the records a saver keeps.

A :class:`CheckpointTuple` has LangGraph's shape: the config naming the checkpoint, the
checkpoint itself as a dict (``v``, ``id``, ``ts``, ``channel_values``, ``channel_versions``,
``versions_seen``, ``updated_channels``), its metadata, its parent's config and the writes
pending on it as ``(task_id, channel, value)``. Channel versions are sgdebug's own
(integers), not LangGraph's version strings. Only the root namespace (``checkpoint_ns``
``""``) is stored by sgdebug's savers today; a config naming another one finds nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from sgdebug.runtime.checkpoint._load import as_langgraph_reads, load_value

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, CheckpointRecord

__all__ = [
    "CheckpointTuple",
    "aget_tuple",
    "alist_tuples",
    "get_tuple",
    "list_tuples",
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


def _config(thread_id: str, checkpoint_id: str) -> dict[str, Any]:
    ids = {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}
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
    writes = [(w.task_id, w.channel, w.value) for w in saver.get_writes(thread_id, record.id)]
    parent = None if record.parent_id is None else _config(thread_id, record.parent_id)
    return CheckpointTuple(
        _config(thread_id, record.id), checkpoint, record.metadata, parent, writes
    )


def _root_namespace(configurable: Mapping[str, Any]) -> bool:
    return bool(configurable.get("checkpoint_ns", "") == "")


def get_tuple(saver: BaseCheckpointSaver, config: Mapping[str, Any]) -> CheckpointTuple | None:
    """The checkpoint ``config`` names (its thread's latest without a ``checkpoint_id``), or
    ``None`` when there is none."""
    configurable = _configurable(config)
    thread_id = configurable.get("thread_id")
    if thread_id is None or not _root_namespace(configurable):
        return None
    record = saver.get_record(str(thread_id), configurable.get("checkpoint_id"))
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
    first: those whose metadata has every item of ``filter``, older than ``before``, at
    most ``limit`` of them."""
    configurable = _configurable(config)
    if not _root_namespace(configurable):
        return
    thread_id = configurable.get("thread_id")
    only = configurable.get("checkpoint_id")
    before_id = _configurable(before).get("checkpoint_id")
    threads = [str(thread_id)] if thread_id is not None else saver.threads()
    count = 0
    for thread in threads:
        for record in saver.list_records(thread):
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
            yield _tuple(saver, record)


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
