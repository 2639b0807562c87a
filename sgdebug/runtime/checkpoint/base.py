"""What a checkpointer stores: checkpoint records, value blobs and pending writes."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import itertools
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from sgdebug.runtime.checkpoint import _tuples
from sgdebug.runtime.checkpoint._keys import NS_KEY_SEP, split_thread_key, thread_key
from sgdebug.runtime.checkpoint._slots import SPECIAL_WRITES, write_slots

__all__ = [
    "SPECIAL_WRITES",
    "BaseCheckpointSaver",
    "Blob",
    "CheckpointRecord",
    "GONE",
    "PendingWrite",
    "RecordInfo",
    "SaveEntry",
    "Source",
    "TaskWrites",
    "WriteInfo",
    "write_slots",
    "CheckpointId",
    "NS_KEY_SEP",
    "build_record",
    "format_time",
    "id_text",
    "sequential_ids",
    "split_thread_key",
    "task_id",
    "thread_key",
    "time_ordered_ids",
    "utc_clock",
]

Source = Literal["input", "loop", "update", "fork"]
_NO_METADATA: Mapping[str, Any] = MappingProxyType({})

# Records are NamedTuples rather than frozen dataclasses: one of each is made per superstep
# and per write while history is recorded, and a tuple is several times cheaper to build.


class Blob(NamedTuple):
    """One stored channel value: whole, or as an append to an earlier blob of the channel."""

    data: bytes
    """The encoded value (whole) or the encoded appended items (delta)."""
    base: str | None = None
    """The blob this one appends to (``None`` for a whole value)."""
    kind: Literal["full", "list", "str"] = "full"
    """How to rebuild: the whole value, or base + appended list items / string."""
    depth: int = 0
    """How many deltas lead back to a whole value."""


class PendingWrite(NamedTuple):
    """A write recorded against a checkpoint by a task of the step that follows it."""

    task_id: str
    task_name: str
    path: tuple[Any, ...]
    channel: str
    """A channel, or ``__error__`` / ``__interrupt__`` / ``__resume__``."""
    value: Any


class RecordInfo(NamedTuple):
    """Where a checkpoint stands in its thread's history: a :class:`CheckpointRecord` without
    its versions, blob map and metadata."""

    id: str
    parent_id: str | None
    step: int
    source: Source
    created_at: str


class WriteInfo(NamedTuple):
    """Who wrote what against a checkpoint: a :class:`PendingWrite` without its value."""

    checkpoint_id: str
    task_id: str
    task_name: str
    path: tuple[Any, ...]
    channel: str


class TaskWrites(NamedTuple):
    """One finished task's writes, handed to :meth:`BaseCheckpointSaver.put` in one batch."""

    task_name: str
    path: tuple[Any, ...]
    writes: Sequence[tuple[str, Any]]
    """(channel, value) pairs, each value already as the saver's ``encode`` returned it."""


class CheckpointRecord(NamedTuple):
    """A checkpoint: where each channel's value is stored, versions, and metadata."""

    thread_id: str
    id: str
    """Time-ordered: a later checkpoint of a thread has a greater id."""
    parent_id: str | None
    step: int
    source: Source
    created: str | float
    """When it was recorded: ISO 8601 text, or seconds since the epoch (see :attr:`created_at`)."""
    versions: Mapping[str, int]
    """Every channel's version (empty channels too)."""
    blobs: Mapping[str, str]
    """Channel → id of the blob holding its value (non-empty channels only)."""
    versions_seen: Mapping[str, Mapping[str, int]]
    """Per node, the channel versions it last consumed (and ``__interrupt__``)."""
    user_metadata: Mapping[str, Any] = _NO_METADATA
    """``config["metadata"]`` of the run that wrote it, shown in the snapshot's metadata."""

    @property
    def created_at(self) -> str:
        """When it was recorded, as ISO 8601 text (formatted on demand: saving stays cheap)."""
        created = self.created
        return created if type(created) is str else format_time(float(created))

    @property
    def metadata(self) -> dict[str, Any]:
        """The snapshot metadata: source, step, parents, then the run's own metadata."""
        return {"source": self.source, "step": self.step, "parents": {}, **self.user_metadata}

    def with_seen(self, key: str, versions: Mapping[str, int]) -> CheckpointRecord:
        """A copy with ``versions_seen[key]`` replaced."""
        seen = dict(self.versions_seen)
        seen[key] = dict(versions)
        return self._replace(versions_seen=seen)


class _Gone:
    __slots__ = ()

    def __repr__(self) -> str:
        return "GONE"


GONE: Any = _Gone()
"""In :attr:`SaveEntry.changes`: the channel is empty now (its blob is dropped)."""
_new = tuple.__new__


class SaveEntry(NamedTuple):
    """One save as a run hands it over: a :class:`CheckpointRecord` whose blob ids are not
    made yet. A saver that journals (:attr:`BaseCheckpointSaver.journals`) keeps entries as
    they come and builds records from them only when it is read (see :func:`build_record`).
    """

    thread_id: str
    id: CheckpointId
    parent_id: CheckpointId | None
    base_id: CheckpointId | None
    """The checkpoint whose channel → blob map this one updates (the run's previous save)."""
    step: int
    source: Source
    created: str | float
    versions: Mapping[str, int]
    changes: Sequence[tuple[str, Any]]
    """(channel, what to store): data as the saver's ``encode`` returned it, a
    :class:`Blob` (a delta), or :data:`GONE` when the channel became empty."""
    versions_seen: Mapping[str, Mapping[str, int]]
    user_metadata: Mapping[str, Any]
    writes: Sequence[TaskWrites]
    """The writes of the tasks of the step that produced it (as :meth:`BaseCheckpointSaver.put`
    takes them)."""


def build_record(
    entry: SaveEntry, base_blobs: Mapping[str, str]
) -> tuple[CheckpointRecord, dict[str, Blob]]:
    """The record of ``entry`` and its new blobs; ``base_blobs`` is the blob map of
    ``entry.base_id`` (empty when it has none)."""
    blob_ids = dict(base_blobs)
    blobs: dict[str, Blob] = {}
    checkpoint_id = id_text(entry.id)
    parent_id = entry.parent_id
    for key, data in entry.changes:
        if data is GONE:
            blob_ids.pop(key, None)
            continue
        blob_id = f"{checkpoint_id}:{key}"
        blobs[blob_id] = data if type(data) is Blob else _new(Blob, (data, None, "full", 0))
        blob_ids[key] = blob_id
    record: CheckpointRecord = _new(
        CheckpointRecord,
        (
            entry.thread_id,
            checkpoint_id,
            None if parent_id is None else id_text(parent_id),
            entry.step,
            entry.source,
            entry.created,
            entry.versions,
            blob_ids,
            entry.versions_seen,
            entry.user_metadata,
        ),
    )
    return record, blobs


def time_ordered_ids() -> Callable[[], str]:
    """UUID-shaped ids that sort in creation order.

    The first 64 bits are the time in nanoseconds, strictly increasing per source (two ids
    in the same nanosecond get consecutive values); then a counter, so ids of one run also
    differ in their tail; the last 48 bits are random per source, so ids made by two
    processes on one file do not collide.
    """
    node = os.urandom(6).hex()
    last = [0]
    time_ns = time.time_ns
    counter = itertools.count()

    def make() -> str:
        # No lock: ``next(counter)`` is atomic, so ids stay unique across threads; the
        # order is only promised for one thread's checkpoints, which one run makes.
        now = time_ns()
        if now <= last[0]:
            now = last[0] + 1
        last[0] = now
        h = f"{now:016x}{next(counter) & 0xFFFF:04x}"
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:]}-{node}"

    return make


_h = f"{time.time_ns():016x}"
_SEQUENCE_PREFIX = f"{_h[:8]}-{_h[8:12]}-{_h[12:16]}-{os.urandom(2).hex()}-"
"""This process's start time and 16 random bits: the text of a sequence number's id."""
_SEQUENCE = itertools.count(10**11)
"""One counter for the process: sequence numbers of all its savers differ."""

CheckpointId = str | int
"""A checkpoint id as a run holds it: text, or a sequence number (see :func:`id_text`)."""


def sequential_ids() -> Callable[[], int]:
    """Checkpoint ids as sequence numbers, counting up; :func:`id_text` gives their text:
    UUID-shaped, this process's start time and 16 random bits, then the number.

    For a saver whose checkpoints are all made in one process (``InMemorySaver``): a run
    saves every superstep and most ids are never looked at, so only a number is made per
    save (by an iterator implemented in C: no Python frame, and ``__next__`` is atomic, so
    numbers stay unique across threads). Ids sort in creation order. Savers of a file shared
    by processes use :func:`time_ordered_ids`, whose clock reading keeps them in time order.
    """
    return _SEQUENCE.__next__


def id_text(checkpoint_id: CheckpointId) -> str:
    """The text of a checkpoint id (a sequence number's, made on demand)."""
    if type(checkpoint_id) is str:
        return checkpoint_id
    # Decimal digits are hex digits too: 10**11 .. 10**12 - 1 all have 12 of them, so the
    # ids sort as they count.
    return _SEQUENCE_PREFIX + str(checkpoint_id)


def utc_clock() -> str:
    """The current time as an ISO 8601 string in UTC."""
    return dt.datetime.now(dt.UTC).isoformat()


def format_time(seconds: float) -> str:
    """``seconds`` since the epoch as an ISO 8601 string in UTC."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat()


@functools.lru_cache(maxsize=4096)
def _path_text(path: tuple[Any, ...]) -> bytes:
    return f":{path!r}".encode()


def task_id(checkpoint_id: CheckpointId, path: tuple[Any, ...]) -> str:
    """The id of the task at ``path`` planned from ``checkpoint_id``: UUID-shaped, the same
    every time (writes recorded for a task are matched to it when it is planned again)."""
    text = id_text(checkpoint_id).encode()
    h = hashlib.md5(text + _path_text(path), usedforsecurity=False).hexdigest()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class BaseCheckpointSaver(ABC):
    """Stores checkpoints of threads; ids and timestamps come from injectable sources."""

    raw_types: frozenset[type] = frozenset()
    """Types whose values :meth:`encode` returns unchanged (callers may skip the call)."""
    journals: bool = False
    """Whether a run appends its saves to :attr:`journal` as :class:`SaveEntry` tuples
    instead of calling :meth:`put` (the saver files them when it is first read)."""
    journal: list[SaveEntry]

    def share_list(self, items: list[Any], length: int) -> Any | None:
        """Stored data for ``items[:length]`` that keeps a reference to ``items``, or
        ``None`` when this saver cannot (it stores bytes).

        The caller promises that ``items`` holds only immutable scalars and that it will
        only ever be appended to: every version of an append-only list then shares one
        copy, and a stored value costs no encoding.
        """
        return None

    def __init__(
        self,
        *,
        ids: Callable[[], CheckpointId] | None = None,
        clock: Callable[[], str | float] | None = None,
    ) -> None:
        self.new_id: Callable[[], CheckpointId] = ids or time_ordered_ids()
        """Makes checkpoint ids (text, or sequence numbers :func:`id_text` turns into text);
        a later checkpoint of a thread must get a greater id."""
        self.now: Callable[[], str | float] = clock or time.time
        """Timestamps of checkpoints: ISO 8601 text, or seconds since the epoch (the
        default: a record formats it only when it is read)."""
        self.lock = threading.RLock()

    @abstractmethod
    def put(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites] = (),
        new_versions: Mapping[str, Any] | None = None,
    ) -> Any:
        """Store ``record`` and its new blobs (blob id → blob), atomically.

        ``writes`` are the writes of the tasks whose step produced ``record``: each batch is
        recorded against ``record.parent_id`` as :meth:`put_writes` would, for the task
        ``task_id(record.parent_id, batch.path)``, in the same transaction.

        Also called LangGraph's way, ``put(config, checkpoint, metadata, new_versions)``,
        by a saver's own ``put`` written for LangGraph (``persist._sync_face``): it stores
        the checkpoint a run handed over and returns the config naming it (see
        :func:`langgraph_put`).
        """

    @abstractmethod
    def put_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        writes: Sequence[PendingWrite] = (),
        task_path: str = "",
    ) -> None:
        """Record writes of one task against a checkpoint, replacing earlier ones of that task.

        Also called LangGraph's way, ``put_writes(config, writes, task_id, task_path)``
        (see :func:`langgraph_writes`).
        """

    @abstractmethod
    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        """Replace ``versions_seen[key]`` of a stored checkpoint."""

    @abstractmethod
    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        """The given checkpoint, or the thread's latest when ``checkpoint_id`` is ``None``."""

    @abstractmethod
    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        """Every checkpoint of the thread, newest first."""

    @abstractmethod
    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        """A stored blob."""

    @abstractmethod
    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        """The pending writes recorded against a checkpoint, in task then write order."""

    def list_record_info(self, thread_id: str) -> Iterator[RecordInfo]:
        """Every checkpoint of the thread, newest first, as :class:`RecordInfo` (history
        views read this). Savers override it with a lighter read than :meth:`list_records`."""
        for r in self.list_records(thread_id):
            yield RecordInfo(r.id, r.parent_id, r.step, r.source, r.created_at)

    def count_before(self, thread_id: str, checkpoint_id: str) -> int:
        """How many checkpoints of the thread have an id below ``checkpoint_id``: its
        number in the thread's history, oldest first. Savers override it with a count."""
        return sum(1 for r in self.list_record_info(thread_id) if r.id < checkpoint_id)

    def list_write_info(self, thread_id: str) -> Iterator[WriteInfo]:
        """Every pending write of the thread without its value, grouped by checkpoint, a
        task's writes together (history views read this: no value is decoded). Savers
        override it with one read."""
        for record in self.list_records(thread_id):
            for w in self.get_writes(thread_id, record.id):
                yield WriteInfo(record.id, w.task_id, w.task_name, w.path, w.channel)

    def encode(self, value: Any, channel: str) -> bytes:
        """Encode a channel value for storage."""
        from sgdebug.runtime.checkpoint.serde import dumps

        return dumps(value, channel=channel)

    def decode(self, data: bytes) -> Any:
        """Decode a stored value."""
        from sgdebug.runtime.checkpoint.serde import loads

        return loads(data)

    def threads(self) -> list[str]:
        """Every thread id that has a checkpoint."""
        raise NotImplementedError(f"{type(self).__name__}.threads")

    def namespaces(self, thread_id: str) -> list[str]:
        """The checkpoint namespaces of ``thread_id``'s subgraphs that have a checkpoint
        (not the root's ``""``), in the order their first checkpoint was made."""
        raise NotImplementedError(f"{type(self).__name__}.namespaces")

    def delete_thread(self, thread_id: str) -> None:
        """Forget every checkpoint, value and write of ``thread_id``."""
        raise NotImplementedError(f"{type(self).__name__}.delete_thread")

    async def adelete_thread(self, thread_id: str) -> None:
        """Async :meth:`delete_thread`."""
        self.delete_thread(thread_id)

    # LangGraph's async writes: an async run whose saver overrides one stores through them
    # (see persist._async_face); these store what the run handed over.
    async def aput(
        self,
        config: Mapping[str, Any],
        checkpoint: Mapping[str, Any],
        metadata: Mapping[str, Any],
        new_versions: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Store a checkpoint a run made (LangGraph's signature; ``metadata`` and
        ``new_versions`` are the record's own); return the config naming it. As LangGraph's
        savers, through :meth:`put` (a saver's own ``put`` sees it)."""
        put: Any = self.put
        return dict(put(config, checkpoint, metadata, new_versions))

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Record one task's writes against the checkpoint ``config`` names (LangGraph's
        signature), through :meth:`put_writes` as LangGraph's savers."""
        put_writes: Any = self.put_writes
        put_writes(config, writes, task_id, task_path)

    # LangGraph's checkpointer reads (``CheckpointTuple``s); kept last: ``list`` is a name.
    get_tuple = _tuples.get_tuple
    aget_tuple = _tuples.aget_tuple
    alist = _tuples.alist_tuples
    list = _tuples.list_tuples
