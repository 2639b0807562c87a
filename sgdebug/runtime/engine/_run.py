"""One run of a compiled graph, advanced superstep by superstep: plan, execute, commit.

``Run`` sequences the phases in ONE loop (:meth:`Run.advance`, and :meth:`Run.aadvance`
sharing its helpers) over the state it inherits (:class:`~._state.RunState`); the
algorithms are free functions it calls (:mod:`._plan`, :mod:`._apply`, :mod:`._calling`).
Who watches the run is an observer (:mod:`._observer`): a run nobody watches gets the
no-op one, which is the fast path.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from concurrent.futures import CancelledError
from functools import partial

from sgdebug.runtime._constants import INTERRUPT
from sgdebug.runtime.engine._apply import lone_writes, step_writes
from sgdebug.runtime.engine._cached import remember, replay
from sgdebug.runtime.engine._calling import atask_runner, task_runner
from sgdebug.runtime.engine._context import SCOPE, TaskScope
from sgdebug.runtime.engine._drain import check_drain
from sgdebug.runtime.engine._error_handlers import resume_handlers, with_handlers
from sgdebug.runtime.engine._executor import run_tasks
from sgdebug.runtime.engine._finish_order import NONE, finish_order
from sgdebug.runtime.engine._forward import passes_on_only
from sgdebug.runtime.engine._options import RunOptions
from sgdebug.runtime.engine._plan import apply_prefill, plan_tasks, stops_at
from sgdebug.runtime.engine._records import CommitRecord
from sgdebug.runtime.engine._state import NO_RECORD, RunState
from sgdebug.runtime.engine._step_failure import keep_failure
from sgdebug.runtime.engine._task import Task, path_key
from sgdebug.runtime.engine._view import Status
from sgdebug.runtime.errors import GraphRecursionError, troubleshooting
from sgdebug.runtime.graph._node import Write

__all__ = ["Run", "RunOptions", "Task"]

log = logging.getLogger("sgdebug.runtime")


class Run(RunState):
    """A run the caller advances; ``invoke`` and ``stream`` are loops over it."""

    __slots__ = ()

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
                    return self._ended(status)
        except BaseException:
            self._ended("error")
            raise
        finally:
            self._inline = None
            SCOPE.reset(token)

    async def aadvance(self, *, one_step: bool = False) -> Status:
        """:meth:`advance` for ``ainvoke``/``astream``: async nodes run on the event loop
        (see :mod:`._async_run`)."""
        from sgdebug.runtime.engine._async_run import aadvance  # (async runs only: not at start)

        return await aadvance(self, one_step)

    def _ended(self, status: Status) -> Status:
        """With ``durability="exit"``, a run that stopped (not paused) stores where it is;
        a subgraph's run passes its stream events on to its parent's stream."""
        if self.options.emit is not None:
            self.options.emit.flush()
        stopped = status not in ("paused", "running")
        if stopped and self.options.durability == "exit" and self.persist is not None:
            # As LangGraph, a subgraph's run that simply finished leaves nothing behind
            # (its parent's checkpoint holds the result), unless it keeps its own
            # checkpoints across invocations (``checkpointer=True``).
            nested = self.options.parent is not None and self.graph.options.checkpointer is not True
            self.persist.finish(store=not (nested and status == "done"))
        return status

    def _settle(self, one_step: bool, *, inline: bool) -> Status | None:
        """Run the phases until tasks need executing elsewhere (``None``) or the run stops.

        With ``inline``, a step of one task runs here, in this thread; the caller executes
        any other step (in the pool, or on the event loop). With ``one_step``, a commit ends
        the advance once the next step is planned.
        """
        stepped = False
        watched = self.observer.watched
        # What holds for every step, decided once: whether a lone task runs here, whether
        # anything reports a lone finished task, whether anything looks at a commit.
        here = inline and self.graph.cache is None
        quiet = not watched and self.options.emit is None
        checked = watched or bool(self.options.interrupt_after)
        call = task_runner(watched)
        phase = self.phase
        while True:
            # The phases follow each other within one pass: plan, execute, commit. ``phase``
            # is what ``self.phase`` was left at (read again only after a call that may set
            # it another way).
            if phase == "plan":
                if not self.plan():
                    if self.breakpoint is not None or self.status == "error":
                        return self.status
                    phase = self.phase
                    continue
                if (watched or stepped) and (status := self._after_plan(stepped)) is not None:
                    return status
                phase = self.phase
            if phase == "execute":
                tasks = self.tasks
                if not here or len(tasks) != 1 or (task := tasks[0]).done:
                    return None
                call(self, task, self._inline)
                # (A task handed to its error handler keeps the handler's task in its extras.)
                if quiet and task.done and task.extras is None:
                    if self.persist is not None:  # the usual unwatched step: nothing to report
                        self.unsaved = task  # (its writes go with the step's save)
                    self.phase = phase = "commit"
                elif (status := self._after_execute(self.finish_execute(tasks))) is not None:
                    return status
                else:
                    phase = self.phase
            if phase == "commit":
                committed = self.tasks
                try:
                    record = self.commit()
                except BaseException as exc:
                    if self._commit_failed(exc):
                        return self.status  # kept: back before the step, status error
                    raise
                if checked and (status := self._after_commit(committed, record)) is not None:
                    return status
                stepped = one_step
                phase = "plan"  # (as commit leaves it)
            else:  # "done" (a step run here leaves the phase at "commit", or returns)
                self.status = "done"
                return self.status

    def _after_plan(self, stepped: bool) -> Status | None:
        """A hook pauses the run at the planned step, or (``stepped``) the advance ends."""
        if self.observer.watched and self.observer.planned(self, self.tasks):
            return self._pause()
        return self.status if stepped else None

    def _after_commit(self, committed: Sequence[Task], record: CommitRecord) -> Status | None:
        """A breakpoint after the committed nodes stops the run, or a hook pauses it."""
        after = self.options.interrupt_after
        if after and stops_at(self, after, committed):
            self._stop_at_breakpoint("after")
            return self.status
        if self.observer.watched and self.observer.committed(self, record):
            return self._pause()
        return None

    def _after_execute(self, paused: bool) -> Status | None:
        if self.status in ("error", "interrupted"):
            return self.status
        return self._pause() if paused else None

    def _pause(self) -> Status:
        self.status = "paused"
        return self.status

    def _commit_failed(self, exc: BaseException) -> bool:
        """:meth:`commit` raised: the step's task writes stay stored; whether a hook kept
        the failure (the run is then back before the step, status ``error``)."""
        if self.persist is not None:  # the step's writes stay, as without a commit
            self.persist.flush(self.unsaved)
        self.unsaved = None
        return isinstance(exc, Exception) and keep_failure(self, "commit", exc)

    # -- steering (the debugger's verbs) -------------------------------------------------

    def run_one(self, task: Task) -> Status:
        """Execute one pending task of the planned step (the others stay pending).

        The step commits on the next ``advance()`` once every task has run. Returns the
        run's status: ``"error"`` / ``"interrupted"`` as :meth:`advance` would report them.
        """
        if self.phase != "execute" or task not in self.tasks or task.done:
            raise ValueError(f"task {task.name!r} is not pending in this step")
        self.status = "running"
        ran, keyed = [task], None
        if self.graph.cache is not None:
            ran, keyed = replay(self, ran)
        for each in ran:
            self.run_task(each)
        if keyed:
            remember(self, keyed)
        paused = self.finish_execute(ran)
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
            if task.error is not None and not task.done:  # (a handled failure stays done)
                task.error, task.done = None, False
        self.failure = None
        self.status = "paused"

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
        persist, ids = self.persist, self.ids
        if persist is not None:  # task ids derive from the checkpoint planned from
            head = persist.head
            ids.base = "none" if head is None else head
        try:
            tasks = self.tasks = plan_tasks(self, ids)
        except Exception as exc:
            # Like LangGraph, events of the commit before a step whose inputs cannot be
            # built are not delivered.
            emit = self.options.emit
            if emit is not None and self.commit_mark is not None:
                emit.truncate(self.commit_mark)
            if keep_failure(self, "plan", exc):
                self.tasks = []
                return False
            raise
        if self.prefill:
            prefill, self.prefill = self.prefill, {}
            self.cached_ids |= apply_prefill(tasks, prefill)
            if self.graph.handles_errors:
                self.cached_ids |= resume_handlers(self, prefill)
        if not tasks:
            self.phase = "done"
            return False
        self.phase = "execute"
        if not self.announces:  # (no breakpoint before nodes, drain request or stream)
            return True
        options = self.options
        before = options.interrupt_before
        if before and stops_at(self, before, tasks):
            self._stop_at_breakpoint("before")
            return False
        if options.control is not None:
            check_drain(options.control, tasks)
        if options.emit is not None:  # (not at a breakpoint before them: they have not started)
            options.emit.planned(self, tasks)
        return True

    def _stop_at_breakpoint(self, where: str) -> None:
        self.breakpoint = where
        self.status = "interrupted"
        if self.persist is not None:
            self.persist.mark_interrupt(self)
        else:
            self.versions_seen[INTERRUPT] = dict(self.versions)
        if self.options.emit is not None and not passes_on_only(self.options.emit):
            self.options.emit("updates", {INTERRUPT: ()})  # (a subgraph's: see _interrupted)

    # -- execute -----------------------------------------------------------------------------

    def execute(self) -> bool:
        """Run every pending task of the step; return True if a hook asked to pause."""
        pending, keyed = self._pending(), None
        if self.graph.cache is not None:
            pending, keyed = replay(self, pending)
        limit, timeout = self.options.config.get("max_concurrency"), self.graph.step_timeout
        call = task_runner(self.observer.watched)
        pooled = partial(call, self)  # (not the method: a Python call less per task)
        here = pooled if self._inline is None else partial(call, self, scope=self._inline)
        order = None  # (nobody streams: the step's results are reported when it ends)
        if self.options.emit is None:
            late = run_tasks(pooled, pending, limit, timeout, here)
        else:
            order = finish_order(self, pending)  # (streamed as they finish: see FinishOrder)
            late = run_tasks(order.wrap(pooled), pending, limit, timeout, order.wrap(here))
        if late:
            ran = pending if order is None else order.unstreamed(pending)
            self._step_timed_out(ran, late, TimeoutError("Timed out"), CancelledError())
        if keyed:
            remember(self, keyed)
        return self.finish_execute(pending, NONE if order is None else order.close())

    async def aexecute(self) -> bool:
        """:meth:`execute` on the event loop."""
        from sgdebug.runtime.engine._async_run import aexecute

        return await aexecute(self)

    def _step_timed_out(
        self, ran: Sequence[Task], late: Sequence[Task], error: Exception, cancel: BaseException
    ) -> None:
        """The step went past the graph's ``step_timeout``: as LangGraph, keep what the
        tasks wrote (a resume does not run them again; the ``late`` ones, sync nodes that
        finished past the limit, are not streamed; a cancelled one is recorded as failed
        with ``CancelledError``), then raise ``TimeoutError``."""
        self._report([task for task in ran if task not in late])
        if self.persist is not None:
            for task in late:
                if not task.done and task.error is None:
                    task.error = cancel
                self.persist.task_done(task)
            self.persist.flush()
        raise error

    def _pending(self) -> list[Task]:
        pending = [t for t in self.tasks if not t.done]
        emit = self.options.emit
        if emit is not None and len(pending) < len(self.tasks) and self.cached_ids:
            for task in self.tasks:
                if task.id in self.cached_ids:
                    emit.cached(self, task)
            self.cached_ids = set()
        return pending

    def finish_execute(self, ran: Sequence[Task], streamed: frozenset[int] = NONE) -> bool:
        """After tasks ran: report them (to the stream, those not ``streamed`` yet: ids of
        tasks), handle errors and interrupts, pick the next phase."""
        if len(ran) == 1 and len(self.tasks) == 1 and self.options.emit is None:
            task = ran[0]
            if task.done and not self.observer.watched:
                if self.persist is not None:
                    self.unsaved = task  # (as in _settle)
                self.phase = "commit"
                return False
        if self.graph.handles_errors:
            ran = with_handlers(ran)
        paused = self._report(ran, streamed)
        stopped = waiting = False  # (one pass: the first failed task, else any stopped one)
        for task in self.tasks:
            if not task.done:
                if task.error is not None:  # (what self.failed finds)
                    self._task_failed(task)
                    return False
                stopped = stopped or task.stopped
                waiting = True
        if stopped:
            if self.persist is not None:
                self.persist.flush()
            self._interrupted()
            return False
        if not waiting:
            self.phase = "commit"
        return paused

    def _report(self, ran: Sequence[Task], streamed: frozenset[int] = NONE) -> bool:
        """Tell the stream (of those not ``streamed``), the journal and the observer what
        ``ran`` did; whether to pause."""
        emit, persist, observer = self.options.emit, self.persist, self.observer
        if emit is not None:
            for task in ran:
                if task.interrupts and id(task) not in streamed:
                    emit.interrupted(self, task)
        # Without a watcher or a stream nothing can read the saver before the step's save,
        # so the writes of finished tasks are stored with its checkpoint, in one call.
        watched = observer.watched
        defer = emit is None and not watched
        paused = False
        for task in ran:
            if not (task.done or task.error is not None or task.interrupts):
                continue  # cancelled when a sibling failed (see arun_tasks): nothing to report
            if persist is not None:
                persist.task_done(task, defer=defer)
            if emit is not None and id(task) not in streamed:
                if task.done and len(ran) == 1 and self._alone(task):
                    self.deferred = [task]  # reported once its commit succeeds
                else:
                    emit.task_result(self, task)
            if watched:  # (the no-op observer's ran() is never called)
                paused = observer.ran(self, task) or paused
        return paused

    def _alone(self, task: Task) -> bool:
        """Whether ``task`` is the one task of its step that ran: the others, if any, took
        writes recorded before a resume or from the node cache. As in LangGraph, the result
        of a step's one running task is reported once its commit succeeds."""
        tasks = self.tasks
        return len(tasks) == 1 or all(t.done for t in tasks)

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
        """Execute one task in this thread (``scope``: a reused one, see :meth:`advance`),
        timed when the run is watched (``Task.seconds``)."""
        task_runner(self.observer.watched)(self, task, scope)

    async def arun_task(self, task: Task) -> None:
        """Execute one async task on the running event loop, timed as :meth:`run_task`."""
        await atask_runner(self.observer.watched)(self, task)

    # -- commit ------------------------------------------------------------------------------

    def commit(self) -> CommitRecord:
        """Apply the step's writes in task-path order and start the next step."""
        tasks, channels, watched = self.tasks, self.channels, self.observer.watched
        lone = len(tasks) == 1
        emit = self.options.emit
        self.commit_mark = len(emit.events) if emit is not None else None
        folded = None  # (the usual step, one task writing each key once: not grouped)
        if lone and not watched:
            known = self.graph.channel_keys
            folded = lone_writes(tasks[0], known, self.versions_seen, self.versions)
        if folded is not None:
            single, consumed = folded
            record = self._apply(single, "lone", consumed, None, tasks[0].applied)
        else:
            if not lone:
                tasks = sorted(tasks, key=path_key)
            grouped, owners, consumed = step_writes(
                tasks, channels, self.versions_seen, self.versions, watched
            )
            applied = tasks[0].applied if lone else None
            record = self._apply(grouped, "step", consumed, owners, applied)
        if record is not NO_RECORD:
            record = CommitRecord(record.step, record.changes, tuple(t.name for t in tasks))
        if self.deferred:
            if emit is not None and self.commit_mark is not None:
                emit.insert_results(self, self.commit_mark, self.deferred)
            self.deferred = []
        persist = self.persist
        if persist is not None:
            persist.check_mutations(self, tasks)
            unsaved = self.unsaved  # (a failed save stores them itself: see Persistence.save)
            self.unsaved = None
            persist.save(self, "loop", None, self.moved, unsaved)  # (by position: see save)
        self.tasks = []
        self.step += 1
        self.phase = "plan"
        self.last_commit = None if record is NO_RECORD else record
        return record
