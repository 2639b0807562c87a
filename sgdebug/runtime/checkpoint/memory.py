"""``InMemorySaver``: checkpoints kept in this process, values stored as private copies."""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from sgdebug.runtime.checkpoint._async_writes import langgraph_put, langgraph_writes
from sgdebug.runtime.checkpoint.base import (
    NS_KEY_SEP,
    BaseCheckpointSaver,
    Blob,
    CheckpointId,
    CheckpointRecord,
    PendingWrite,
    SaveEntry,
    TaskWrites,
    WriteInfo,
    build_record,
    id_text,
    sequential_ids,
    task_id,
    thread_key,
    write_slots,
)
from sgdebug.runtime.checkpoint.serde import SerializationError

__all__ = ["InMemorySaver"]

_REF = b"\x00ref:"
_new = tuple.__new__
_SCALARS = frozenset((int, float, str, bool, type(None), bytes))
_STR = frozenset((str,))
_IMMUTABLE: frozenset[type] = frozenset((int, float, str, bool, type(None)))
"""Stored as they are (``bytes`` is not here: stored data of that type is encoded)."""
_BUDGET = 256
"""Containers of up to this many scalars are kept as Python copies, not encoded."""


class Frozen:
    """A private copy of a small container of scalars; :meth:`thaw` gives a fresh one."""

    __slots__ = ("data", "kind")

    def __init__(self, kind: type, data: Any) -> None:
        self.kind = kind
        self.data = data

    def thaw(self) -> Any:
        kind, data = self.kind, self.data
        if kind is list:
            return list(data)
        if kind is dict:
            return dict(data)
        return data


class Prefix(NamedTuple):
    """The first ``length`` items of an append-only list of scalars (see ``share_list``)."""

    items: list[Any]
    length: int


def freeze(value: Any) -> Frozen | None:
    """A copy of ``value`` that later mutation of ``value`` cannot change, when cheap.

    Scalars, and lists / tuples / dicts of at most ``_BUDGET`` scalars, are kept as Python
    objects (encoding them costs far more than copying); anything else returns ``None``.
    """
    kind = type(value)
    if kind in _SCALARS:
        return Frozen(kind, value)
    if kind is list or kind is tuple:
        if len(value) <= _BUDGET and _SCALARS.issuperset(map(type, value)):
            return Frozen(kind, tuple(value))
        return None
    scalar_items = (
        kind is dict
        and len(value) <= _BUDGET
        and _STR.issuperset(map(type, value))
        and _SCALARS.issuperset(map(type, value.values()))
    )
    return Frozen(dict, dict(value)) if scalar_items else None


class InMemorySaver(BaseCheckpointSaver):
    """Keeps every thread's checkpoints in memory.

    Values are stored encoded, so a snapshot never changes when a node later mutates a value
    in place. A value the encoder cannot store is deep-copied instead (or, failing that, kept
    by reference), so an in-memory run never fails because of what its state holds.

    Recording is made cheap for runs that save every superstep and seldom look back:

    * a run appends one :class:`SaveEntry` per save to :attr:`journal`; the first read files
      the journal into records, blobs and writes (:meth:`sync`);
    * checkpoint ids are sequence numbers until a record is built (:func:`id_text`);
    * numbers, strings and small containers of them are kept as Python objects, and the
      versions of an append-only list of scalars share one copy (:class:`Prefix`).
    """

    raw_types = _IMMUTABLE
    journals = True

    def share_list(self, items: list[Any], length: int) -> Any | None:
        return _new(Prefix, (items, length))  # (the NamedTuple constructor is slower)

    def stored_bytes(self, thread_id: str | None = None) -> int:
        """Encoded size of the values held for ``thread_id`` (every thread when ``None``).

        Values kept as Python copies count as they would encode; a list shared by the
        versions of an append-only channel counts once, whole.
        """
        from sgdebug.runtime.checkpoint.serde import dumps

        self.sync(thread_id)
        threads = [thread_id] if thread_id is not None else list(self.blobs)
        shared: set[int] = set()
        total = 0
        for thread in threads:
            for blob in self.blobs.get(thread, {}).values():
                data: Any = blob.data
                if isinstance(data, bytes):
                    total += len(data)
                elif isinstance(data, Prefix):
                    if id(data.items) not in shared:
                        shared.add(id(data.items))
                        total += len(dumps(data.items))
                else:
                    total += len(dumps(self.decode(data)))
        return total

    def __init__(
        self,
        *,
        ids: Callable[[], CheckpointId] | None = None,
        clock: Callable[[], str | float] | None = None,
    ) -> None:
        super().__init__(ids=ids or sequential_ids(), clock=clock)
        self.records: defaultdict[str, dict[str, CheckpointRecord]] = defaultdict(dict)
        self.blobs: defaultdict[str, dict[str, Blob]] = defaultdict(dict)
        self.writes: defaultdict[tuple[str, str], dict[str, dict[int, PendingWrite]]] = defaultdict(
            dict
        )
        self.batches: dict[tuple[str, str], Sequence[TaskWrites]] = {}
        """Task writes given to :meth:`put`, kept as they came until they are read: a run
        records them every step, and most are never looked at."""
        self.refs: dict[int, Any] = {}
        self._ref_ids = itertools.count()
        self.journal: list[SaveEntry] = []
        """Saves of runs not filed yet, in order (see :meth:`sync`). A run saves every
        superstep and most checkpoints are never read, so it only appends here (atomic, no
        lock); the first read files them into the lookup tables."""

    def put(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites] = (),
        new_versions: Mapping[str, Any] | None = None,
    ) -> Any:
        config = None
        if new_versions is not None:  # put(config, checkpoint, metadata, new_versions)
            record, blobs, config = langgraph_put(self, blobs)
            writes = ()  # (the metadata came here: the record has its own)
        with self.lock:
            self.sync()
            self._file(record, blobs, writes)
        return config

    def sync(self, thread_id: str | None = None) -> None:
        """File the journal into the lookup tables (every read does it first).

        ``thread_id`` is accepted for symmetry with the readers; the journal is filed whole,
        in order, so a thread's checkpoints never overtake one another.
        """
        journal = self.journal
        if not journal:
            return
        with self.lock:
            count = len(journal)
            records = self.records
            for entry in journal[:count]:
                base_id = entry.base_id
                base = {} if base_id is None else records[entry.thread_id][id_text(base_id)].blobs
                record, blobs = build_record(entry, base)
                self._file(record, blobs, entry.writes)
            # Only the filed entries go: a save racing with this appends after them.
            del journal[:count]

    def _file(
        self, record: CheckpointRecord, blobs: Mapping[str, Blob], writes: Sequence[TaskWrites]
    ) -> None:
        # Blobs and writes go in before the record, so a reader that finds the record (the
        # lock is not needed for that) finds everything it refers to.
        thread_id = record.thread_id
        self.blobs[thread_id].update(blobs)
        if writes:
            parent = record.parent_id
            assert parent is not None, "task writes belong to the parent checkpoint"
            key = (thread_id, parent)
            with self.lock:
                if key in self.batches or key in self.writes:
                    self._unpack(key)
                    self._store(key, _pending(parent, writes))
                else:
                    self.batches[key] = writes
        self.records[thread_id][record.id] = record

    def put_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        writes: Sequence[PendingWrite] = (),
        task_path: str = "",
    ) -> None:
        if type(thread_id) is not str:  # put_writes(config, writes, task_id, task_path)
            thread_id, checkpoint_id, writes = langgraph_writes(
                thread_id, checkpoint_id, writes, task_path
            )
        if not writes:
            return
        encoded = [w._replace(value=self.encode(w.value, w.channel)) for w in writes]
        self.sync(thread_id)
        with self.lock:
            key = (thread_id, checkpoint_id)
            self._unpack(key)
            self._store(key, [encoded])

    def _unpack(self, key: tuple[str, str]) -> None:
        """Move the batches kept for ``key`` into the per-task write slots."""
        writes = self.batches.pop(key, None)
        if writes is not None:
            self._store(key, _pending(key[1], writes))

    def _store(self, key: tuple[str, str], batches: Sequence[Sequence[PendingWrite]]) -> None:
        """Record encoded writes, one batch per task, replacing the task's channel writes."""
        by_task = self.writes[key]
        for writes in batches:
            slots = write_slots(writes)
            task = by_task.setdefault(writes[0].task_id, {})
            if any(slot >= 0 for slot, _ in slots):
                for slot in [k for k in task if k >= 0]:
                    del task[slot]
            for slot, w in slots:
                task[slot] = w

    def delete_thread(self, thread_id: str) -> None:
        self.sync()
        keys = {thread_id, *(thread_key(thread_id, ns) for ns in self.namespaces(thread_id))}
        with self.lock:
            for key in keys:
                self.records.pop(key, None)
                self.blobs.pop(key, None)
            for pair in [k for k in (*self.writes, *self.batches) if k[0] in keys]:
                self.writes.pop(pair, None)
                self.batches.pop(pair, None)

    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        self.sync(thread_id)
        with self.lock:
            record = self.records[thread_id][checkpoint_id]
            self.records[thread_id][checkpoint_id] = record.with_seen(key, seen)

    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        self.sync(thread_id)
        records = self.records.get(thread_id)
        if not records:
            return None
        if checkpoint_id is None:
            return records[max(records)]
        return records.get(checkpoint_id)

    def threads(self) -> list[str]:
        """Every thread id that has a checkpoint (subgraphs' namespaces are not threads)."""
        self.sync()
        return [t for t, records in self.records.items() if records and NS_KEY_SEP not in t]

    def namespaces(self, thread_id: str) -> list[str]:
        self.sync()
        prefix = f"{thread_id}{NS_KEY_SEP}"
        keys = [k for k, r in self.records.items() if r and k.startswith(prefix)]
        return [k[len(prefix) :] for k in sorted(keys, key=lambda k: min(self.records[k]))]

    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        self.sync(thread_id)
        records = self.records.get(thread_id, {})
        for key in sorted(records, reverse=True):
            yield records[key]

    def count_before(self, thread_id: str, checkpoint_id: str) -> int:
        self.sync(thread_id)
        return sum(1 for key in self.records.get(thread_id, {}) if key < checkpoint_id)

    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        self.sync(thread_id)
        return self.blobs[thread_id][blob_id]

    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        self.sync(thread_id)
        key = (thread_id, checkpoint_id)
        if key in self.batches:
            with self.lock:
                self._unpack(key)
        by_task = self.writes.get(key, {})
        return [
            PendingWrite(w.task_id, w.task_name, w.path, w.channel, self.decode(w.value))
            for slots in by_task.values()
            for _, w in sorted(slots.items(), key=_slot_order)
        ]

    def list_write_info(self, thread_id: str) -> Iterator[WriteInfo]:
        for record in self.list_records(thread_id):
            key = (thread_id, record.id)
            if key in self.batches:
                with self.lock:
                    self._unpack(key)
            for slots in self.writes.get(key, {}).values():
                for _, w in sorted(slots.items(), key=_slot_order):
                    yield WriteInfo(record.id, w.task_id, w.task_name, w.path, w.channel)

    def encode(self, value: Any, channel: str) -> Any:
        kind = type(value)
        if kind in _IMMUTABLE:
            return value  # kept as it is: nothing can change it
        if kind is list and (
            (len(value) == 1 and type(value[0]) in _SCALARS)
            or (len(value) <= _BUDGET and _SCALARS.issuperset(map(type, value)))
        ):
            return tuple(value)  # a list of scalars (tuples are stored as Frozen)
        frozen = freeze(value)
        if frozen is not None:
            return frozen
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

    def decode(self, data: Any) -> Any:
        kind = type(data)
        if kind in _IMMUTABLE:
            return data
        if kind is tuple:
            return list(data)
        if kind is Frozen:
            return data.thaw()
        if kind is Prefix:
            return data.items[: data.length]
        if data.startswith(_REF):
            kept = self.refs[int(data[len(_REF) :])]
            try:
                return copy.deepcopy(kept)
            except Exception:
                return kept
        return super().decode(data)


def _slot_order(item: tuple[int, PendingWrite]) -> tuple[bool, int]:
    """A task's channel writes in order, then its special writes (see ``write_slots``)."""
    return item[0] < 0, abs(item[0])


def _pending(checkpoint_id: str, writes: Sequence[TaskWrites]) -> list[list[PendingWrite]]:
    return [
        [
            PendingWrite(task_id(checkpoint_id, b.path), b.task_name, b.path, k, v)
            for k, v in b.writes
        ]
        for b in writes
    ]
