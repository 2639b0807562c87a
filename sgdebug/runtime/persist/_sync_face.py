"""A run's saver when the user's saver overrides LangGraph's sync write API.

A checkpointer written against LangGraph's ``BaseCheckpointSaver`` overrides
``put(config, checkpoint, metadata, new_versions)`` or ``put_writes(config, writes,
task_id, task_path)`` (to log, to check, to fail...) and calls the base class's to store.
sgdebug's savers name their own write methods the same, with other parameters, so such a
saver is told apart by the first parameter of its method (``config``, where sgdebug's
take a ``thread_id`` or a ``record``): a run records itself through a
:class:`LangGraphFace` then, which calls those methods as LangGraph's loop does, one
``put_writes`` per finished task and one ``put`` per checkpoint, with LangGraph's
arguments (``persist._offers``). sgdebug's savers accept both calls, so the override's
``super().put(...)`` stores what the run made.

The face stores at once (nothing is held), and its saver does not journal: its ``put`` is
called for every checkpoint. Other savers are used as they are, at the cost of one look
per run at the saver's class (the answer is kept per class).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    TaskWrites,
)
from sgdebug.runtime.persist._face import SaverFace
from sgdebug.runtime.persist._offers import checkpoint_offer, task_batches, writes_offers

__all__ = ["LangGraphFace", "describe_run", "langgraph_style"]

_STYLE: dict[type, bool] = {}
"""Per saver class, whether it overrides ``put`` or ``put_writes`` LangGraph's way."""


def langgraph_style(saver: BaseCheckpointSaver) -> bool:
    """Whether ``saver``'s ``put`` or ``put_writes`` takes LangGraph's arguments."""
    kind = type(saver)
    found = _STYLE.get(kind)
    if found is None:
        found = _STYLE[kind] = _takes_config(kind.put) or _takes_config(kind.put_writes)
    return found


def describe_run(saver: BaseCheckpointSaver, channels: Any, config: Mapping[str, Any]) -> None:
    """Tell ``saver``, when it is a run's :class:`LangGraphFace`, the graph's channels (in
    order) and the run's config (what ``put`` receives follows them)."""
    if type(saver) is LangGraphFace:
        saver.run = (tuple(channels), config.get("configurable"))


def _takes_config(method: Any) -> bool:
    import inspect

    try:
        names = list(inspect.signature(method).parameters)
    except (TypeError, ValueError):
        return False
    return names[1:2] == ["config"]


class LangGraphFace(SaverFace):
    """Stores one run's checkpoints and writes through LangGraph-style overrides."""

    def __init__(self, inner: BaseCheckpointSaver) -> None:
        super().__init__(inner)
        self._blobs: Mapping[str, Blob] = {}
        """The blobs of the checkpoint being handed over (its values are read from them)."""
        self.run: tuple[Sequence[str], Mapping[str, Any] | None] = ((), None)
        """The graph's channels in order and the run's ``configurable`` (see
        :func:`describe_run`)."""

    def put(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites] = (),
        new_versions: Mapping[str, Any] | None = None,
    ) -> None:
        inner: Any = self.inner
        if writes:
            assert record.parent_id is not None
            pending = task_batches(inner, record, writes)
            for offer in writes_offers(record.thread_id, record.parent_id, pending, self.run[1]):
                inner.put_writes(*offer)
        parent = record.parent_id
        previous = None if parent is None else inner.get_record(record.thread_id, parent)
        self._blobs = blobs
        try:
            inner.put(*checkpoint_offer(self, record, blobs, previous, self.run))
        finally:
            self._blobs = {}

    def put_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        writes: Sequence[PendingWrite] = (),
        task_path: str = "",
    ) -> None:
        inner: Any = self.inner
        for offer in writes_offers(thread_id, checkpoint_id, writes, self.run[1]):
            inner.put_writes(*offer)

    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        self.inner.update_seen(thread_id, checkpoint_id, key, seen)

    # -- reads: the inner saver's ----------------------------------------------------------

    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        return self.inner.get_record(thread_id, checkpoint_id)

    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        return self.inner.list_records(thread_id)

    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        held = self._blobs.get(blob_id)
        return held if held is not None else self.inner.get_blob(thread_id, blob_id)

    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        return self.inner.get_writes(thread_id, checkpoint_id)
