"""An async run's saver when the user's saver stores LangGraph's way.

A checkpointer written for LangGraph overrides ``aput`` / ``aput_writes`` (to log, to slow
down, to fail...). LangGraph's async runs store through those, so ours do too: a run
started by ``ainvoke``/``astream`` (inside :func:`async_stores`) whose saver's class
overrides either records itself through an :class:`AsyncFace`. The face keeps each store
in order instead of doing it (the loop that saves is synchronous), and :meth:`AsyncFace.drain`
awaits them on the event loop between phases: a task's writes through ``aput_writes``,
then a checkpoint through ``aput``, as LangGraph calls them. What the face holds is read
back from it until it is stored, so the run sees its own saves at once.

Each run has its own face: a subgraph's run made by ``ainvoke`` inside its parent's task
holds and awaits its own stores (a failing ``aput`` fails that task, as in LangGraph),
reading what its parent holds through the parent's face; a sync run made inside an async
one's task (``sub.invoke()`` in a sync node, on a worker thread) stores through the saver's
``put``, as LangGraph's does. ``aupdate_state`` applies its update on a worker thread
(:func:`stores_on_loop`): its face awaits each store on the caller's loop at once.

What ``aput`` receives is LangGraph's: the run's ``configurable`` keys with the thread,
namespace and parent checkpoint id; the metadata's ``source``, ``step`` and ``parents``;
``new_versions``, the channels whose version moved since the checkpoint it follows; and a
checkpoint dict with the channels in the graph's order and ``updated_channels``, the
channels the last step updated (``None`` for an update or a fork).

Other savers, and every sync run, are used as they are: this costs a run one look at its
saver's class.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    TaskWrites,
)
from sgdebug.runtime.persist._face import SaverFace
from sgdebug.runtime.persist._offers import checkpoint_offer, task_batches, writes_offers

if TYPE_CHECKING:
    import asyncio  # (at run time inside the functions: only an async run needs it)

__all__ = [
    "AsyncFace",
    "AsyncStores",
    "async_stores",
    "face_of",
    "overrides_async",
    "stores_on_loop",
]

_BASE_PUT = BaseCheckpointSaver.aput
_BASE_WRITES = BaseCheckpointSaver.aput_writes


@dataclass(frozen=True, slots=True)
class AsyncStores:
    """How the runs made now store through a saver's own ``aput``/``aput_writes``."""

    loop: asyncio.AbstractEventLoop
    """The event loop the stores are awaited on."""
    channels: Iterable[str] = ()
    """The graph's channels, in order (a checkpoint dict's ``channel_values`` follow it)."""
    configurable: Mapping[str, Any] | None = None
    """The run's ``config["configurable"]`` (``aput`` gets its keys)."""
    at_once: bool = False
    """For stores made on a worker thread: each is awaited on :attr:`loop` at once, the
    thread waiting for it (else they are held for :meth:`AsyncFace.drain`)."""


_ASYNC_RUN: ContextVar[AsyncStores | None] = ContextVar("sgdebug_async_run", default=None)


@contextmanager
def _storing(stores: AsyncStores) -> Iterator[None]:
    token = _ASYNC_RUN.set(stores)
    try:
        yield
    finally:
        _ASYNC_RUN.reset(token)


def async_stores(
    channels: Iterable[str] = (), config: Mapping[str, Any] | None = None
) -> AbstractContextManager[None]:
    """Runs made inside (by a coroutine) store through their saver's async methods, if it
    overrides them (``channels``: the graph's; ``config``: the run's)."""
    import asyncio

    configurable = (config or {}).get("configurable")
    return _storing(AsyncStores(asyncio.get_running_loop(), tuple(channels), configurable))


def stores_on_loop(
    channels: Iterable[str], config: Mapping[str, Any]
) -> AbstractContextManager[None]:
    """For work a coroutine hands to a worker thread (``aupdate_state``): what it stores
    through a saver's own ``aput``/``aput_writes`` is awaited on the running loop, each
    store at once (the worker waits for it)."""
    import asyncio

    loop = asyncio.get_running_loop()
    return _storing(AsyncStores(loop, tuple(channels), config.get("configurable"), True))


def overrides_async(saver: BaseCheckpointSaver) -> bool:
    """Whether ``saver``'s class has its own ``aput`` or ``aput_writes``."""
    kind = type(saver)
    return kind.aput is not _BASE_PUT or kind.aput_writes is not _BASE_WRITES


def face_of(saver: BaseCheckpointSaver) -> BaseCheckpointSaver:
    """What a run made now records itself through: ``saver``, an :class:`AsyncFace`, or
    (a saver overriding LangGraph's sync write methods) a ``LangGraphFace`` (see the
    module docstring and ``persist._sync_face``)."""
    from sgdebug.runtime.persist._sync_face import LangGraphFace, langgraph_style

    stores = _ASYNC_RUN.get()
    reads = None
    if isinstance(saver, AsyncFace):  # (a run inside an async run's task: a subgraph's)
        reads = saver
        if stores is None:
            stores = _subgraph_node_stores(saver)
        saver = saver.inner
    elif isinstance(saver, LangGraphFace):  # (a run inside a sync run's task)
        saver = saver.inner
    if stores is not None and overrides_async(saver):
        return AsyncFace(saver, stores, reads=reads)
    if langgraph_style(saver):
        return LangGraphFace(saver)
    return saver


def _subgraph_node_stores(parent: AsyncFace) -> AsyncStores | None:
    """For a sync run made in a task of an async run whose face is ``parent``: when the
    task's node is a subgraph (a node that is a compiled graph, run on a worker thread),
    its stores are awaited on the parent's loop at once, as LangGraph runs such a node
    with ``ainvoke``; ``None`` for a graph a node's own function runs (LangGraph runs a
    sync node's ``sub.invoke()`` with the saver's sync methods)."""
    from sgdebug.runtime.engine._context import SCOPE

    scope = SCOPE.get()
    while scope is not None and scope.task is None:
        scope = scope.outer
    node = None if scope is None or scope.task is None else scope.task.node
    if node is None or node.subgraph is None:
        return None
    sub = node.subgraph
    return replace(parent.stores, channels=tuple(sub.channel_specs), at_once=True)


class AsyncFace(SaverFace):
    """Holds one run's stores for a saver with its own ``aput``/``aput_writes``."""

    def __init__(
        self,
        inner: BaseCheckpointSaver,
        stores: AsyncStores,
        *,
        reads: BaseCheckpointSaver | None = None,
    ) -> None:
        super().__init__(inner)
        self.reads = reads or inner
        """Where what this face does not hold is read: the saver, or the face of the run
        whose task this run is in."""
        self.stores = stores
        self._queue: list[Callable[[], Awaitable[Any]]] = []
        self._records: dict[tuple[str, str], CheckpointRecord] = {}
        self._blobs: dict[str, Blob] = {}
        self.failed: Exception | None = None
        """What a store awaited at once failed with (it is raised later: see :meth:`_hold`)."""

    async def drain(self) -> None:
        """Await every store held so far, in order; on a failure the rest are dropped."""
        queue = self._queue
        try:
            while queue:
                await queue.pop(0)()
        except Exception as exc:
            self.failed = exc  # (held for reads: see :meth:`_hold`)
            raise
        finally:
            queue.clear()
            if self.failed is None:
                self._records.clear()
                self._blobs.clear()

    def _hold(self, store: Callable[[], Awaitable[Any]]) -> None:
        """Keep ``store`` for :meth:`drain`; on a worker thread, await it on the loop now."""
        loop = self.stores.loop
        if self.failed is not None and isinstance(store, partial) and store.func == self._aput:
            raise self.failed  # (LangGraph puts a checkpoint after the one before it)
        if not self.stores.at_once:
            self._queue.append(store)
            return
        import asyncio

        if asyncio._get_running_loop() is loop:  # (waiting here would hang the loop)
            raise RuntimeError("a store awaited at once cannot be made on its loop's thread")
        try:
            asyncio.run_coroutine_threadsafe(_awaited(store), loop).result()
        except Exception as exc:
            # LangGraph stores in the background while the next step runs: the step runs
            # all the same (reading what failed to store, held here from now on), an
            # interrupt in it wins (the failure is dropped), else the failure ends the run
            # at its next checkpoint or at its end (:meth:`raise_failed`)
            self.failed = exc
            return
        finally:
            if self.failed is None:  # (what failed to store stays readable for the run)
                self._records.clear()
                self._blobs.clear()

    def raise_failed(self) -> None:
        """Raise what failed to store (a run that ends without stopping at an interrupt)."""
        if self.failed is not None:
            raise self.failed

    # -- stores: held --------------------------------------------------------------------

    def put(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites] = (),
        new_versions: Mapping[str, Any] | None = None,
    ) -> None:
        previous = self.get_record(record.thread_id, record.parent_id) if record.parent_id else None
        self._records[(record.thread_id, record.id)] = record
        self._blobs.update(blobs)
        self._hold(partial(self._aput, record, blobs, tuple(writes), previous))

    def put_writes(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite] = (), *_: Any
    ) -> None:
        for offer in writes_offers(thread_id, checkpoint_id, writes, self.stores.configurable):
            self._hold(partial(self.inner.aput_writes, *offer))

    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        held = self._records.get((thread_id, checkpoint_id))
        if held is not None:
            self._records[(thread_id, checkpoint_id)] = held.with_seen(key, seen)
        self._hold(partial(self._aseen, thread_id, checkpoint_id, key, dict(seen)))

    async def _aput(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites],
        previous: CheckpointRecord | None,
    ) -> None:
        stores = self.stores
        if writes:  # (recorded against the parent: a put with writes has one)
            pending = task_batches(self.inner, record, writes)
            assert record.parent_id is not None
            for offer in writes_offers(
                record.thread_id, record.parent_id, pending, stores.configurable
            ):
                await self.inner.aput_writes(*offer)
        run = (stores.channels, stores.configurable)
        await self.inner.aput(*checkpoint_offer(self, record, blobs, previous, run))

    async def _aseen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        self.inner.update_seen(thread_id, checkpoint_id, key, seen)

    # -- reads: what is held first, then the inner saver ----------------------------------

    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        if checkpoint_id is None:
            held = [r for (t, _), r in self._records.items() if t == thread_id]
            if held:
                return held[-1]
            return self.reads.get_record(thread_id)
        found = self._records.get((thread_id, checkpoint_id))
        return found if found is not None else self.reads.get_record(thread_id, checkpoint_id)

    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        held = [r for (t, _), r in self._records.items() if t == thread_id]
        yield from reversed(held)
        yield from self.reads.list_records(thread_id)

    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        held = self._blobs.get(blob_id)
        return held if held is not None else self.reads.get_blob(thread_id, blob_id)

    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        return self.reads.get_writes(thread_id, checkpoint_id)


async def _awaited(store: Callable[[], Awaitable[Any]]) -> Any:
    return await store()
