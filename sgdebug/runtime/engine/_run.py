"""One run of a compiled graph, advanced superstep by superstep: plan, execute, commit.

``Run`` holds the run's state and sequences the phases in ONE loop (:meth:`Run.advance`,
and :meth:`Run.aadvance` sharing its helpers); the algorithms are free functions it calls
(:mod:`._plan`, :mod:`._apply`, :mod:`._calling`). Who watches the run is an observer
(:mod:`._observer`): a run nobody watches gets the no-op one, which is the fast path.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Literal

from sgdebug.runtime._constants import INTERRUPT, START
from sgdebug.runtime.channels import BaseChannel
from sgdebug.runtime.engine._apply import (
    Moved,
    apply_writes,
    clear_unwritten,
    commit_record,
    consume_triggers,
    empty_record,
    finish_channels,
    group_writes,
    mark_seen,
)
from sgdebug.runtime.engine._calling import arun_task, run_task, task_config
from sgdebug.runtime.engine._context import SCOPE, TaskScope
from sgdebug.runtime.engine._executor import arun_tasks, run_tasks
from sgdebug.runtime.engine._journal import Journal, Mutation
from sgdebug.runtime.engine._observer import QUIET, HookObserver, Observer
from sgdebug.runtime.engine._options import RunOptions
from sgdebug.runtime.engine._plan import apply_prefill, plan_tasks, stops_at
from sgdebug.runtime.engine._records import CommitRecord
from sgdebug.runtime.engine._step_failure import StepFailure, commit_failure, plan_failure
from sgdebug.runtime.engine._task import Task, TaskIds, command_input_writes, path_key
from sgdebug.runtime.engine._view import Phase, Status
from sgdebug.runtime.errors import GraphRecursionError, troubleshooting
from sgdebug.runtime.graph._node import Write
from sgdebug.runtime.graph._plan import GraphPlan
from sgdebug.runtime.types import Command, Interrupt

__all__ = ["Run", "RunOptions", "Task"]

log = logging.getLogger("sgdebug.runtime")
_NO_RECORD = empty_record(-1)
"""Returned by a commit nobody watches: building a record per step costs time."""
_NOTHING: frozenset[str] = frozenset()
_RESUME_LOCK = threading.Lock()
ApplyKind = Literal["step", "input", "edit", "interrupt"]


class Run:
    """A run the caller advances; ``invoke`` and ``stream`` are loops over it."""

    def __init__(self, graph: GraphPlan, options: RunOptions) -> None:
        self.graph = graph
        self.options = options
        self.observer: Observer = HookObserver(options.hooks) if options.hooks else QUIET
        """Who watches the run's pause points (the no-op :data:`QUIET` without hooks)."""
        self.channels: dict[str, BaseChannel] = {
            k: c.copy() for k, c in graph.channel_specs.items()
        }
        self.versions: dict[str, int] = {}
        self.versions_seen: dict[str, dict[str, int]] = {}
        self.max_version = 0
        self.step = -1
        self.stop = -1 + options.recursion_limit + 1
        self.tasks: list[Task] = []
        self.updated: AbstractSet[str] | None = None
        self.moved: AbstractSet[str] = _NOTHING
        """Channels whose version the last application of writes moved."""
        self.applies = 0
        """How many times writes were applied (tells a save whether ``moved`` is all)."""
        self.phase: Phase = "plan"
        self.status: Status = "running"
        self.last_commit: CommitRecord | None = None
        self.interrupts: tuple[Interrupt, ...] = ()
        self.watched_changed = False
        """Whether a channel of ``options.watch`` changed during the run."""
        self.cached_ids: set[str] = set()
        self.null_resume: list[Any] = []
        """A bare ``Command(resume=...)`` answer, given to the first unanswered interrupt."""
        self.commit_mark: int | None = None
        """Where the last commit's stream events start in the emitter's buffer."""
        self.deferred: list[Task] = []
        """A lone task whose ``updates`` event waits for its commit to succeed."""
        self.prefill: dict[str, list[Any]] = {}
        """Writes recorded for tasks of the pending step, by task id (from a checkpoint)."""
        self.persist: Journal[Run] | None = None
        """Set when the run saves checkpoints."""
        self.breakpoint: str | None = None
        """``"before"`` / ``"after"`` when a static breakpoint stopped the run."""
        self.dirty: AbstractSet[str] = frozenset(graph.volatile)
        """Volatile channels that may hold a value (written in the last commit)."""
        self.failure: StepFailure | None = None
        """Why the pending step failed outside its tasks, when a hook kept it (status
        ``error``; the run stands before the step)."""
        self.ids = TaskIds()
        self._inline: TaskScope | None = None
        """The scope reused by tasks run in the advancing thread (one per ``advance``)."""

    # -- what a view reads -----------------------------------------------------------------

    @property
    def config(self) -> Mapping[str, Any]:
        """The run's config."""
        return self.options.config

    @property
    def context(self) -> Any:
        """The run's context object."""
        return self.options.context

    @property
    def checkpoint_id(self) -> str | None:
        """The id of the run's latest checkpoint (``None`` without a checkpointer)."""
        persist = self.persist
        record = persist.record if persist is not None else None
        return record.id if record is not None else None

    @property
    def mutations(self) -> tuple[Mutation, ...]:
        """Values a node changed in place, found so far (needs a checkpointer)."""
        return tuple(self.persist.mutations) if self.persist is not None else ()

    @property
    def failed(self) -> Task | None:
        """The first failed task of the pending step, if the step failed."""
        return next((t for t in self.tasks if t.error is not None), None)

    def read_values(self, keys: Sequence[str] | str) -> Any:
        """The current values of ``keys`` (a single key gives the bare value)."""
        if isinstance(keys, str):
            channel = self.channels[keys]
            return channel.get() if channel.is_available() else None
        return {k: self.channels[k].get() for k in keys if self.channels[k].is_available()}

    # -- input -------------------------------------------------------------------------------

    def write_input(self, value: Any) -> None:
        """The input step: put the raw input into the ``__start__`` channel."""
        self.stop = self.step + self.options.recursion_limit + 1
        grouped: dict[str, list[Any]] = defaultdict(list)
        grouped[START].append(value)
        if isinstance(value, Command) and value.update is not None:
            for key, item in command_input_writes(self.graph.target, Command(update=value.update)):
                grouped[key].append(item)
        self._apply(grouped, "input")
        if self.persist is not None:
            self.persist.save(self, "input")
        self.step += 1

    def restore(self, persist: Journal[Run], values: Mapping[str, Any]) -> None:
        """Continue from a checkpoint whose channel values are ``values``."""
        record = persist.record
        assert record is not None
        specs = self.graph.channel_specs
        for key, value in values.items():
            if key in specs:
                self.channels[key] = specs[key].from_checkpoint(value)
        self.versions = dict(record.versions)
        self.max_version = max(self.versions.values(), default=0)
        self.versions_seen = {k: dict(v) for k, v in record.versions_seen.items()}
        self.step = record.step + 1
        self.stop = record.step + self.options.recursion_limit + 1
        self.persist = persist
        self.updated = None

    def apply_writes(self, writes: Sequence[Write]) -> None:
        """Apply writes now, outside a superstep (a resume's ``Command`` update or goto)."""
        grouped: dict[str, list[Any]] = defaultdict(list)
        for key, value in writes:
            if key in self.channels:
                grouped[key].append(value)
        self._apply(grouped, "edit")

    # -- driving -----------------------------------------------------------------------------

    def advance(self, *, one_step: bool = False) -> Status:
        """Run until a hook pauses, the run ends, or (``one_step``) a superstep commits.

        Returns ``"running"`` after a ``one_step`` commit (the next step is then planned),
        else the run's new status.
        """
        self.status = "running"
        self.breakpoint = None
        # One scope, made current once, serves every task run in this thread (making one
        # current per task costs more than the rest of a small task's bookkeeping).
        scope = self._inline = TaskScope(self, None, [])
        scope.outer = SCOPE.get()
        token = SCOPE.set(scope)
        try:
            while True:
                status = self._settle(one_step, inline=True)
                if status is None:
                    status = self._after_execute(self.execute())
                if status is not None:
                    return status
        finally:
            self._inline = None
            SCOPE.reset(token)

    async def aadvance(self, *, one_step: bool = False) -> Status:
        """:meth:`advance` for ``ainvoke``/``astream``: async nodes run on the event loop."""
        self.status = "running"
        self.breakpoint = None
        while True:
            status = self._settle(one_step, inline=False)
            if status is None:
                status = self._after_execute(await self.aexecute())
            if status is not None:
                return status

    def _settle(self, one_step: bool, *, inline: bool) -> Status | None:
        """Run the phases until tasks need executing elsewhere (``None``) or the run stops.

        With ``inline``, a step of one task runs here, in this thread; the caller executes
        any other step (in the pool, or on the event loop). With ``one_step``, a commit ends
        the advance once the next step is planned.
        """
        stepped = False
        observer = self.observer
        while True:
            phase = self.phase
            if phase == "execute":
                tasks = self.tasks
                if not inline or len(tasks) != 1 or tasks[0].done:
                    return None
                task = tasks[0]
                run_task(self, task, self._inline)
                if task.done and not observer.watched and self.options.emit is None:
                    # The usual unwatched step: nothing to report, and the task's writes
                    # wait for the step's checkpoint.
                    if self.persist is not None:
                        self.persist.task_done(task, defer=True)
                    self.phase = "commit"
                    continue
                status = self._after_execute(self.finish_execute(tasks))
                if status is not None:
                    return status
            elif phase == "plan":
                if not self.plan():
                    if self.breakpoint is not None or self.status == "error":
                        return self.status
                    continue
                if observer.watched and observer.planned(self, self.tasks):
                    return self._pause()
                if stepped:
                    return self.status
            elif phase == "commit":
                committed = self.tasks
                record = self._commit_step()
                if record is None:
                    return self.status
                after = self.options.interrupt_after
                if after and stops_at(self, after, committed):
                    self._stop_at_breakpoint("after")
                    return self.status
                if observer.watched and observer.committed(self, record):
                    return self._pause()
                stepped = one_step
            else:
                self.status = "done"
                return self.status

    def _after_execute(self, paused: bool) -> Status | None:
        if self.status in ("error", "interrupted"):
            return self.status
        return self._pause() if paused else None

    def _pause(self) -> Status:
        self.status = "paused"
        return self.status

    def _commit_step(self) -> CommitRecord | None:
        """:meth:`commit`, keeping the step's task writes if it fails; ``None`` when a hook
        kept the failure (the run is then back before the step, status ``error``)."""
        try:
            return self.commit()
        except BaseException as exc:
            if self.persist is not None:
                self.persist.flush()  # the step's writes stay, as without a commit
            if isinstance(exc, Exception) and self._keep_failure("commit", exc):
                return None
            raise

    # -- steering (the debugger's verbs) -------------------------------------------------

    def run_one(self, task: Task) -> Status:
        """Execute one pending task of the planned step (the others stay pending).

        The step commits on the next ``advance()`` once every task has run. Returns the
        run's status: ``"error"`` / ``"interrupted"`` as :meth:`advance` would report them.
        """
        if self.phase != "execute" or task not in self.tasks or task.done:
            raise ValueError(f"task {task.name!r} is not pending in this step")
        self.status = "running"
        self.run_task(task)
        paused = self.finish_execute([task])
        if self.status in ("error", "interrupted"):
            return self.status
        return self._pause() if paused or self.phase == "execute" else self.status

    def edit(self, writes: Sequence[Write], *, discard_done: bool = False) -> None:
        """Change channel values between steps; the pending step is planned again at once.

        Writes go through each channel's reducer (wrap a value in ``Overwrite`` to bypass
        it). With a checkpointer the edit is saved as an ``update`` checkpoint. A step whose
        tasks have partly run is refused, unless ``discard_done``: their writes are dropped
        and they run again on the edited state. A write a channel rejects raises (with a
        checkpointer, nothing was changed); a step kept failed (:attr:`failure`) is planned
        again on the edited state.
        """
        if not discard_done and any(t.done for t in self.tasks):
            raise RuntimeError("cannot edit state while a step is half done")
        try:
            self.apply_writes(writes)
        except Exception:
            self.rollback()  # a channel rejected a write: the edit changes nothing
            raise
        if self.status == "error":  # the failed step runs again on the edited state
            self.failure, self.status = None, "paused"
        if self.persist is not None:
            self.persist.save(self, "update", step=self.step - 1)
        self.tasks = []
        self.updated = None
        self.plan()

    def retry(self) -> None:
        """After a hook kept a failed step alive: clear the failures so ``advance`` re-runs them.

        Tasks of the step that succeeded keep their writes; nothing was committed. A step
        that failed at commit commits the same writes again (edit the state first); one
        whose inputs could not be built is planned again.
        """
        for task in self.tasks:
            if task.error is not None:
                task.error, task.done = None, False
        self.failure = None
        self.status = "paused"

    def rollback(self) -> bool:
        """Put the channels and versions back as the last checkpoint holds them (tasks, phase
        and step stay); ``False`` when there is no checkpoint to go back to."""
        persist = self.persist
        record = persist.record if persist is not None else None
        if persist is None or record is None:
            return False
        stop, dirty, phase = self.stop, self.dirty, self.phase
        self.channels = {k: c.copy() for k, c in self.graph.channel_specs.items()}
        self.restore(persist, persist.load(record))
        self.stop, self.dirty, self.phase = stop, dirty, phase
        return True

    def _keep_failure(self, phase: str, error: Exception) -> bool:
        """Ask the observer whether to keep a step that failed outside its tasks.

        A commit failure first takes the run back to the checkpoint the step started from
        (the failed commit may have changed some channels); without one it is not kept.
        Kept: :attr:`failure` is set and the status is ``error``.
        """
        if not self.observer.watched:
            return False
        persist = self.persist
        record = persist.record if persist is not None else None
        if phase == "commit":
            if persist is None or record is None:
                return False
            values = persist.load(record)
            fresh = {k: c.from_checkpoint(values[k]) if k in values else c.copy()
                     for k, c in self.graph.channel_specs.items()}  # fmt: skip
            ordered = sorted(self.tasks, key=path_key)
            writes = [(t.name, k, v) for t in ordered for k, v in t.writes]
            failure = commit_failure(fresh, writes, self.step, error)
            self.rollback()
        else:
            failure = plan_failure(self.step, error)
        if not self.observer.step_failed(self, failure):
            return False
        self.failure, self.status = failure, "error"
        return True

    # -- plan --------------------------------------------------------------------------------

    def plan(self) -> bool:
        """Choose the tasks of superstep ``self.step``; return False when the run is over."""
        if self.step > self.stop:
            raise GraphRecursionError(
                troubleshooting(
                    f"Recursion limit of {self.options.recursion_limit} reached without "
                    "hitting a stop condition. You can increase the limit by setting the "
                    "`recursion_limit` config key.",
                    "GRAPH_RECURSION_LIMIT",
                )
            )
        emit = self.options.emit
        if self.persist is not None:  # task ids derive from the checkpoint planned from
            head = self.persist.head
            self.ids.base = "none" if head is None else head
        try:
            self.tasks = plan_tasks(self, self.ids)
        except Exception as exc:
            # Like LangGraph, events of the commit before a step whose inputs cannot be
            # built are not delivered.
            if emit is not None and self.commit_mark is not None:
                emit.truncate(self.commit_mark)
            if self._keep_failure("plan", exc):
                self.tasks = []
                return False
            raise
        if self.prefill:
            prefill, self.prefill = self.prefill, {}
            self.cached_ids |= apply_prefill(self.tasks, prefill)
        if emit is not None and self.tasks:
            emit.planned(self, self.tasks)
        if not self.tasks:
            self.phase = "done"
            return False
        self.phase = "execute"
        before = self.options.interrupt_before
        if before and stops_at(self, before, self.tasks):
            self._stop_at_breakpoint("before")
            return False
        return True

    def next_tasks(self, *, add_order: bool = False) -> list[Task]:
        """The tasks the current channels trigger (Send tasks first, then pulled nodes)."""
        if self.persist is not None:
            head = self.persist.head
            self.ids.base = "none" if head is None else head
        return plan_tasks(self, self.ids, add_order=add_order)

    def _stop_at_breakpoint(self, where: str) -> None:
        self.breakpoint = where
        self.status = "interrupted"
        if self.persist is not None:
            self.persist.mark_interrupt(self)
        else:
            self.versions_seen[INTERRUPT] = dict(self.versions)
        if self.options.emit is not None:
            self.options.emit("updates", {INTERRUPT: ()})

    # -- execute -----------------------------------------------------------------------------

    def execute(self) -> bool:
        """Run every pending task of the step; return True if a hook asked to pause."""
        pending = self._pending()
        run_tasks(self.run_task, pending)
        return self.finish_execute(pending)

    async def aexecute(self) -> bool:
        """:meth:`execute` on the event loop."""
        pending = self._pending()
        await arun_tasks(self.run_task, self.arun_task, pending)
        return self.finish_execute(pending)

    def _pending(self) -> list[Task]:
        pending = [t for t in self.tasks if not t.done]
        emit = self.options.emit
        if emit is not None and len(pending) < len(self.tasks) and self.cached_ids:
            for task in self.tasks:
                if task.id in self.cached_ids:
                    emit.cached(self, task)
            self.cached_ids = set()
        return pending

    def finish_execute(self, ran: Sequence[Task]) -> bool:
        """After tasks ran: report them, handle errors and interrupts, pick the next phase."""
        if len(ran) == 1 and len(self.tasks) == 1 and self.options.emit is None:
            task = ran[0]
            if task.done and not self.observer.watched:
                if self.persist is not None:
                    self.persist.task_done(task, defer=True)
                self.phase = "commit"
                return False
        paused = self._report(ran)
        failed = self.failed
        if failed is not None:
            self._task_failed(failed)
            return False
        for task in self.tasks:
            if task.interrupts:
                if self.persist is not None:
                    self.persist.flush()
                self._interrupted()
                return False
        if all(task.done for task in self.tasks):
            self.phase = "commit"
        return paused

    def _report(self, ran: Sequence[Task]) -> bool:
        """Tell the stream, the journal and the observer what ``ran`` did; whether to pause."""
        emit, persist, observer = self.options.emit, self.persist, self.observer
        if emit is not None:
            for task in ran:
                if task.interrupts:
                    emit.interrupted(self, task)
        # Without a watcher or a stream nothing can read the saver before the step's save,
        # so the writes of finished tasks are stored with its checkpoint, in one call.
        defer = emit is None and not observer.watched
        paused = False
        for task in ran:
            if persist is not None:
                persist.task_done(task, defer=defer)
            if emit is not None and (task.error is None or task.writes):
                if len(self.tasks) == 1 and task.done:
                    self.deferred = [task]  # reported once its commit succeeds
                else:
                    emit.task_result(self, task)
            paused = observer.ran(self, task) or paused
        return paused

    def _task_failed(self, failed: Task) -> None:
        """A task raised: the observer keeps the run (status ``error``) or it propagates."""
        if self.persist is not None:
            self.persist.flush()
            self.persist.check_mutations(self, self.tasks, committed=False)
        error = failed.error
        assert error is not None
        if not self.observer.failed(self, failed, error):
            raise error
        self.status = "error"

    def run_task(self, task: Task, scope: TaskScope | None = None) -> None:
        """Execute one task in this thread (``scope``: a reused one, see :meth:`advance`)."""
        run_task(self, task, scope)

    async def arun_task(self, task: Task) -> None:
        """Execute one async task on the running event loop."""
        await arun_task(self, task)

    # -- what a running task's scope asks of its run ----------------------------------------

    def task_config(self, task: Task) -> dict[str, Any]:
        """The config a node of ``task`` receives."""
        return task_config(self, task)

    def take_null_resume(self) -> tuple[bool, Any]:
        """Consume the run-wide resume value, if one is left."""
        with _RESUME_LOCK:
            if self.null_resume:
                return True, self.null_resume.pop()
        return False, None

    def custom_writer(self) -> Callable[[Any], None]:
        """The writer behind a node's ``writer`` parameter and ``get_stream_writer()``."""
        emit = self.options.emit
        if emit is None:
            return lambda _chunk: None
        return lambda chunk: emit("custom", chunk)

    # -- commit ------------------------------------------------------------------------------

    def commit(self) -> CommitRecord:
        """Apply the step's writes in task-path order and start the next step."""
        tasks = sorted(self.tasks, key=path_key) if len(self.tasks) > 1 else self.tasks
        consumed = mark_seen(tasks, self.versions_seen, self.versions)
        grouped, owners = group_writes(tasks, self.channels, self.observer.watched)
        emit = self.options.emit
        self.commit_mark = len(emit.events) if emit is not None else None
        applied = tasks[0].applied if len(tasks) == 1 else None
        record = self._apply(grouped, "step", consumed, owners, applied)
        if record is not _NO_RECORD:
            record = CommitRecord(record.step, record.changes, tuple(t.name for t in tasks))
        if self.deferred:
            if emit is not None and self.commit_mark is not None:
                emit.insert_results(self, self.commit_mark, self.deferred)
            self.deferred = []
        if self.persist is not None:
            self.persist.check_mutations(self, tasks)
            self.persist.save(self, "loop", moved=self.moved)  # (see save)
        self.tasks = []
        self.step += 1
        self.phase = "plan"
        self.last_commit = None if record is _NO_RECORD else record
        return record

    def _apply(
        self,
        grouped: Mapping[str, list[Any]],
        kind: ApplyKind,
        consumed: AbstractSet[str] = _NOTHING,
        owners: Mapping[str, list[Task]] | None = None,
        applied: Mapping[str, BaseChannel] | None = None,
    ) -> CommitRecord:
        """Apply grouped writes. ``kind``: ``step`` (a superstep's: volatile channels
        clear, waiting ones may finish), ``input`` (the input step's, unreported), ``edit``
        (between steps, unreported), ``interrupt`` (an interrupted step's finished tasks)."""
        channels = self.channels
        before = {k: c.checkpoint() for k, c in channels.items()} if owners is not None else None
        self.max_version += 1
        moved = Moved(self.versions, self.max_version)
        if consumed:
            consume_triggers(channels, consumed, moved)
        apply_writes(channels, grouped, moved, applied)
        if kind in ("step", "input"):  # a full step: unwritten volatile channels clear
            clear_unwritten(channels, self.dirty, grouped, moved)
            self.dirty = self.graph.volatile_set.intersection(grouped)
            if self.graph.trigger_keys.isdisjoint(moved.updated):
                finish_channels(channels, moved)  # nothing else would run next
            self.updated = moved.updated
        else:
            self.dirty = self.dirty | self.graph.volatile_set.intersection(grouped)
            self.updated = None if self.updated is None else self.updated | moved.updated
        self.moved = moved.updated.union(moved.unlisted) if moved.unlisted else moved.updated
        self.applies += 1
        options = self.options
        watching = options.watch and not self.watched_changed
        if (watching or options.emit is not None) and kind in ("step", "interrupt"):
            self._report_values(moved.updated)
        if before is None:
            return _NO_RECORD
        changes = commit_record(channels, self.versions, before, grouped, owners or {})
        return CommitRecord(self.step, changes)

    def _report_values(self, updated: set[str]) -> None:
        watch = self.options.watch
        if watch and not self.watched_changed:
            self.watched_changed = not watch.isdisjoint(updated)
        emit = self.options.emit
        if emit is not None:
            emit.values(self, updated)

    # -- interrupts --------------------------------------------------------------------------

    def _interrupted(self) -> None:
        self.interrupts = tuple(i for t in self.tasks for i in t.interrupts)
        self.status = "interrupted"
        self.phase = "execute"
        done = [t for t in sorted(self.tasks, key=path_key) if t.done]
        if done:
            grouped: dict[str, list[Any]] = defaultdict(list)
            for task in done:
                for key, value in task.writes:
                    if key in self.graph.state_keys:
                        grouped[key].append(value)
            self._apply(grouped, "interrupt")
