"""Reading a thread through a saver's own LangGraph-style ``get_tuple`` / ``list``.

A saver written against LangGraph's API may override ``get_tuple(config)`` or
``list(config, *, filter, before, limit)`` (to log, to check, to narrow what is seen).
LangGraph reads a thread through them where a run starts, in ``get_state`` and
``update_state`` (``get_tuple``: the checkpoint the config names, the latest without an
id) and in ``get_state_history`` (``list``), so sgdebug's runtime does too, there; it
reads everything else (blobs, writes, parents) through its own record API. The tuples the
base methods return carry their record (``checkpoint`` is an ``OfferedCheckpoint``), which
is what the run uses; a tuple the saver built itself cannot be read yet and is refused by
name. On an event loop's thread a saver with its own ``aget_tuple`` / ``alist`` is read
directly instead (LangGraph would await those, which this synchronous read cannot).
A saver without those overrides is read as before, at the cost of one look at its class.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sgdebug.runtime.checkpoint._async_writes import OfferedCheckpoint, config_for
from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, CheckpointRecord

__all__ = ["listed_records", "read_record"]

_GET_TUPLE = BaseCheckpointSaver.get_tuple
_LIST = BaseCheckpointSaver.list
_AGET_TUPLE = BaseCheckpointSaver.aget_tuple
_ALIST = BaseCheckpointSaver.alist


def _own(saver: BaseCheckpointSaver, method: str, base: Any, abase: Any) -> bool:
    """Whether to read through the saver's own ``method``: it has one, and, on a thread
    running an event loop (where LangGraph would await the async twin), no async twin of
    its own (the base twin calls ``method``; an async-only saver's sync one refuses the
    loop's thread)."""
    kind = type(saver)
    if getattr(kind, method) is base:
        return False
    import asyncio

    return asyncio._get_running_loop() is None or getattr(kind, "a" + method) is abase


def read_record(
    saver: BaseCheckpointSaver, key: str, checkpoint_id: str | None, config: Mapping[str, Any]
) -> CheckpointRecord | None:
    """The checkpoint ``checkpoint_id`` of the saver key ``key`` (its latest for ``None``),
    read through the saver's own ``get_tuple`` if it has one, given the caller's
    ``config`` (naming that checkpoint), as LangGraph gives it."""
    if not _own(saver, "get_tuple", _GET_TUPLE, _AGET_TUPLE):
        return saver.get_record(key, checkpoint_id)
    found = saver.get_tuple(dict(config))
    return None if found is None else _record_of(saver, found, "get_tuple")


def listed_records(
    saver: BaseCheckpointSaver,
    key: str,
    config: Mapping[str, Any],
    selection: Mapping[str, Any],
) -> Iterator[CheckpointRecord] | None:
    """The records the saver's own ``list`` gives for ``key`` (``config``: the caller's,
    naming its thread; ``selection``: ``filter``, ``before`` and ``limit``), newest first;
    ``None`` when it has none (the caller reads the records itself)."""
    if not _own(saver, "list", _LIST, _ALIST):
        return None
    ns = config_for(key, None)["configurable"]["checkpoint_ns"]
    given = {**config, "configurable": {**(config.get("configurable") or {}), "checkpoint_ns": ns}}
    listed = saver.list(given, **selection)
    return (_record_of(saver, found, "list") for found in listed)


def _record_of(saver: BaseCheckpointSaver, found: Any, method: str) -> CheckpointRecord:
    checkpoint = getattr(found, "checkpoint", None)
    if not isinstance(checkpoint, OfferedCheckpoint):
        raise NotImplementedError(
            f"{type(saver).__name__}.{method}: reading a checkpoint tuple that sgdebug's "
            "saver did not make (return the one the base class gave)"
        )
    return checkpoint.record
