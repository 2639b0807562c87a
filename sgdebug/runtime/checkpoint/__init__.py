"""Checkpoint savers: ``InMemorySaver`` and ``SqliteSaver``, and the records they store."""

from __future__ import annotations

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
