"""One run of a compiled graph, advanced superstep by superstep: plan, execute, commit."""

from __future__ import annotations

import inspect
import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from sgdebug.runtime._constants import INTERRUPT, PULL, PUSH, START, TASKS
from sgdebug.runtime.channels import (
    MISSING,
    VALUE_CHANNELS,
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    Topic,
    UntrackedValue,
)
from sgdebug.runtime.engine._calling import acall_task, call_task, task_config
from sgdebug.runtime.engine._context import SCOPE, TaskScope, enter_scope, leave_scope
from sgdebug.runtime.engine._executor import arun_tasks, run_tasks
from sgdebug.runtime.engine._hooks import ChannelChange, CommitRecord, TaskWrite
from sgdebug.runtime.engine._journal import Journal, Mutation
from sgdebug.runtime.engine._step_failure import StepFailure, keep_failure, rollback
from sgdebug.runtime.engine._task import (
    PLAIN,
    RunOptions,
    Task,
    _await,
    _IdSource,
    _path_key,
    command_input_writes,
)
from sgdebug.runtime.errors import GraphInterrupt, GraphRecursionError, troubleshooting
from sgdebug.runtime.graph._node import (
    CompiledNode,
    Write,
    branch_destinations,
    route_writes,
)
from sgdebug.runtime.types import Command, Interrupt

if TYPE_CHECKING:
    from sgdebug.runtime.graph._plan import GraphPlan

log = logging.getLogger("sgdebug.runtime")
_NO_VERSIONS: dict[str, int] = {}
_SPECIAL = frozenset(("__error__", "__interrupt__", "__resume__"))
"""Pending writes about a task attempt, not channel writes."""
_NO_RECORD = CommitRecord(-1, ())
"""Returned by a commit nobody watches (no hooks): building a record per step costs time."""
_REPLACING = (LastValue, EphemeralValue, UntrackedValue)
"""Channels whose value after a single write is that write."""
_SET_BY_ONE = frozenset((LastValue, EphemeralValue))
"""Channels whose value after a single write is that write, and that are then available."""
_RESUME_LOCK = threading.Lock()


class _WrittenTwice(Exception):
    """A task wrote one key twice: its writes are applied grouped by key."""


Phase = Literal["plan", "execute", "commit", "done"]
Status = Literal["running", "paused", "done", "interrupted", "error"]


class Run:
    """A run the caller advances; ``invoke`` and ``stream`` are loops over it."""

    def __init__(self, graph: GraphPlan, options: RunOptions) -> None:
        self.graph = graph
        self.options = options
        self.channels: dict[str, BaseChannel] = {
            k: c.copy() for k, c in graph.channel_specs.items()
        }
        self.versions: dict[str, int] = {}
        self.versions_seen: dict[str, dict[str, int]] = {}
        self.max_version = 0
        self.step = -1
        self.stop = -1 + options.recursion_limit + 1
        self.tasks: list[Task] = []
        self.updated: set[str] | None = None
        self.moved: AbstractSet[str] = frozenset()
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
        self.persist: Journal | None = None
        """Set when the run saves checkpoints."""
        self.breakpoint: str | None = None
        """``"before"`` / ``"after"`` when a static breakpoint stopped the run."""
        self.dirty: AbstractSet[str] = frozenset(graph.volatile)
        """Volatile channels that may hold a value (written in the last commit)."""
        self.failure: StepFailure | None = None
        """Why the pending step failed outside its tasks, when a hook kept it (status
        ``error``; the run stands before the step)."""
        self._ids = _IdSource()

    # -- input ---------------------------------------------------------------------------

    def write_input(self, value: Any) -> None:
        """The input step: put the raw input into the ``__start__`` channel."""
        self.stop = self.step + self.options.recursion_limit + 1
        grouped: dict[str, list[Any]] = defaultdict(list)
        grouped[START].append(value)
        if isinstance(value, Command) and value.update is not None:
            for key, item in command_input_writes(self, Command(update=value.update)):
                grouped[key].append(item)
        self._apply(grouped, self.step, quiet=True)
        if self.persist is not None:
            self.persist.save(self, "input")
        self.step += 1

    def restore(self, persist: Journal, values: Mapping[str, Any]) -> None:
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
        self._apply(grouped, self.step, clear=False, quiet=True)

    # -- driving -------------------------------------------------------------------------

    def advance(self, *, one_step: bool = False) -> Status:
        """Run until a hook pauses, the run ends, or (``one_step``) a superstep commits.

        Returns ``"running"`` after a ``one_step`` commit (the next step is then planned),
        else the run's new status.
        """
        self.status = "running"
        self.breakpoint = None
        options = self.options
        stops = options.interrupt_before or options.interrupt_after
        unwatched = not (one_step or stops or options.hooks or options.emit is not None)
        while True:
            if unwatched:  # back to the quick loop after every step it handed over
                status = self._run_unwatched()
                if status is not None:
                    return status
            status = self._settle(one_step)
            if status is not None:
                return status
            status = self._after_execute(self.execute())
            if status is not None:
                return status

    def _run_unwatched(self) -> Status | None:
        """Run steps of one task each while they succeed, for a run nobody watches.

        With no hooks, stream or breakpoints there is nothing to report or stop at between
        plan, execute and commit; this does what :meth:`_settle`, :meth:`execute` and
        :meth:`finish_execute` would, without their checks. Anything else (several tasks, a
        failure, an interrupt, pending sends or writes, the end) is left in the state those
        methods expect, and :meth:`advance` carries on with them (or returns the status of
        a step that failed or was interrupted); a step they executed is committed here.
        """
        # One scope, made current once, serves every task (making one current per task
        # costs more than the rest of a small task's bookkeeping).
        scope = TaskScope(self, None, [])
        scope.outer = SCOPE.get()
        token = SCOPE.set(scope)
        try:
            return self._run_steps(scope)
        finally:
            SCOPE.reset(token)

    def _run_steps(self, scope: TaskScope) -> Status | None:
        channels, persist = self.channels, self.persist
        sends = channels[TASKS]
        assert type(sends) is Topic
        if self.phase == "commit":  # a step executed by advance's own loop
            self._commit_step()
        while self.phase == "plan":
            if self.step > self.stop or self.prefill or sends.values:
                return None
            tasks = self._pull_tasks()
            self.tasks = tasks
            if len(tasks) != 1:
                self.phase = "execute" if tasks else "done"
                return None
            self.phase = "execute"
            task = tasks[0]
            self.run_task(task, scope)
            if not task.done:  # failed or interrupted: finish_execute deals with it
                return self._after_execute(self.finish_execute(tasks))
            if persist is not None:
                persist.defer(task)
            self.phase = "commit"
            self._commit_step()
        return None

    def _commit_step(self) -> CommitRecord | None:
        """:meth:`commit`, keeping the step's task writes if it fails; ``None`` when a hook
        kept the failure (the run is then back before the step, status ``error``)."""
        try:
            return self.commit()
        except BaseException as exc:
            if self.persist is not None:
                self.persist.flush()  # the step's writes stay, as without a commit
            if (
                isinstance(exc, Exception)
                and self.options.hooks
                and keep_failure(self, "commit", exc)
            ):
                return None
            raise

    async def aadvance(self, *, one_step: bool = False) -> Status:
        """:meth:`advance` for ``ainvoke``/``astream``: async nodes run on the event loop."""
        self.status = "running"
        self.breakpoint = None
        while True:
            status = self._settle(one_step)
            if status is not None:
                return status
            status = self._after_execute(await self.aexecute())
            if status is not None:
                return status

    def _settle(self, one_step: bool) -> Status | None:
        """Run plan and commit phases until tasks need executing (``None``) or we stop.

        With ``one_step``, a commit ends the advance once the next step is planned.
        """
        stepped = False
        while True:
            if self.phase == "execute":
                return None
            if self.phase == "done":
                self.status = "done"
                return self.status
            if self.phase == "plan":
                if not self.plan():
                    if self.breakpoint is not None or self.status == "error":
                        return self.status
                    continue
                if self.options.hooks and self._hook("after_plan", self.tasks):
                    return self._pause()
                if stepped:
                    return self.status
            else:
                committed = self.tasks
                record = self._commit_step()
                if record is None:
                    return self.status
                after = self.options.interrupt_after
                if after and self._should_stop(after, committed):
                    self._stop_at_breakpoint("after")
                    return self.status
                if self.options.hooks and self._hook("after_commit", record):
                    return self._pause()
                stepped = one_step

    def _after_execute(self, paused: bool) -> Status | None:
        if self.status in ("error", "interrupted"):
            return self.status
        return self._pause() if paused else None

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
            rollback(self)  # a channel rejected a write: the edit changes nothing
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

    def _pause(self) -> Status:
        self.status = "paused"
        return self.status

    def _hook(self, name: str, arg: Any) -> bool:
        if not self.options.hooks:
            return False
        paused = False
        for hook in self.options.hooks:
            paused = bool(getattr(hook, name)(self, arg)) or paused
        return paused

    # -- plan ----------------------------------------------------------------------------

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
        try:
            if self.channels[TASKS].is_available():
                self.tasks = self._push_tasks() + self._pull_tasks()
            else:
                self.tasks = self._pull_tasks()
        except Exception as exc:
            # Like LangGraph, events of the commit before a step whose inputs cannot be
            # built are not delivered.
            if self.options.emit is not None and self.commit_mark is not None:
                self.options.emit.truncate(self.commit_mark)
            if self.options.hooks and keep_failure(self, "plan", exc):
                self.tasks = []
                return False
            raise
        if self.prefill:
            self._apply_prefill(self.tasks)
        if self.options.emit is not None and self.tasks:
            self.options.emit.planned(self, self.tasks)
        if not self.tasks:
            self.phase = "done"
            return False
        self.phase = "execute"
        before = self.options.interrupt_before
        if before and self._should_stop(before, self.tasks):
            self._stop_at_breakpoint("before")
            return False
        return True

    def _apply_prefill(self, tasks: Sequence[Task]) -> None:
        prefill, self.prefill = self.prefill, {}
        for task in tasks:
            recorded = prefill.get(task.id)
            if not recorded:
                continue
            channels = {w.channel for w in recorded}
            if "__resume__" in channels:
                task.resume = [v for w in recorded if w.channel == "__resume__" for v in w.value]
            regular = [w for w in recorded if w.channel not in _SPECIAL]
            if not regular:
                continue
            task.writes = [(w.channel, w.value) for w in regular if w.channel != "__no_writes__"]
            task.done = True
            self.cached_ids.add(task.id)

    def next_tasks(self, *, add_order: bool = False) -> list[Task]:
        """The tasks the current channels trigger (Send tasks first, then pulled nodes)."""
        if self.channels[TASKS].is_available():
            return self._push_tasks() + self._pull_tasks(add_order)
        return self._pull_tasks(add_order)

    def _should_stop(self, nodes: tuple[str, ...] | str, tasks: Sequence[Task]) -> bool:
        if not nodes:
            return False
        seen = self.versions_seen.get(INTERRUPT, {})
        if not any(v > seen.get(k, 0) for k, v in self.versions.items()):
            return False
        if nodes == "*":
            return any(t.name != START for t in tasks)
        return any(t.name in nodes for t in tasks)

    def _stop_at_breakpoint(self, where: str) -> None:
        self.breakpoint = where
        self.status = "interrupted"
        if self.persist is not None:
            self.persist.mark_interrupt(self)
        else:
            self.versions_seen[INTERRUPT] = dict(self.versions)
        if self.options.emit is not None:
            self.options.emit("updates", {INTERRUPT: ()})

    def _push_tasks(self) -> list[Task]:
        channel = self.channels[TASKS]
        if not channel.is_available():
            return []
        tasks = []
        for index, packet in enumerate(channel.get()):
            node = self.graph.nodes.get(packet.node)
            if node is None:
                log.warning("Ignoring unknown node name %s in pending sends", packet.node)
                continue
            path = (PUSH, index, False)
            tasks.append(self._task(node, path, packet.arg, (PUSH,)))
        return tasks

    def _candidates(self, add_order: bool) -> Sequence[str]:
        """The nodes that may have a pulled task: those the last commit triggered."""
        graph = self.graph
        if add_order:
            return tuple(graph.nodes)
        if self.updated is None:
            return graph.sorted_names
        trigger_map = graph.trigger_to_nodes
        hits = graph.trigger_keys.intersection(self.updated)
        if len(hits) == 1:
            (hit,) = hits
            return trigger_map[hit]
        return sorted({n for ch in hits for n in trigger_map[ch]})

    def _pull_tasks(self, add_order: bool = False) -> list[Task]:
        graph, channels, versions = self.graph, self.channels, self.versions
        tasks = []
        nodes, all_seen = graph.nodes, self.versions_seen
        step, stop, persist, ids = self.step, self.stop, self.persist, self._ids
        for name in self._candidates(add_order):
            node = nodes[name]
            seen = all_seen.get(name) or _NO_VERSIONS
            for trigger in node.triggers:
                if versions.get(trigger, 0) <= seen.get(trigger, 0):
                    continue
                channel = channels[trigger]
                if (
                    channel.value is not MISSING  # type: ignore[attr-defined]
                    if type(channel) in VALUE_CHANNELS
                    else channel.is_available()
                ):
                    if name == START:
                        state = channels[START].get()
                    else:
                        try:
                            state = node.reader.read(channels, step, stop)
                        except Exception as exc:
                            exc.add_note(
                                f"Before task with name '{name}' and path '{node.pull_path}'"
                            )
                            raise
                    if persist is None:
                        ids.count += 1
                        task = Task(
                            f"{ids.prefix}{ids.count:012x}",
                            name, node.pull_path, state, node.triggers, node,
                        )  # fmt: skip
                    else:
                        task = Task(
                            None, name, node.pull_path, state, node.triggers, node,
                            "none" if persist.head is None else persist.head,
                        )  # fmt: skip
                    tasks.append(task)
                    break
        return tasks

    def _task(
        self, node: CompiledNode, path: tuple[Any, ...], value: Any, triggers: tuple[str, ...]
    ) -> Task:
        persist = self.persist
        if persist is None:
            ids = self._ids
            ids.count += 1
            return Task(f"{ids.prefix}{ids.count:012x}", node.name, path, value, triggers, node)
        base = "none" if persist.head is None else persist.head
        return Task(None, node.name, path, value, triggers, node, base)

    # -- execute -------------------------------------------------------------------------

    def execute(self) -> bool:
        """Run every pending task of the step; return True if a hook asked to pause."""
        tasks = self.tasks
        if len(tasks) == 1 and not tasks[0].done:
            self.run_task(tasks[0])
            return self.finish_execute(tasks)
        pending = self._pending()
        run_tasks(self, pending)
        return self.finish_execute(pending)

    async def aexecute(self) -> bool:
        """:meth:`execute` on the event loop."""
        pending = self._pending()
        await arun_tasks(self, pending)
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
        emit = self.options.emit
        persist = self.persist
        if len(ran) == 1 and len(self.tasks) == 1 and emit is None:
            task = ran[0]
            if task.done and not self.options.hooks:
                if persist is not None:
                    persist.task_done(task, defer=True)
                self.phase = "commit"
                return False
        paused = False
        if emit is not None:
            for task in ran:
                if task.interrupts:
                    emit.interrupted(self, task)
        # Without hooks or a stream nothing can read the saver before the step's save, so
        # the writes of finished tasks are stored with its checkpoint, in one call.
        defer = emit is None and not self.options.hooks
        for task in ran:
            if persist is not None:
                persist.task_done(task, defer=defer)
            if emit is not None and (task.error is None or task.writes):
                if len(self.tasks) == 1 and task.done:
                    self.deferred = [task]  # reported once its commit succeeds
                else:
                    emit.task_result(self, task)
            paused = self._hook("after_task", task) or paused
        failed = self.failed
        if failed is not None:
            if persist is not None:
                persist.flush()
                persist.check_mutations(self, self.tasks, committed=False)
            error = failed.error
            assert error is not None
            if any([bool(h.on_error(self, failed, error)) for h in self.options.hooks]):
                self.status = "error"
                return False
            raise error
        done = True
        for task in self.tasks:
            if task.interrupts:
                if persist is not None:
                    persist.flush()
                self._interrupted()
                return False
            done = done and task.done
        if done:
            self.phase = "commit"
        return paused

    def run_task(self, task: Task, scope: TaskScope | None = None) -> None:
        """Execute one task (in this thread), recording writes, error or interrupts.

        ``scope`` is a reused scope already current in this thread (see
        :meth:`_run_unwatched`); without it, one is made current for the call.
        """
        task.error, task.interrupts, task.writes, task.applied = None, (), [], None
        if task.resume is None:
            task.resume = []
        if scope is None:
            scope = TaskScope(self, task, task.resume)
            token = SCOPE.set(scope)
        else:  # start the reused scope on this task's attempt
            scope.task, scope.resume, scope.counter, scope.config = task, task.resume, 0, None
            token = None
        try:
            task.writes = call_task(self, task, scope)
            task.done = True
        except GraphInterrupt as exc:
            task.interrupts = exc.interrupts
        except Exception as exc:
            exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
            task.error = exc
        finally:
            if token is None:
                scope.task = None
            else:
                SCOPE.reset(token)

    async def arun_task(self, task: Task) -> None:
        """Execute one async task on the running event loop."""
        scope = self._enter(task)
        token = enter_scope(scope)
        try:
            task.writes = await acall_task(self, task, scope)
            task.done = True
        except GraphInterrupt as exc:
            task.interrupts = exc.interrupts
        except Exception as exc:
            exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
            task.error = exc
        finally:
            leave_scope(token)

    def _enter(self, task: Task) -> TaskScope:
        task.error, task.interrupts, task.writes, task.applied = None, (), [], None
        if task.resume is None:
            task.resume = []
        return TaskScope(self, task, task.resume)

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

    def branch_writes(self, task: Task, writes: Sequence[Write], raw: Any) -> list[Write]:
        """Static edges, joins and conditional edges of ``task``'s node, after its writes."""
        node = task.node
        out: list[Write] = list(node.static_writes)
        if not node.branches:
            return out
        for branch, reader in node.branches:
            try:
                state = self._local_state(
                    task, writes, reader or self.graph.state_reader, raw, reader
                )
            except Exception:
                task.writes = []
                raise
            result = branch.path(state)
            if type(result) is str:
                # A node name (or path-map key): its routing writes are the same every time.
                cache = node.route_cache.get(branch.name)
                if cache is None:
                    cache = node.route_cache[branch.name] = {}
                routes = cache.get(result)
                if routes is None:
                    dests = branch_destinations(branch, result)
                    routes = cache[result] = tuple(route_writes(dests, self.graph.target))
                out.extend(routes)
                continue
            if type(result) not in PLAIN and inspect.isawaitable(result):
                result = _await(result)
            out.extend(route_writes(branch_destinations(branch, result), self.graph.target))
        return out

    async def abranch_writes(self, task: Task, writes: Sequence[Write], raw: Any) -> list[Write]:
        """:meth:`branch_writes` on the event loop (async path functions are awaited)."""
        out: list[Write] = list(task.node.static_writes)
        for branch, state in self._branch_inputs(task, writes, raw):
            result = branch.path(state)
            if inspect.isawaitable(result):
                result = await result
            out.extend(route_writes(branch_destinations(branch, result), self.graph.target))
        return out

    def _branch_inputs(
        self, task: Task, writes: Sequence[Write], raw: Any
    ) -> Iterator[tuple[Any, Any]]:
        for branch, reader in task.node.branches:
            try:
                state = self._local_state(
                    task, writes, reader or self.graph.state_reader, raw, reader
                )
            except Exception:
                task.writes = []
                raise
            yield branch, state

    def _local_state(
        self, task: Task, writes: Sequence[Write], reader: Any, raw: Any, narrow: Any
    ) -> Any:
        """The state as ``reader`` sees it with only this task's own writes applied."""
        channels = self.channels
        if task.applied is None:
            # One task's writes applied on their own: usually each key once, applied as
            # they come; a key written twice (or a failure) goes to the grouped version.
            state_keys = self.graph.state_keys
            overrides: dict[str, Any] = {}
            applied: dict[str, Any] = {}
            try:
                for key, value in writes:
                    if key not in state_keys:
                        continue
                    if key in overrides:
                        raise _WrittenTwice
                    channel = channels[key]
                    if type(channel) in _REPLACING:
                        overrides[key] = value
                    elif type(channel) is BinaryOperatorAggregate:
                        channel = applied[key] = channel.folded(value)
                        overrides[key] = channel.value
                    else:
                        channel = applied[key] = channel.copy()
                        channel.update((value,))
                        overrides[key] = channel.peek()
            except Exception:
                overrides, applied = self._own_writes_grouped(writes)
            task.applied = applied
        else:
            overrides = {}
            for key, value in writes:
                if key in self.graph.state_keys:
                    overrides[key] = value
            for key, channel in task.applied.items():
                overrides[key] = channel.peek()
        state = reader.read(channels, self.step, self.stop, overrides)
        if narrow is None and isinstance(raw, dict) and isinstance(state, dict):
            return {**raw, **state}
        return state

    def _own_writes_grouped(self, writes: Sequence[Write]) -> tuple[dict[str, Any], dict[str, Any]]:
        """One task's state writes applied on their own, grouped by key: (key → new value,
        key → a copy of its channel with them applied, for channels a write does not simply
        replace). The grouped application decides which failure a step reports."""
        channels, state_keys = self.channels, self.graph.state_keys
        grouped: dict[str, list[Any]] = {}
        for key, value in writes:
            if key in state_keys:
                grouped.setdefault(key, []).append(value)
        overrides: dict[str, Any] = {}
        applied: dict[str, Any] = {}
        for key, values in grouped.items():
            channel = channels[key]
            if len(values) == 1 and type(channel) in _REPLACING:
                overrides[key] = values[0]
            else:
                channel = applied[key] = channel.copy()
                channel.update(values)
                overrides[key] = channel.peek()
        return overrides, applied

    # -- commit --------------------------------------------------------------------------

    def commit(self) -> CommitRecord:
        """Apply the step's writes in task-path order and start the next step."""
        tasks = sorted(self.tasks, key=_path_key) if len(self.tasks) > 1 else self.tasks
        seen, versions, channels = self.versions_seen, self.versions, self.channels
        consumed: set[str] = set()
        for task in tasks:
            if task.path[0] == PULL:
                # A new dict, not an update: saved checkpoints share the one they hold.
                mark = dict(seen.get(task.name) or ())
                for trigger in task.triggers:
                    if trigger in versions:
                        mark[trigger] = versions[trigger]
                seen[task.name] = mark
                if task.node.consumes:
                    consumed.update(task.node.consumes)
        grouped: dict[str, list[Any]] = {}
        owners: dict[str, list[Task]] | None = defaultdict(list) if self.options.hooks else None
        for task in tasks:
            for key, value in task.writes:
                if key in channels:
                    if key in grouped:
                        grouped[key].append(value)
                    else:
                        grouped[key] = [value]
                    if owners is not None:
                        owners[key].append(task)
                else:
                    log.warning(
                        "Task %s with path %s wrote to unknown channel %s, ignoring it.",
                        task.name,
                        task.path,
                        key,
                    )
        emit = self.options.emit
        self.commit_mark = len(emit.events) if emit is not None else None
        applied = tasks[0].applied if len(tasks) == 1 else None
        record = self._apply(grouped, self.step, consumed=consumed, owners=owners, applied=applied)
        if record is not _NO_RECORD:
            record = replace(record, tasks=tuple(t.name for t in tasks))
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
        step: int,
        *,
        consumed: set[str] | frozenset[str] = frozenset(),
        owners: Mapping[str, list[Task]] | None = None,
        clear: bool = True,
        quiet: bool = False,
        applied: Mapping[str, BaseChannel] | None = None,
    ) -> CommitRecord:
        channels, versions = self.channels, self.versions
        before = {k: channels[k].checkpoint() for k in channels} if owners is not None else None
        self.max_version += 1
        version = self.max_version
        updated: set[str] = set()
        unlisted: list[str] = []  # versions moved, but not in ``updated``
        if consumed:
            for key in consumed:
                if key in channels and channels[key].consume():
                    versions[key] = version
                    unlisted.append(key)
        for key, values in grouped.items():
            if applied and key in applied:
                # The task's conditional edge already reduced exactly these writes.
                channel = channels[key] = applied[key]
                versions[key] = version
                if (
                    channel.value is not MISSING  # type: ignore[attr-defined]
                    if type(channel) in VALUE_CHANNELS
                    else channel.is_available()
                ):
                    updated.add(key)
                else:
                    unlisted.append(key)
                continue
            channel = channels[key]
            if type(channel) in _SET_BY_ONE and len(values) == 1:
                channel.value = values[0]  # type: ignore[attr-defined]  # update(), inlined
                versions[key] = version
                updated.add(key)
            elif channel.update(values):
                versions[key] = version
                if channel.is_available():
                    updated.add(key)
                else:
                    unlisted.append(key)
        volatile = self.graph.volatile_set
        if clear:
            for key in self.dirty:
                channel = channels[key]
                if key not in grouped and channel.update(()):
                    versions[key] = version
                    if channel.is_available():
                        updated.add(key)
                    else:
                        unlisted.append(key)
            self.dirty = volatile.intersection(grouped)
        else:
            self.dirty = self.dirty | volatile.intersection(grouped)
        if clear and self.graph.trigger_keys.isdisjoint(updated):
            for key, channel in channels.items():
                if channel.finish():
                    versions[key] = version
                    updated.add(key)
        if clear or self.updated is None:
            self.updated = updated if clear else None
        else:
            self.updated = self.updated | updated
        self.moved = updated.union(unlisted) if unlisted else updated
        self.applies += 1
        if not quiet:
            if not self.watched_changed and self.options.watch:
                self.watched_changed = not self.options.watch.isdisjoint(updated)
            emit = self.options.emit
            if emit is not None:
                emit.values(self, updated)
        if before is None:
            return _NO_RECORD
        return self._record(step, before, grouped, owners or {})

    def _record(
        self,
        step: int,
        before: Mapping[str, Any],
        grouped: Mapping[str, list[Any]],
        owners: Mapping[str, list[Task]],
    ) -> CommitRecord:
        changes = []
        for key, channel in self.channels.items():
            new = channel.checkpoint()
            if key not in grouped and new is before[key]:
                continue
            tasks = owners.get(key, [])
            writes = tuple(
                TaskWrite(t.id, t.name, v)
                for t, v in zip(tasks, grouped.get(key, ()), strict=False)
            )
            changes.append(ChannelChange(key, before[key], writes, new, self.versions.get(key, 0)))
        return CommitRecord(step, tuple(changes))

    # -- interrupts ------------------------------------------------------------------------

    def _interrupted(self) -> None:
        self.interrupts = tuple(i for t in self.tasks for i in t.interrupts)
        self.status = "interrupted"
        self.phase = "execute"
        done = [t for t in sorted(self.tasks, key=_path_key) if t.done]
        if done:
            grouped: dict[str, list[Any]] = defaultdict(list)
            for task in done:
                for key, value in task.writes:
                    if key in self.graph.state_keys:
                        grouped[key].append(value)
            self._apply(grouped, self.step, clear=False)

    # -- values --------------------------------------------------------------------------

    def read_values(self, keys: Sequence[str] | str) -> Any:
        """The current values of ``keys`` (a single key gives the bare value)."""
        if isinstance(keys, str):
            channel = self.channels[keys]
            return channel.get() if channel.is_available() else None
        return {k: self.channels[k].get() for k in keys if self.channels[k].is_available()}


__all__ = ["PLAIN", "Run", "RunOptions", "Task", "command_input_writes"]
