"""Saving a run's checkpoints and reading them back: blobs with append-deltas, pending writes."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sgdebug.runtime._constants import INTERRUPT
from sgdebug.runtime.channels import MISSING, BinaryOperatorAggregate
from sgdebug.runtime.checkpoint.base import (
    GONE,
    BaseCheckpointSaver,
    Blob,
    CheckpointId,
    CheckpointRecord,
    PendingWrite,
    SaveEntry,
    Source,
    TaskWrites,
    build_record,
    id_text,
)
from sgdebug.runtime.checkpoint.base import task_id as make_task_id
from sgdebug.runtime.engine._journal import Mutation

if TYPE_CHECKING:
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.engine._task import Task

ERROR = "__error__"
RESUME = "__resume__"
NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""Task id of writes that belong to the checkpoint, not a task (a bare resume value)."""
_ATOMS = frozenset((int, float, bool, type(None)))
_NOTHING: frozenset[str] = frozenset()
_new = tuple.__new__
"""Builds a NamedTuple from a tuple of all its fields: its own constructor is a Python
function, and saving makes several per superstep."""
_NO_WRITES = (("__no_writes__", None),)
MAX_DELTA_DEPTH = 48
"""A delta chain longer than this is cut by storing the value whole again."""


@dataclass(slots=True)
class Shadow:
    """What was last stored for one channel.

    Appends to a list or string are stored as deltas arranged like a Fenwick tree: the
    k-th append since a whole value is stored relative to append ``k & (k - 1)``, so a value
    is rebuilt from at most log2(k) deltas while storage stays O(n log n) items for n
    appends (never a full copy per step, never a long chain).
    """

    value: Any
    """A copy of the stored value's containers."""
    chain: list[Any]
    """(blob id, length, depth) of the whole value and each append stored since; while
    ``shared``, only the id of the checkpoint that stored the latest version."""
    obj: Any = MISSING
    """The channel's value object when it was stored (to spot a fold that appended to it)."""
    shared: bool = False
    """``value`` is a list of immutable scalars the saver keeps a reference to (its stored
    versions are prefixes of it): it may only be appended to from now on."""


class Persistence:  # implements engine._journal.Journal
    """Connects a :class:`Run` to a checkpointer for one thread."""

    def __init__(self, saver: BaseCheckpointSaver, thread_id: str) -> None:
        self.saver = saver
        self.thread_id = thread_id
        self._record: CheckpointRecord | None = None
        self.head: CheckpointId | None = None
        """Id of the checkpoint the run is at, as the saver made it (``None`` before the
        first save; see :attr:`head_id` for its text)."""
        self.head_top = 0
        """The highest channel version it was saved with."""
        self.head_applies = -1
        """``run.applies`` when it was saved (-1: loaded, not saved by this run)."""
        self.shadow: dict[str, Shadow] = {}
        """Channel → what was last stored for it (for deltas and mutation checks)."""
        self.atoms: dict[str, Any] = {}
        """Channel → the number, bool or ``None`` stored for it last (not stored again)."""
        self.mutated: set[str] = set()
        """Channels found changed in place since the last save (stored again by it)."""
        self.intact: set[str] = set()
        """Appended-to channels whose earlier items this step's check found unchanged."""
        self.mutations: list[Mutation] = []
        self.reported: set[tuple[int, str, bool]] = set()
        """(step, channel, written) of every mutation reported."""
        self.pending: list[TaskWrites] = []
        """Writes of finished tasks not stored yet: the next save stores them with its
        checkpoint, in one call (see :meth:`task_done`)."""
        self._metadata: tuple[Any, Mapping[str, Any]] = (None, {})
        self._raw, self._encode = saver.raw_types, saver.encode

    # -- saving ----------------------------------------------------------------------------

    def save(
        self,
        run: RunState,
        source: Source,
        step: int | None = None,
        *,
        parent: str | None = "",
        moved: Iterable[str] | None = None,
    ) -> CheckpointRecord | None:
        """Store the run's current channels as a new checkpoint.

        ``moved``: the channels whose version the run's last application of writes moved
        (a commit's); used when nothing else was applied since the last save.

        Returns the record, or ``None`` when the saver journals (:attr:`record` then builds
        it on demand): a run saves every superstep and seldom looks back.
        """
        saver = self.saver
        checkpoint_id = saver.new_id()
        prev_id = self.head
        channels = run.channels
        if prev_id is None:
            changed: Iterable[str] = channels
        else:
            # Only channels whose version moved can hold a new value; every version a run
            # gives out is above those it gave out before.
            top = self.head_top
            mutated = self.mutated
            if mutated:
                changed = [k for k, v in run.versions.items() if v > top or k in mutated]
                self.mutated = set()
            elif moved is not None and run.applies == self.head_applies + 1:
                changed = moved
            else:
                changed = [k for k, v in run.versions.items() if v > top]
        intact, atoms, shadows = self.intact, self.atoms, self.shadow
        encode, raw = self._encode, self._raw
        changes: list[tuple[str, Any]] = []
        for key in changed:
            channel = channels[key]
            value = channel.checkpoint()
            kind = type(value)
            if kind in _ATOMS:  # no deltas, cannot be changed in place
                if atoms.get(key, MISSING) is value:
                    continue  # the blob stored last holds this very value: keep pointing at it
                atoms[key] = value
                if shadows and key in shadows:
                    del shadows[key]
                changes.append((key, value if kind in raw else encode(value, key)))
                continue
            if key in intact and kind is list:
                # The step appended to the list the saver shares (see _blob); one scalar
                # appended is the usual step, handled here.
                shadow = shadows[key]
                master = shadow.value
                size = len(master)
                if shadow.shared and len(value) == size + 1 and type(value[size]) in _SHAREABLE:
                    master.append(value[size])
                    shadow.obj = value
                    shadow.chain[0] = checkpoint_id
                    changes.append((key, saver.share_list(master, size + 1)))
                    continue
            if key in atoms:
                del atoms[key]
            if value is MISSING:
                if prev_id is not None:
                    changes.append((key, GONE))
                shadows.pop(key, None)
            else:
                changes.append((key, self._blob(key, value, checkpoint_id, key in intact)))
        if intact:
            self.intact = set()
        versions = dict(run.versions)
        pending: Sequence[TaskWrites] = self.pending
        parent_id = prev_id if parent == "" else parent
        if not pending:
            pending = ()  # (not the list: finished tasks of the next step go there)
        elif prev_id is None or parent_id != prev_id:
            self.flush()  # they belong to a checkpoint that is not this one's parent
            pending = ()
        else:
            self.pending = []
        entry: SaveEntry = _new(
            SaveEntry,
            (
                self.thread_id,
                checkpoint_id,
                parent_id,
                prev_id,
                run.step if step is None else step,
                source,
                saver.now(),
                versions,
                changes,
                # A run replaces (never changes) a node's seen versions: they can be shared.
                dict(run.versions_seen),
                self._metadata[1]
                if self._metadata[0] is None and "metadata" not in run.options.config
                else self._user_metadata(run),
                pending,
            ),
        )
        record: CheckpointRecord | None = None
        if saver.journals:
            saver.journal.append(entry)
        else:
            base = self._record
            record, blobs = build_record(entry, base.blobs if base is not None else {})
            try:
                saver.put(record, blobs, pending)
            except BaseException:
                if pending:
                    self.pending = list(pending)
                    self.flush()
                raise
        self._record = record
        self.head = checkpoint_id
        self.head_top = run.max_version
        self.head_applies = run.applies
        emit = run.options.emit
        if emit is not None and emit.wants_checkpoints:
            saved = self.record
            assert saved is not None
            emit.checkpoint(self._event(run, saved), saved.step)
        return record

    def save_record(
        self, run: RunState, source: Source, step: int | None = None, *, parent: str | None = ""
    ) -> CheckpointRecord:
        """:meth:`save`, returning the stored record."""
        self.save(run, source, step, parent=parent)
        record = self.record
        assert record is not None
        return record

    @property
    def head_id(self) -> str | None:
        """The text of :attr:`head`."""
        return None if self.head is None else id_text(self.head)

    @property
    def record(self) -> CheckpointRecord | None:
        """The checkpoint the run is at (its last save, or the one it was loaded from)."""
        record = self._record
        if record is None and self.head is not None:
            record = self._record = self.saver.get_record(self.thread_id, id_text(self.head))
        return record

    def emit_resumed(self, run: RunState) -> None:
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

    def _event(self, run: RunState, record: CheckpointRecord) -> dict[str, Any]:

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

    def _user_metadata(self, run: RunState) -> Mapping[str, Any]:
        """A copy of the run's ``config["metadata"]``, made again only when it changed."""
        given = run.options.config.get("metadata")
        cached_for, copy = self._metadata
        if given is not cached_for or (given is not None and copy != given):
            copy = dict(given or {})
            self._metadata = (given, copy)
        return copy

    def _blob(self, key: str, value: Any, checkpoint_id: CheckpointId, intact: bool = False) -> Any:
        """What to store for ``value``: a :class:`Blob` appending to the last one stored when
        it extends it, else the value's stored data.

        ``intact`` says :meth:`check_mutations` found the value to be the last stored one
        with this step's writes appended (no need to compare the whole list again).
        """
        saver = self.saver
        shadow = self.shadow.get(key)
        if (
            shadow is not None
            and shadow.shared
            and type(value) is list
            and (intact or _extends(value, shadow.value))
        ):
            master = shadow.value
            added = value[len(master) :]
            if (len(added) == 1 and type(added[0]) in _SHAREABLE) or _SHAREABLE.issuperset(
                map(type, added)
            ):
                # One copy for every version: the stored value is a prefix of it.
                master.extend(added)
                shadow.obj = value
                shadow.chain[0] = checkpoint_id  # (its blob id is made when needed)
                data = saver.share_list(master, len(value))
                assert data is not None  # ``shared`` is only set when the saver shares
                return data
            # Items that can change: later versions are stored as deltas on the shared one,
            # since a caller reading them must get copies of those items.
            shadow.shared = False
            shadow.chain = [(f"{id_text(shadow.chain[0])}:{key}", len(master), 0)]
        encode = saver.encode
        blob_id = f"{id_text(checkpoint_id)}:{key}"  # as build_record names it
        kind: Literal["list", "str"] | None = (
            "list" if type(value) is list else "str" if type(value) is str else None
        )
        if shadow is not None and kind is not None and (intact or _extends(value, shadow.value)):
            chain = shadow.chain
            k = len(chain)
            base_id, base_len, base_depth = chain[k & (k - 1)]
            if base_depth < MAX_DELTA_DEPTH:
                blob = Blob(encode(value[base_len:], key), base_id, kind, base_depth + 1)
                chain.append((blob_id, len(value), blob.depth))
                if kind == "list":  # copy only what was appended
                    added = value[len(shadow.value) :]
                    if not _NESTED_SET.isdisjoint(map(type, added)):
                        added = _shadow_copy(added)
                    shadow.value.extend(added)
                else:
                    shadow.value = value
                shadow.obj = value
                return blob
        copy = _shadow_copy(value)
        chain = [(blob_id, _length(value), 0)]
        if kind == "list" and _SHAREABLE.issuperset(map(type, copy)):
            data = saver.share_list(copy, len(copy))
            if data is not None:
                self.shadow[key] = Shadow(copy, [checkpoint_id], value, shared=True)
                return data
        self.shadow[key] = Shadow(copy, chain, value)
        return encode(value, key)

    def check_mutations(
        self, run: RunState, tasks: Sequence[Task], *, committed: bool = True
    ) -> None:
        """Find channels the step changed in place and report them (see :class:`Mutation`).

        Called after the step's commit, and (``committed=False``) when a task failed, so a
        change made by a node before it raised is reported although nothing was written.
        """
        updated = (run.updated or _NOTHING) if committed else _NOTHING
        channels, intact = run.channels, self.intact
        for key, shadow in self.shadow.items():
            old = shadow.value
            if type(old) not in _NESTED_SET:  # (a shadow copies only these containers)
                continue
            channel = channels.get(key)  # (a checkpoint may hold a channel the graph lost)
            if channel is None:
                continue
            if key in updated:
                if not (
                    # The commit built the list as ``stored object + writes``.
                    type(channel) is BinaryOperatorAggregate
                    and channel.folded_from is shadow.obj
                    and type(channel.value) is list
                    and channel.operator is operator.add
                ):
                    continue  # replaced by its writes: an earlier in-place change is gone
                # ``old + writes`` was computed from the stored object: if that object no
                # longer equals what was stored, a node changed it before the commit.
                if shadow.obj == old:
                    intact.add(key)
                    continue
            else:
                value = channel.checkpoint()
                if value is MISSING or value == old:
                    continue
            self.mutated.add(key)
            found = (run.step, key, key in updated)
            if found in self.reported:
                continue
            self.reported.add(found)
            readers = tuple(t.name for t in tasks if _reads(t, key))
            self.mutations.append(Mutation(run.step, key, readers, key in updated))

    def task_done(self, task: Task, *, defer: bool = False) -> None:
        """Record a finished, failed or interrupted task against the current checkpoint.

        With ``defer``, a finished task's writes wait in :attr:`pending` and the next
        :meth:`save` stores them with its checkpoint in one saver call; a run defers only
        when nothing can look at the saver before that save (no hooks, no stream), and calls
        :meth:`flush` on every way out of a step that does not end in a save.
        """
        if self.head is None:
            return
        if defer and task.error is None and not task.interrupts:
            self.defer(task)
            return
        self.flush()
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
        self.saver.put_writes(self.thread_id, id_text(self.head), writes)

    def defer(self, task: Task) -> None:
        """Keep the writes of ``task`` (finished, and not failed or interrupted) for the next
        :meth:`save` (see :meth:`task_done`)."""
        if self.head is None:
            return
        raw, encode = self._raw, self._encode
        encoded: list[tuple[str, Any]] = []
        for write in task.writes or _NO_WRITES:  # (a loop: cheaper than a comprehension here)
            key, value = write
            encoded.append(write if type(value) in raw else (key, encode(value, key)))
        self.pending.append(_new(TaskWrites, (task.name, task.path, encoded)))

    def flush(self) -> None:
        """Store the deferred writes of finished tasks now (the step will not be saved)."""
        pending, self.pending = self.pending, []
        checkpoint_id = self.head_id
        if not pending or checkpoint_id is None:
            return
        saver = self.saver
        for batch in pending:
            task_id = make_task_id(checkpoint_id, batch.path)
            writes = [
                PendingWrite(task_id, batch.task_name, batch.path, k, saver.decode(v))
                for k, v in batch.writes
            ]
            saver.put_writes(self.thread_id, checkpoint_id, writes)

    def mark_interrupt(self, run: RunState) -> None:
        """Remember the channel versions at a static breakpoint (it fires once per change)."""
        seen = dict(run.versions)
        run.versions_seen[INTERRUPT] = seen
        if self.head_id is not None:
            self.saver.update_seen(self.thread_id, self.head_id, INTERRUPT, seen)

    # -- loading ---------------------------------------------------------------------------

    def load(self, record: CheckpointRecord) -> dict[str, Any]:
        """The channel values of ``record``; also primes the delta shadows."""
        values: dict[str, Any] = {}
        for key, blob_id in record.blobs.items():
            value, depth = load_value(self.saver, self.thread_id, blob_id)
            read = as_langgraph_reads(value)
            chain = [(blob_id, _length(value), depth)]
            self.shadow[key] = Shadow(_shadow_copy(value), chain, read)
            values[key] = read
        self._record = record
        self.head = record.id
        self.head_top = max(record.versions.values(), default=0)
        self.head_applies = -1
        return values

    def task_id(self, path: tuple[Any, ...]) -> str:
        """Deterministic task ids, so writes recorded for a task match it when re-planned."""
        return make_task_id(self.head if self.head is not None else "none", path)


def _stream_config(record: CheckpointRecord) -> dict[str, Any]:
    # LangGraph's checkpoint stream payloads list the keys in this order.
    configurable = {"checkpoint_ns": "", "thread_id": record.thread_id, "checkpoint_id": record.id}
    return {"configurable": configurable}


def load_value(saver: BaseCheckpointSaver, thread_id: str, blob_id: str) -> tuple[Any, int]:
    """Decode a blob, following its append chain back to a whole value."""
    from sgdebug.runtime.checkpoint.serde import DeserializationError
    from sgdebug.runtime.checkpoint.sqlite import CorruptCheckpointError

    try:
        return _load_value(saver, thread_id, blob_id)
    except DeserializationError as exc:
        raise CorruptCheckpointError(
            f"cannot decode value blob {blob_id} of thread {thread_id}: {exc}"
        ) from exc


def _load_value(saver: BaseCheckpointSaver, thread_id: str, blob_id: str) -> tuple[Any, int]:
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


def _extends(value: Any, old: Any) -> bool:
    """Whether ``value`` is ``old`` with items (or characters) appended."""
    if type(value) is not type(old) or len(value) < len(old):
        return False
    if type(value) is str:
        return bool(value.startswith(old))
    return bool(value[: len(old)] == old)


def _length(value: Any) -> int:
    return len(value) if type(value) in (list, str) else 0


SHADOW_BUDGET = 10_000
"""Containers copied per shadow; past it, deeper containers are shared (not checked)."""


def _shadow_copy(value: Any) -> Any:
    """A copy of the containers of ``value`` (leaves shared), to spot in-place changes.

    Nested lists, dicts and sets are copied too (so ``state['d']['items'].append(x)`` is
    seen), up to :data:`SHADOW_BUDGET` containers; objects such as dataclass instances are
    shared, so a change inside one is not detected.
    """
    budget = [SHADOW_BUDGET]
    return _copy_containers(value, budget)


def _copy_containers(value: Any, budget: list[int]) -> Any:
    kind = type(value)
    if kind not in (list, dict, set) or budget[0] <= 0:
        return value
    budget[0] -= 1
    if kind is list:
        return [_copy_containers(v, budget) if type(v) in _NESTED else v for v in value]
    if kind is dict:
        return {
            k: _copy_containers(v, budget) if type(v) in _NESTED else v for k, v in value.items()
        }
    return set(value)


_NESTED = (list, dict, set)
_NESTED_SET = frozenset(_NESTED)
_SHAREABLE = frozenset((int, float, str, bool, type(None)))
"""Items an append-only list may hold to be shared with the saver: nothing can change them."""


def _reads(task: Task, key: str) -> bool:
    return key in task.node.reader.keys or task.send


def pending_by_task(writes: Sequence[PendingWrite]) -> dict[str, list[PendingWrite]]:
    """Pending writes grouped by task id, in recorded order."""
    out: dict[str, list[PendingWrite]] = {}
    for write in writes:
        out.setdefault(write.task_id, []).append(write)
    return out
