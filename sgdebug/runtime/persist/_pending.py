"""The pending-write buffer: writes of finished tasks waiting to be stored.

A run nobody watches stores a step's task writes with the step's checkpoint, in one saver
call; until then they wait here, already encoded. On any way out of a step that does not
end in a save, :meth:`PendingWrites.flush` stores them against the checkpoint they belong to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, PendingWrite, TaskWrites
from sgdebug.runtime.checkpoint.base import task_id as make_task_id

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task

__all__ = ["PendingWrites"]

_new = tuple.__new__
"""Builds a NamedTuple from a tuple of all its fields (its own constructor is slower)."""
_NO_WRITES = (("__no_writes__", None),)


class PendingWrites:
    """Finished tasks' writes not stored yet, for one thread."""

    __slots__ = ("_encode", "_raw", "items", "saver", "thread_id")

    def __init__(self, saver: BaseCheckpointSaver, thread_id: str) -> None:
        self.saver = saver
        self.thread_id = thread_id
        self.items: list[TaskWrites] = []
        self._raw, self._encode = saver.raw_types, saver.encode

    def add(self, task: Task) -> None:
        """Keep the writes of ``task`` (finished, not failed or interrupted)."""
        raw, encode = self._raw, self._encode
        encoded: list[tuple[str, Any]] = []
        for write in task.writes or _NO_WRITES:  # (a loop: cheaper than a comprehension here)
            key, value = write
            encoded.append(write if type(value) in raw else (key, encode(value, key)))
        self.items.append(_new(TaskWrites, (task.name, task.path, encoded)))

    def take(self) -> Sequence[TaskWrites]:
        """Everything buffered, for a save that stores it with its checkpoint."""
        items, self.items = self.items, []
        return items

    def flush(self, checkpoint_id: str | None) -> None:
        """Store the buffered writes now, against ``checkpoint_id`` (dropped without one)."""
        items, self.items = self.items, []
        if not items or checkpoint_id is None:
            return
        saver = self.saver
        for batch in items:
            task_id = make_task_id(checkpoint_id, batch.path)
            writes = [
                PendingWrite(task_id, batch.task_name, batch.path, k, saver.decode(v))
                for k, v in batch.writes
            ]
            saver.put_writes(self.thread_id, checkpoint_id, writes)
