"""Saving a run's checkpoints and reading them back, for one thread.

:class:`Persistence` is what a run records itself through (the engine's ``Journal``). It
decides which channels a save must look at and builds the checkpoint; the jobs it
delegates each have their module: what to store per channel, with append-deltas
(:mod:`._blobs`), finding in-place changes (:mod:`._mutations`), the buffer of finished
tasks' writes (:mod:`._pending`), stream payloads of checkpoints (:mod:`._payloads`) and
reading values back (:mod:`._load`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT
from sgdebug.runtime.checkpoint._load import as_langgraph_reads, load_value
from sgdebug.runtime.checkpoint.base import (
    BaseCheckpointSaver,
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
from sgdebug.runtime.persist._async_face import AsyncFace, face_of
from sgdebug.runtime.persist._blobs import Blobs
from sgdebug.runtime.persist._metadata import user_metadata
from sgdebug.runtime.persist._mutations import MutationCheck
from sgdebug.runtime.persist._payloads import ERROR, checkpoint_event, resumed_event
from sgdebug.runtime.persist._pending import PendingWrites
from sgdebug.runtime.persist._staged import Staged

if TYPE_CHECKING:
    from sgdebug.runtime._subgraph_runs import Replay
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.engine._task import Task

__all__ = [
    "ERROR",
    "NULL_TASK",
    "RESUME",
    "Persistence",
    "as_langgraph_reads",
    "load_value",
    "pending_by_task",
]

RESUME = "__resume__"
NULL_TASK = "00000000-0000-0000-0000-000000000000"
"""Task id of writes that belong to the checkpoint, not a task (a bare resume value)."""
_new = tuple.__new__
"""Builds a NamedTuple from a tuple of all its fields: its own constructor is a Python
function, and saving makes several per superstep."""


class Persistence:  # implements engine._journal.Journal
    """Connects a :class:`Run` to a checkpointer for one thread."""

    astore: Callable[[], Awaitable[None]] | None = None
    """Awaits the stores an :class:`AsyncFace` holds (``None``: every store is done). A
    class attribute, set on a run's only when it has a face: one more instance attribute
    costs the sync history step 0.8k x86 instructions (callgrind, benchmarks/history.py)."""

    def __init__(self, saver: BaseCheckpointSaver, thread_id: str) -> None:
        saver = face_of(saver)  # (an async run's, if the saver has its own aput: see there)
        self.saver = saver
        if isinstance(saver, AsyncFace):
            self.astore = saver.drain
        self.journals = saver.journals
        """The saver's ``journals``, read once (a class attribute is read the slow way)."""
        self.thread_id = thread_id
        self._record: CheckpointRecord | None = None
        self.head: CheckpointId | None = None
        """Id of the checkpoint the run is at, as the saver made it (``None`` before the
        first save; see :attr:`head_id` for its text)."""
        self.head_top = 0
        """The highest channel version it was saved with."""
        self.head_applies = -1
        """``run.applies`` when it was saved (-1: loaded, not saved by this run)."""
        self.blobs = Blobs(saver)
        self.found = MutationCheck(self.blobs)
        self.check_mutations = self.found.check
        """Find channels the step changed in place (see :class:`MutationCheck`): the
        check itself, not a method calling it (a run calls it every step)."""
        self.pending = PendingWrites(saver, thread_id)
        self._metadata: tuple[Mapping[str, Any] | None, Mapping[str, Any]] = (None, {})
        """(the run config it was made from, what a checkpoint's metadata takes from it)."""
        self.replay: Replay | None = None
        """Where the subgraphs of a replaying root run start (shared by the runs of one
        invocation; see ``_subgraph_runs.Replay``)."""
        self.parents: dict[str, str] | None = None
        """For a subgraph's run: each enclosing level's namespace -> the checkpoint its
        task runs from (``{"": root checkpoint, ...}``), kept in its checkpoints' metadata."""
        self.staged: Staged | None = None
        """With ``durability="exit"``: the run's checkpoints and writes not stored yet."""

    @property
    def mutations(self) -> Sequence[Mutation]:
        """Values a node changed in place, found so far."""
        return self.found.mutations

    # -- saving ----------------------------------------------------------------------------

    def save(
        self,
        run: RunState,
        source: Source,
        step: int | None = None,
        moved: Iterable[str] | None = None,
        lone: Task | None = None,
        *,
        parent: str | None = "",
    ) -> CheckpointRecord | None:
        """Store the run's current channels as a new checkpoint.

        ``moved``: the channels whose version the run's last application of writes moved
        (a commit's); used when nothing else was applied since the last save. ``lone``: the
        step's one finished task, its writes not recorded yet (nothing watched the run):
        they are stored with the checkpoint, in the same saver call. (A commit passes both
        by position: a keyword argument costs a call more.)

        Returns the record, or ``None`` when the saver journals (:attr:`record` then builds
        it on demand): a run saves every superstep and seldom looks back.
        """
        if lone is not None:  # (what task_done(lone, defer=True) does)
            if self.staged is not None:
                self.task_done(lone)
            elif self.head is not None:
                self.pending.add(lone)
        options = run.options
        if options.durability == "exit" and source in ("input", "loop"):
            return self._stage(run, source, step, moved)
        if self.staged is not None and self.staged.record is not None:
            self.finish()  # (an edit between steps: what the run made so far is stored first)
        saver = self.saver
        checkpoint_id = saver.new_id()
        prev_id = self.head
        if moved is not None and run.applies == self.head_applies + 1 and not self.found.mutated:
            changed = moved  # the usual save after a commit (see _changed)
        else:
            changed = self._changed(run, moved)
        changes = self.blobs.changes(run.channels, changed, checkpoint_id, prev_id is None)
        parent_id = prev_id if parent == "" else parent
        pending: Sequence[TaskWrites] = self.pending.items
        if not pending:
            pending = ()  # (not the buffer: the next step's finished tasks go there)
        elif prev_id is None or parent_id != prev_id:
            self.flush()  # they belong to a checkpoint that is not this one's parent
            pending = ()
        else:
            self.pending.items = []  # taken: stored with this checkpoint
        config, (made_from, metadata) = run.options.config, self._metadata
        if config is not made_from:
            metadata = self._user_metadata(config)
        entry: SaveEntry = _new(
            SaveEntry,
            (
                self.thread_id, checkpoint_id, parent_id, prev_id,
                run.step if step is None else step, source, saver.now(),
                dict(run.versions), changes,
                # A run replaces (never changes) a node's seen versions: they can be shared.
                dict(run.versions_seen), metadata, pending,
            ),
        )  # fmt: skip
        if self.journals:  # the usual saver: it files the entry when first read
            saver.journal.append(entry)
            record = None
        else:
            record = self._store(entry, pending)
        self._record = record
        self.head = checkpoint_id
        self.head_top = run.max_version
        self.head_applies = run.applies
        emit = options.emit
        if emit is not None and emit.wants_checkpoints:
            saved = self.record
            assert saved is not None
            emit.checkpoint(checkpoint_event(run, saved, saver), saved.step)
        return record

    def _stage(
        self, run: RunState, source: Source, step: int | None, moved: Iterable[str] | None
    ) -> CheckpointRecord:
        """:meth:`save` for ``durability="exit"``: the checkpoint is kept, not stored (see
        :mod:`._staged`); :meth:`finish` stores the last one."""
        staged = self.staged
        if staged is None:
            staged = self.staged = Staged(self.thread_id, self.record)
        saver = self.saver
        checkpoint_id = saver.new_id()
        prev_id, base = self.head, self.record
        changes = self.blobs.changes(
            run.channels, self._changed(run, moved), checkpoint_id, prev_id is None
        )
        self.pending.items = []  # writes of a checkpoint that is not kept
        origin = staged.origin
        entry: SaveEntry = _new(
            SaveEntry,
            (
                self.thread_id, checkpoint_id, None if origin is None else origin.id, prev_id,
                run.step if step is None else step, source, saver.now(), dict(run.versions),
                changes, dict(run.versions_seen), self._user_metadata(run.options.config), (),
            ),
        )  # fmt: skip
        record = self._record = staged.stage(entry, base)
        self.head, self.head_top, self.head_applies = checkpoint_id, run.max_version, run.applies
        emit = run.options.emit
        if emit is not None and emit.wants_checkpoints:
            shown = staged.event_record(record)
            emit.checkpoint(checkpoint_event(run, shown, saver), record.step)
        return record

    def begin_staging(self) -> None:
        """From now on (``durability="exit"``) task writes wait for :meth:`finish`."""
        self.staged = Staged(self.thread_id, self.record)

    def finish(self, *, store: bool = True) -> None:
        """The run ended (``durability="exit"``): store its last checkpoint and the task
        writes recorded against it (without ``store``: drop them)."""
        staged = self.staged
        if staged is None:
            return
        self.staged = None
        if store:
            staged.store(self.saver)

    def _changed(self, run: RunState, moved: Iterable[str] | None) -> Iterable[str]:
        """The channels a save must look at: only those whose version moved can hold a new
        value (every version a run gives out is above those it gave out before), and those
        found changed in place."""
        if self.head is None:
            return run.channels
        top, mutated = self.head_top, self.found.mutated
        if mutated:
            self.found.mutated = set()
            return [k for k, v in run.versions.items() if v > top or k in mutated]
        if moved is not None and run.applies == self.head_applies + 1:
            return moved
        return [k for k, v in run.versions.items() if v > top]

    def _store(self, entry: SaveEntry, pending: Sequence[TaskWrites]) -> CheckpointRecord:
        """Store ``entry`` with a saver that does not journal (it builds records now)."""
        saver = self.saver
        base = self._record
        record, blobs = build_record(entry, base.blobs if base is not None else {})
        try:
            saver.put(record, blobs, pending)
        except BaseException:
            if pending:  # the step's writes stay, as without a save
                self.pending.items = list(pending)
                self.flush()
            raise
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
        emit.checkpoint(resumed_event(run, record, self.saver), record.step)

    def _user_metadata(self, config: Mapping[str, Any]) -> Mapping[str, Any]:
        """What the run's config adds to its checkpoints' metadata, kept in ``_metadata``
        for the saves of the run: made again only for another config. (A run's config is
        its own merged copy, made when it starts: nothing changes it while it runs.)"""
        if config is not self._metadata[0]:
            kept = user_metadata(config)
            stored = kept if self.parents is None else {"parents": self.parents, **kept}
            self._metadata = (config, stored)
        return self._metadata[1]

    def nest(self, parents: Mapping[str, str] | None) -> None:
        """Mark the checkpoints saved from now a subgraph's (see :attr:`parents`), or,
        with ``None`` or ``{}``, a root graph's."""
        self.parents = dict(parents) if parents else None
        self._metadata = (None, {})  # (made again at the next save)

    # -- what the run reports --------------------------------------------------------------

    def task_done(self, task: Task, *, defer: bool = False) -> None:
        """Record a finished, failed or interrupted task against the current checkpoint.

        With ``defer``, a finished task's writes wait in :attr:`pending` and the next
        :meth:`save` stores them with its checkpoint in one saver call; a run defers only
        when nothing can look at the saver before that save (no hooks, no stream), and calls
        :meth:`flush` on every way out of a step that does not end in a save.
        """
        if self.head is None or (task.stopped and not task.interrupts and not task.done):
            return  # (a subgraph it ran stopped at a breakpoint: it will run again)
        staged = self.staged
        if defer and staged is None and task.error is None and not task.interrupts:
            self.pending.add(task)
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
        if staged is not None:
            staged.hold(id_text(self.head), writes)
        else:
            self.saver.put_writes(self.thread_id, id_text(self.head), writes)

    def flush(self, lone: Task | None = None) -> None:
        """Store the deferred writes of finished tasks now (the step will not be saved), and
        those of ``lone``, a finished task whose writes were left for the save (see
        :meth:`save`)."""
        if lone is not None:
            self.task_done(lone)  # (which flushes the others first)
        self.pending.flush(self.head_id)

    def mark_interrupt(self, run: RunState) -> None:
        """Remember the channel versions at a static breakpoint (it fires once per change)."""
        seen = dict(run.versions)
        run.versions_seen[INTERRUPT] = seen
        staged = self.staged
        if staged is not None and staged.record is not None:
            seen_all = dict(run.versions_seen)
            staged.record = self._record = staged.record._replace(versions_seen=seen_all)
        elif self.head_id is not None:
            self.saver.update_seen(self.thread_id, self.head_id, INTERRUPT, seen)

    # -- loading ---------------------------------------------------------------------------

    def load(self, record: CheckpointRecord) -> dict[str, Any]:
        """The channel values of ``record``; also primes the delta shadows."""
        values: dict[str, Any] = {}
        for key, blob_id in record.blobs.items():
            value, depth = load_value(self.saver, self.thread_id, blob_id)
            read = as_langgraph_reads(value)
            self.blobs.prime(key, value, blob_id, depth, read)
            values[key] = read
        self._record = record
        self.head = record.id
        self.head_top = max(record.versions.values(), default=0)
        self.head_applies = -1
        return values

    def task_id(self, path: tuple[Any, ...]) -> str:
        """Deterministic task ids, so writes recorded for a task match it when re-planned."""
        return make_task_id(self.head if self.head is not None else "none", path)


def pending_by_task(writes: Sequence[PendingWrite]) -> dict[str, list[PendingWrite]]:
    """Pending writes grouped by task id, in recorded order."""
    out: dict[str, list[PendingWrite]] = {}
    for write in writes:
        out.setdefault(write.task_id, []).append(write)
    return out
