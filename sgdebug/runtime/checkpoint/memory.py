"""``InMemorySaver``: checkpoints kept in this process, values stored encoded (so immutable)."""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
)
from sgdebug.runtime.checkpoint.serde import SerializationError

__all__ = ["InMemorySaver"]

_REF = b"\x00ref:"


class InMemorySaver(BaseCheckpointSaver):
    """Keeps every thread's checkpoints in memory.

    Values are stored encoded, so a snapshot never changes when a node later mutates a value
    in place. A value the encoder cannot store is deep-copied instead (or, failing that, kept
    by reference), so an in-memory run never fails because of what its state holds.
    """

    def __init__(
        self,
        *,
        ids: Callable[[], str] | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(ids=ids, clock=clock)
        self.records: defaultdict[str, dict[str, CheckpointRecord]] = defaultdict(dict)
        self.blobs: defaultdict[str, dict[str, Blob]] = defaultdict(dict)
        self.writes: defaultdict[tuple[str, str], dict[str, list[PendingWrite]]] = defaultdict(dict)
        self.refs: dict[int, Any] = {}
        self._ref_ids = itertools.count()

    def put(self, record: CheckpointRecord, blobs: Mapping[str, Blob]) -> None:
        with self.lock:
            self.blobs[record.thread_id].update(blobs)
            self.records[record.thread_id][record.id] = record

    def put_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]
    ) -> None:
        if not writes:
            return
        stored = [replace(w, value=self.encode(w.value, w.channel)) for w in writes]
        with self.lock:
            self.writes[(thread_id, checkpoint_id)][writes[0].task_id] = stored

    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        with self.lock:
            record = self.records[thread_id][checkpoint_id]
            self.records[thread_id][checkpoint_id] = record.with_seen(key, seen)

    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        records = self.records.get(thread_id)
        if not records:
            return None
        if checkpoint_id is None:
            return records[max(records)]
        return records.get(checkpoint_id)

    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        records = self.records.get(thread_id, {})
        for key in sorted(records, reverse=True):
            yield records[key]

    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        return self.blobs[thread_id][blob_id]

    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        by_task = self.writes.get((thread_id, checkpoint_id), {})
        return [replace(w, value=self.decode(w.value)) for ws in by_task.values() for w in ws]

    def encode(self, value: Any, channel: str) -> bytes:
        try:
            return super().encode(value, channel)
        except SerializationError:
            try:
                kept = copy.deepcopy(value)
            except Exception:
                kept = value
            ref = next(self._ref_ids)
            self.refs[ref] = kept
            return _REF + str(ref).encode()

    def decode(self, data: bytes) -> Any:
        if data.startswith(_REF):
            kept = self.refs[int(data[len(_REF) :])]
            try:
                return copy.deepcopy(kept)
            except Exception:
                return kept
        return super().decode(data)
