"""An async run's saver when the user's saver stores LangGraph's way.

A checkpointer written for LangGraph overrides ``aput`` / ``aput_writes`` (to log, to slow
down, to fail...). LangGraph's async runs store through those, so ours do too: a run
started by ``ainvoke``/``astream`` (inside :func:`async_stores`) whose saver's class
overrides either records itself through an :class:`AsyncFace`. The face keeps each store
in order instead of doing it (the loop that saves is synchronous), and :meth:`AsyncFace.drain`
awaits them on the event loop between phases: a task's writes through ``aput_writes``,
then a checkpoint through ``aput``, as LangGraph calls them. What the face holds is read
back from it until it is stored, so the run sees its own saves at once.

Other savers, and every sync run, are used as they are: this costs a run one look at its
saver's class.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
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

__all__ = ["AsyncFace", "async_stores", "face_of"]

_ASYNC_RUN: ContextVar[bool] = ContextVar("sgdebug_async_run", default=False)
_BASE_PUT = BaseCheckpointSaver.aput
_BASE_WRITES = BaseCheckpointSaver.aput_writes


@contextmanager
def async_stores() -> Iterator[None]:
    """Runs made inside store through their saver's async methods, if it overrides them."""
    token = _ASYNC_RUN.set(True)
    try:
        yield
    finally:
        _ASYNC_RUN.reset(token)


def face_of(saver: BaseCheckpointSaver) -> BaseCheckpointSaver:
    """What a run made now records itself through: ``saver``, or its :class:`AsyncFace`."""
    kind = type(saver)
    if kind.aput is _BASE_PUT and kind.aput_writes is _BASE_WRITES:
        return saver
    if not _ASYNC_RUN.get() or isinstance(saver, AsyncFace):
        return saver
    return AsyncFace(saver)


class AsyncFace(BaseCheckpointSaver):
    """Holds one run's stores for a saver with its own ``aput``/``aput_writes``."""

    journals = False

    def __init__(self, inner: BaseCheckpointSaver) -> None:
        # (no super().__init__: ids, clock and lock are the inner saver's)
        self.inner = inner
        self.new_id = inner.new_id
        self.now = inner.now
        self.lock = inner.lock
        self.raw_types = inner.raw_types
        self._queue: list[Callable[[], Awaitable[Any]]] = []
        self._records: dict[tuple[str, str], CheckpointRecord] = {}
        self._latest: dict[str, CheckpointRecord] = {}
        """Per saver key, the last checkpoint this face was given (for ``new_versions``)."""
        self._blobs: dict[str, Blob] = {}

    async def drain(self) -> None:
        """Await every store held so far, in order; on a failure the rest are dropped."""
        queue = self._queue
        try:
            while queue:
                await queue.pop(0)()
        finally:
            queue.clear()
            self._records.clear()
            self._blobs.clear()

    # -- stores: held --------------------------------------------------------------------

    def put(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites] = (),
    ) -> None:
        previous = self._latest.get(record.thread_id)
        self._records[(record.thread_id, record.id)] = self._latest[record.thread_id] = record
        self._blobs.update(blobs)
        self._queue.append(partial(self._aput, record, blobs, tuple(writes), previous))

    def put_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]
    ) -> None:
        if writes:
            first = writes[0]
            pairs = [(w.channel, w.value) for w in writes]
            batch = (first.task_id, first.task_name, first.path, pairs)
            self._queue.append(partial(self._awrites, thread_id, checkpoint_id, *batch))

    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        held = self._records.get((thread_id, checkpoint_id))
        if held is not None:
            self._records[(thread_id, checkpoint_id)] = held.with_seen(key, seen)
        self._queue.append(partial(self._aseen, thread_id, checkpoint_id, key, dict(seen)))

    async def _aput(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites],
        previous: CheckpointRecord | None,
    ) -> None:
        key, parent = record.thread_id, record.parent_id
        for batch in writes:  # (recorded against the parent: a put with writes has one)
            assert parent is not None
            pairs = [(k, self.inner.decode(v)) for k, v in batch.writes]
            made = task_id(parent, batch.path)
            await self._awrites(key, parent, made, batch.task_name, batch.path, pairs)
        new_versions = {
            k: v
            for k, v in record.versions.items()
            if previous is None or previous.versions.get(k) != v
        }
        offered = OfferedCheckpoint(self._view(record, new_versions), record, blobs)
        await self.inner.aput(config_for(key, parent), offered, record.metadata, new_versions)

    async def _awrites(
        self,
        key: str,
        checkpoint_id: str,
        made: str,
        name: str,
        path: tuple[Any, ...],
        pairs: list[tuple[str, Any]],
    ) -> None:
        offered = OfferedWrites(pairs, name, path)
        config = config_for(key, checkpoint_id)
        await self.inner.aput_writes(config, offered, made, task_path_text(path))

    async def _aseen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        self.inner.update_seen(thread_id, checkpoint_id, key, seen)

    def _view(self, record: CheckpointRecord, new_versions: Mapping[str, int]) -> dict[str, Any]:
        """``record`` as a LangGraph checkpoint dict (its values read back from the face)."""
        versions, blobs = record.versions, record.blobs
        values = {  # (in channel order, as LangGraph's)
            k: as_langgraph_reads(load_value(self, record.thread_id, blobs[k])[0])
            for k in versions
            if k in blobs
        }
        return {
            "v": CHECKPOINT_VERSION,
            "id": record.id,
            "ts": record.created_at,
            "channel_values": values,
            "channel_versions": dict(versions),
            "versions_seen": {k: dict(v) for k, v in record.versions_seen.items()},
            "updated_channels": sorted(new_versions),
        }

    # -- reads: what is held first, then the inner saver ----------------------------------

    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        if checkpoint_id is None:
            held = [r for (t, _), r in self._records.items() if t == thread_id]
            if held:
                return held[-1]
            return self.inner.get_record(thread_id)
        found = self._records.get((thread_id, checkpoint_id))
        return found if found is not None else self.inner.get_record(thread_id, checkpoint_id)

    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        held = [r for (t, _), r in self._records.items() if t == thread_id]
        yield from reversed(held)
        yield from self.inner.list_records(thread_id)

    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        held = self._blobs.get(blob_id)
        return held if held is not None else self.inner.get_blob(thread_id, blob_id)

    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        return self.inner.get_writes(thread_id, checkpoint_id)

    def encode(self, value: Any, channel: str) -> Any:
        return self.inner.encode(value, channel)

    def decode(self, data: Any) -> Any:
        return self.inner.decode(data)

    def share_list(self, items: list[Any], length: int) -> Any | None:
        return self.inner.share_list(items, length)

    def threads(self) -> list[str]:
        return self.inner.threads()

    def namespaces(self, thread_id: str) -> list[str]:
        return self.inner.namespaces(thread_id)
