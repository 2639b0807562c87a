"""``durability="exit"``: a run's checkpoints are kept here and only its last one is stored.

LangGraph 1.2.22 with ``durability="exit"`` stores one checkpoint per run (the one the run
ends at: done, interrupted or failed), whose parent is the checkpoint the run started from,
and only the task writes recorded against that last checkpoint. Every step still makes a
checkpoint id (task ids derive from it) and still emits its ``checkpoints``/``debug`` event;
those events name as parent the parent of the checkpoint the run started from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    SaveEntry,
    build_record,
)

__all__ = ["Staged"]


@dataclass(slots=True)
class Staged:
    """The checkpoints and task writes of an exit-durability run not stored yet."""

    thread_id: str
    origin: CheckpointRecord | None
    """The stored checkpoint the run started from (the parent of the one it stores)."""
    record: CheckpointRecord | None = None
    """The run's latest checkpoint, not stored yet (``None``: nothing staged)."""
    blobs: dict[str, Blob] = field(default_factory=dict)
    """Every blob the staged checkpoints made (the latest one may refer to any of them)."""
    held: list[tuple[str, Sequence[PendingWrite]]] = field(default_factory=list)
    """Task writes as ``(checkpoint id, writes)`` in recorded order, not stored yet."""

    def stage(self, entry: SaveEntry, base: CheckpointRecord | None) -> CheckpointRecord:
        """Keep the checkpoint ``entry`` describes (``base``: the run's previous one); the
        writes recorded so far belong to an earlier checkpoint and are dropped."""
        record, blobs = build_record(entry, base.blobs if base is not None else {})
        self.blobs.update(blobs)
        self.record = record
        self.held = []
        return record

    def event_record(self, record: CheckpointRecord) -> CheckpointRecord:
        """``record`` as its stream event shows it (see the module docstring)."""
        origin = self.origin
        return record._replace(parent_id=None if origin is None else origin.parent_id)

    def hold(self, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        """Record one task's writes against ``checkpoint_id``, to store at the end."""
        self.held.append((checkpoint_id, writes))

    def store(self, saver: BaseCheckpointSaver) -> CheckpointRecord | None:
        """Store the latest checkpoint and the writes held for it; return the record stored
        (``None`` when the run made no checkpoint). Leaves nothing staged."""
        record, held = self.record, self.held
        if record is not None:
            saver.put(record, self.blobs)
            self.origin = record
        self.record, self.blobs, self.held = None, {}, []
        for checkpoint_id, writes in held:
            saver.put_writes(self.thread_id, checkpoint_id, writes)
        return record
