"""Saving a run's checkpoints and reading them back: blobs with append-deltas, pending writes."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT
from sgdebug.runtime.channels import MISSING
from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    Source,
)

if TYPE_CHECKING:
    from sgdebug.runtime._run import Run, Task

ERROR = "__error__"
RESUME = "__resume__"
NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""Task id of writes that belong to the checkpoint, not a task (a bare resume value)."""
MAX_DELTA_DEPTH = 64
"""A value is stored whole again after this many appends, so restoring stays fast."""


@dataclass(frozen=True, slots=True)
class Mutation:
    """A channel whose value changed in place during a step, without a write."""

    step: int
    """The superstep in which it happened."""
    channel: str
    """The channel whose value was mutated."""
    tasks: tuple[str, ...]
    """The nodes of that step that received the value (one of them did it)."""


class Persistence:
    """Connects a :class:`Run` to a checkpointer for one thread."""

    def __init__(self, saver: BaseCheckpointSaver, thread_id: str) -> None:
        self.saver = saver
        self.thread_id = thread_id
        self.record: CheckpointRecord | None = None
        self.shadow: dict[str, tuple[str, Any, int]] = {}
        """Channel → (blob id, a copy of the stored value, delta depth)."""
        self.mutations: list[Mutation] = []

    # -- saving ----------------------------------------------------------------------------

    def save(
        self, run: Run, source: Source, step: int | None = None, *, parent: str | None = ""
    ) -> CheckpointRecord:
        """Store the run's current channels as a new checkpoint."""
        saver = self.saver
        checkpoint_id = saver.new_id()
        new_blobs: dict[str, Blob] = {}
        prev = self.record
        if prev is None:
            blob_ids: dict[str, str] = {}
            changed: Iterable[str] = run.channels
            prev_seen: Mapping[str, Mapping[str, int]] = {}
        else:
            # Only channels whose version moved can hold a new value.
            blob_ids = dict(prev.blobs)
            old = prev.versions
            changed = [k for k, v in run.versions.items() if old.get(k) != v]
            prev_seen = prev.versions_seen
        for key in changed:
            value = run.channels[key].checkpoint()
            if value is MISSING:
                blob_ids.pop(key, None)
                continue
            blob_id = f"{checkpoint_id}:{key}"
            new_blobs[blob_id] = self._blob(key, value, blob_id)
            blob_ids[key] = blob_id
        seen = {
            k: p if (p := prev_seen.get(k)) == v else dict(v) for k, v in run.versions_seen.items()
        }
        record = CheckpointRecord(
            thread_id=self.thread_id,
            id=checkpoint_id,
            parent_id=(self.record.id if self.record is not None else None)
            if parent == ""
            else parent,
            step=run.step if step is None else step,
            source=source,
            created_at=saver.now(),
            versions=dict(run.versions),
            blobs=blob_ids,
            versions_seen=seen,
            user_metadata=dict(run.options.config.get("metadata") or {}),
        )
        saver.put(record, new_blobs)
        self.record = record
        emit = run.options.emit
        if emit is not None and emit.wants_checkpoints:
            emit.checkpoint(self._event(run, record), record.step)
        return record

    def emit_resumed(self, run: Run) -> None:
        """A resumed run re-emits the checkpoint it starts from (checkpoints / debug)."""
        emit = run.options.emit
        record = self.record
        if emit is None or not emit.wants_checkpoints or record is None:
            return
        event = self._event(run, record)
        raised = {
            w.task_id: tuple(
                {"value": i.value, "id": i.id, "response_schema": i.response_schema}
                for i in w.value
            )
            for w in self.saver.get_writes(self.thread_id, record.id)
            if w.channel == INTERRUPT
        }
        for task in event["tasks"]:
            task["interrupts"] = raised.get(task["id"], ())
        parent = event["parent_config"]
        if parent is not None:
            conf = parent["configurable"]
            parent["configurable"] = {
                "thread_id": conf["thread_id"],
                "checkpoint_ns": "",
                "checkpoint_id": conf["checkpoint_id"],
            }
        emit.checkpoint(event, record.step)

    def _event(self, run: Run, record: CheckpointRecord) -> dict[str, Any]:

        tasks = run.next_tasks()
        parent = (
            self.saver.get_record(self.thread_id, record.parent_id) if record.parent_id else None
        )
        return {
            "config": _stream_config(record),
            "parent_config": _stream_config(parent) if parent is not None else None,
            "values": run.read_values(run.graph.stream_keys),
            "metadata": record.metadata,
            "next": [t.name for t in tasks],
            "tasks": [{"id": t.id, "name": t.name, "interrupts": (), "state": None} for t in tasks],
        }

    def _blob(self, key: str, value: Any, blob_id: str) -> Blob:
        encode = self.saver.encode
        prev = self.shadow.get(key)
        blob: Blob | None = None
        if prev is not None and prev[2] < MAX_DELTA_DEPTH:
            base_id, old, depth = prev
            if type(value) is list and type(old) is list and len(value) >= len(old):
                if value[: len(old)] == old:
                    blob = Blob(encode(value[len(old) :], key), base_id, "list", depth + 1)
            elif type(value) is str and type(old) is str and value.startswith(old):
                blob = Blob(encode(value[len(old) :], key), base_id, "str", depth + 1)
        if blob is None:
            blob = Blob(encode(value, key))
        self.shadow[key] = (blob_id, _shadow_copy(value), blob.depth)
        return blob

    def check_mutations(self, run: Run, tasks: Sequence[Task]) -> None:
        """Find channels a step changed in place (their value differs from what was stored)."""
        updated = run.updated or set()
        for key, (_, old, _depth) in self.shadow.items():
            if key in updated or not isinstance(old, list | dict | set):
                continue
            channel = run.channels.get(key)
            if channel is None:
                continue
            value = channel.checkpoint()
            if value is not MISSING and value != old:
                readers = tuple(t.name for t in tasks if _reads(t, key))
                self.mutations.append(Mutation(run.step - 1, key, readers))

    def task_done(self, task: Task) -> None:
        """Record a finished, failed or interrupted task against the current checkpoint."""
        if self.record is None:
            return
        path = task.path
        if task.error is not None:
            writes = [PendingWrite(task.id, task.name, path, ERROR, repr(task.error))]
        elif task.interrupts:
            writes = [PendingWrite(task.id, task.name, path, INTERRUPT, list(task.interrupts))]
            if task.resume:
                writes.append(PendingWrite(task.id, task.name, path, RESUME, list(task.resume)))
        else:
            writes = [PendingWrite(task.id, task.name, path, k, v) for k, v in task.writes]
        if not writes:
            writes = [PendingWrite(task.id, task.name, path, "__no_writes__", None)]
        self.saver.put_writes(self.thread_id, self.record.id, writes)

    def mark_interrupt(self, run: Run) -> None:
        """Remember the channel versions at a static breakpoint (it fires once per change)."""
        seen = dict(run.versions)
        run.versions_seen[INTERRUPT] = seen
        if self.record is not None:
            self.saver.update_seen(self.thread_id, self.record.id, INTERRUPT, seen)

    # -- loading ---------------------------------------------------------------------------

    def load(self, record: CheckpointRecord) -> dict[str, Any]:
        """The channel values of ``record``; also primes the delta shadows."""
        values: dict[str, Any] = {}
        for key, blob_id in record.blobs.items():
            value, depth = load_value(self.saver, self.thread_id, blob_id)
            self.shadow[key] = (blob_id, _shadow_copy(value), depth)
            values[key] = as_langgraph_reads(value)
        self.record = record
        return values

    def task_id(self, path: tuple[Any, ...]) -> str:
        """Deterministic task ids, so writes recorded for a task match it when re-planned."""
        base = self.record.id if self.record is not None else "none"
        h = hashlib.md5(f"{base}:{path!r}".encode(), usedforsecurity=False).hexdigest()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _stream_config(record: CheckpointRecord) -> dict[str, Any]:
    # LangGraph's checkpoint stream payloads list the keys in this order.
    configurable = {"checkpoint_ns": "", "thread_id": record.thread_id, "checkpoint_id": record.id}
    return {"configurable": configurable}


def load_value(saver: BaseCheckpointSaver, thread_id: str, blob_id: str) -> tuple[Any, int]:
    """Decode a blob, following its append chain back to a whole value."""
    chain: list[Blob] = []
    blob = saver.get_blob(thread_id, blob_id)
    depth = blob.depth
    while blob.base is not None:
        chain.append(blob)
        blob = saver.get_blob(thread_id, blob.base)
    value = saver.decode(blob.data)
    if chain:
        if isinstance(value, list):
            value = list(value)
            for delta in reversed(chain):
                value.extend(saver.decode(delta.data))
        else:
            value = value + "".join(saver.decode(d.data) for d in reversed(chain))
    return value, depth


def as_langgraph_reads(value: Any) -> Any:
    """The value as LangGraph hands it back from a checkpointer: plain tuples become lists.

    sgdebug stores tuples faithfully; only what a resumed run (and ``get_state``) sees is
    converted, so programs behave as they do on LangGraph.
    """
    if type(value) is tuple:
        return [as_langgraph_reads(v) for v in value]
    if type(value) is list:
        if any(type(v) in (tuple, list, dict) for v in value):
            return [as_langgraph_reads(v) for v in value]
        return value
    if type(value) is dict:
        if any(type(v) in (tuple, list, dict) for v in value.values()):
            return {k: as_langgraph_reads(v) for k, v in value.items()}
        return value
    return value


def _shadow_copy(value: Any) -> Any:
    if isinstance(value, list | dict | set):
        return copy.copy(value)
    return value


def _reads(task: Task, key: str) -> bool:
    return key in task.node.reader.keys or task.send


def pending_by_task(writes: Sequence[PendingWrite]) -> dict[str, list[PendingWrite]]:
    """Pending writes grouped by task id, in recorded order."""
    out: dict[str, list[PendingWrite]] = {}
    for write in writes:
        out.setdefault(write.task_id, []).append(write)
    return out


def values_of(record: CheckpointRecord, values: Mapping[str, Any]) -> dict[str, Any]:
    """Only the values a record stores (for tests and inspection)."""
    return {k: values[k] for k in record.blobs if k in values}
