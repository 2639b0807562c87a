"""Checkpoint savers: ``InMemorySaver`` and ``SqliteSaver``, and the records they store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    RecordInfo,
    WriteInfo,
    time_ordered_ids,
    utc_clock,
)
from sgdebug.runtime.checkpoint.memory import InMemorySaver

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.sqlite import CorruptCheckpointError, SqliteSaver

__all__ = [
    "BaseCheckpointSaver",
    "Blob",
    "CheckpointRecord",
    "CorruptCheckpointError",
    "InMemorySaver",
    "PendingWrite",
    "RecordInfo",
    "SqliteSaver",
    "WriteInfo",
    "time_ordered_ids",
    "utc_clock",
]


def __getattr__(name: str) -> object:
    # SqliteSaver imports sqlite3: loaded when first asked for (a session in memory never is).
    if name in ("CorruptCheckpointError", "SqliteSaver"):
        from sgdebug.runtime.checkpoint import sqlite

        return getattr(sqlite, name)
    raise AttributeError(f"module 'sgdebug.runtime.checkpoint' has no attribute {name!r}")
