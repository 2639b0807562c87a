"""What a run hands a saver written LangGraph's way: a LangGraph checkpoint dict, or a
task's writes, each carrying what sgdebug stores for it (see ``_async_writes``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import Blob, CheckpointRecord

__all__ = ["OfferedCheckpoint", "OfferedWrites"]


class OfferedCheckpoint(dict[str, Any]):
    """A LangGraph checkpoint dict made by a run, with the record and blobs it stands for."""

    __slots__ = ("blobs", "record")

    def __init__(
        self, view: Mapping[str, Any], record: CheckpointRecord, blobs: Mapping[str, Blob]
    ) -> None:
        super().__init__(view)
        self.record = record
        """The checkpoint as sgdebug stores it."""
        self.blobs = blobs
        """Its new blobs (blob id -> blob)."""


class OfferedWrites(list[tuple[str, Any]]):
    """One task's ``(channel, value)`` writes, with the task's name and path."""

    __slots__ = ("path", "task_name")

    def __init__(
        self, writes: Sequence[tuple[str, Any]], task_name: str, path: tuple[Any, ...]
    ) -> None:
        super().__init__(writes)
        self.task_name = task_name
        self.path = path
