"""What a saver written LangGraph's way is handed for one store, as LangGraph hands it.

A run records a checkpoint as a :class:`CheckpointRecord` with its new blobs and a task's
writes as :class:`PendingWrite` tuples. A saver that stores LangGraph's way (its own
``put``/``put_writes``, or ``aput``/``aput_writes``: ``persist._sync_face``,
``persist._async_face``) receives what LangGraph's loop gives: a config naming the thread,
namespace and parent checkpoint (with the run's own ``configurable`` keys), the checkpoint
as LangGraph's dict (its channels in the graph's order; ``updated_channels``, the channels
the last step updated, ``None`` for an update or a fork), the metadata's ``source``,
``step`` and ``parents``, and ``new_versions``, the channels whose version moved since the
checkpoint it follows. The dict and the writes also carry what sgdebug stores
(:class:`OfferedCheckpoint`, :class:`OfferedWrites`), so the base methods a saver's
override calls file them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sgdebug.runtime.checkpoint._async_writes import (
    OfferedCheckpoint,
    OfferedWrites,
    config_for,
    task_path_text,
)
from sgdebug.runtime.checkpoint._load import as_langgraph_reads, load_value
from sgdebug.runtime.checkpoint._tuples import CHECKPOINT_VERSION
from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    TaskWrites,
    task_id,
)

__all__ = ["Offer", "WritesOffer", "checkpoint_offer", "task_batches", "writes_offers"]

_RESERVED = frozenset({"checkpoint_ns", "checkpoint_id", "checkpoint_map", "thread_id"})

Offer = tuple[dict[str, Any], OfferedCheckpoint, dict[str, Any], dict[str, Any]]
"""The arguments of ``put``/``aput``: config, checkpoint, metadata, new versions."""
WritesOffer = tuple[dict[str, Any], OfferedWrites, str, str]
"""The arguments of ``put_writes``/``aput_writes``: config, writes, task id, task path."""


def store_config(
    key: str, checkpoint_id: str | None, configurable: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The config a store names ``checkpoint_id`` of the saver key ``key`` with: as
    LangGraph's, with the run's own ``configurable`` keys too (not its internal ones)."""
    config = config_for(key, checkpoint_id)
    if configurable:
        ids = config["configurable"]
        mine = {k: v for k, v in configurable.items() if k not in _RESERVED and k[:2] != "__"}
        config["configurable"] = {"checkpoint_ns": ids.pop("checkpoint_ns"), **ids, **mine}
        if checkpoint_id is not None:  # (last, as LangGraph adds it)
            config["configurable"]["checkpoint_id"] = ids["checkpoint_id"]
    return config


def checkpoint_offer(
    saver: BaseCheckpointSaver,
    record: CheckpointRecord,
    blobs: Mapping[str, Blob],
    previous: CheckpointRecord | None,
    run: tuple[Iterable[str], Mapping[str, Any] | None],
) -> Offer:
    """What ``put``/``aput`` gets for ``record`` (its values read back through ``saver``),
    ``previous`` being the checkpoint it follows; ``run``: the graph's channels in order
    and the run's ``configurable``."""
    channels, configurable = run
    before = {} if previous is None else previous.versions
    new_versions = {k: v for k, v in record.versions.items() if before.get(k) != v}
    view = _view(saver, record, new_versions, channels)
    metadata = {
        "source": record.source,
        "step": record.step,
        "parents": record.user_metadata.get("parents") or {},
    }
    config = store_config(record.thread_id, record.parent_id, configurable)
    return config, OfferedCheckpoint(view, record, blobs), metadata, new_versions


def task_batches(
    saver: BaseCheckpointSaver, record: CheckpointRecord, writes: Sequence[TaskWrites]
) -> list[PendingWrite]:
    """The writes handed with ``record`` (recorded against its parent), as pending writes
    with their values decoded."""
    parent = record.parent_id
    out: list[PendingWrite] = []
    for batch in writes:
        assert parent is not None, "task writes belong to the parent checkpoint"
        made = task_id(parent, batch.path)
        out += [
            PendingWrite(made, batch.task_name, batch.path, k, saver.decode(v))
            for k, v in batch.writes
        ]
    return out


def writes_offers(
    key: str,
    checkpoint_id: str,
    writes: Sequence[PendingWrite],
    configurable: Mapping[str, Any] | None,
) -> list[WritesOffer]:
    """What ``put_writes``/``aput_writes`` gets for ``writes``: one call per task, as
    LangGraph's."""
    by_task: dict[str, list[PendingWrite]] = {}
    for write in writes:
        by_task.setdefault(write.task_id, []).append(write)
    offers: list[WritesOffer] = []
    for made, own in by_task.items():
        first = own[0]
        offered = OfferedWrites([(w.channel, w.value) for w in own], first.task_name, first.path)
        config = store_config(key, checkpoint_id, configurable)
        offers.append((config, offered, made, task_path_text(first.path)))
    return offers


def _view(
    saver: BaseCheckpointSaver,
    record: CheckpointRecord,
    new_versions: Mapping[str, int],
    channels: Iterable[str],
) -> dict[str, Any]:
    """``record`` as a LangGraph checkpoint dict (its values read back through ``saver``)."""
    versions, blobs = record.versions, record.blobs
    order = [k for k in channels if k in blobs and k in versions]
    order += [k for k in versions if k in blobs and k not in order]
    values = {  # (in the graph's channel order, as LangGraph's)
        k: as_langgraph_reads(load_value(saver, record.thread_id, blobs[k])[0]) for k in order
    }
    return {
        "v": CHECKPOINT_VERSION,
        "id": record.id,
        "ts": record.created_at,
        "channel_values": values,
        "channel_versions": dict(versions),
        "versions_seen": {k: dict(v) for k, v in record.versions_seen.items()},
        "updated_channels": _updated(record),
    }


def _updated(record: CheckpointRecord) -> list[str] | None:
    """The channels the step that made ``record`` updated, as LangGraph's checkpoint dict
    lists them: those of the highest version (a step gives every channel it moves the next
    version) that hold a value (a consumed trigger moved but is empty); ``None`` for an
    update or a fork, as LangGraph's."""
    if record.source in ("update", "fork") or not record.versions:
        return None
    top = max(record.versions.values())
    return sorted(k for k, v in record.versions.items() if v == top and k in record.blobs)
