"""The state of a run, and how writes change it: channels, versions, the step, the tasks.

:class:`RunState` is what a :class:`~sgdebug.runtime.engine._view.RunView` reads, plus
the operations that change channel state outside the superstep loop (the input, a
restore, an edit's writes, a rollback) and the one that applies a step's writes. The loop
itself, which sequences plan, execute and commit, is :class:`~._run.Run`.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Literal, cast

from sgdebug.runtime._constants import INTERRUPT, START
from sgdebug.runtime.channels import BaseChannel
from sgdebug.runtime.engine._apply import (
    Moved,
    apply_single,
    apply_writes,
    clear_unwritten,
    commit_record,
    consume_triggers,
    empty_record,
    finish_channels,
)
from sgdebug.runtime.engine._calling import task_config
from sgdebug.runtime.engine._context import ScopeOwner, TaskScope, TaskWrap
from sgdebug.runtime.engine._forward import passes_on_only
from sgdebug.runtime.engine._journal import Journal, Mutation
from sgdebug.runtime.engine._observer import QUIET, HookObserver, Observer
from sgdebug.runtime.engine._options import RunOptions
from sgdebug.runtime.engine._plan import plan_tasks
from sgdebug.runtime.engine._records import CommitRecord
from sgdebug.runtime.engine._step_failure import StepFailure
from sgdebug.runtime.engine._stream import Emitter
from sgdebug.runtime.engine._task import Task, TaskIds, command_input_writes, path_key
from sgdebug.runtime.engine._view import Phase, Status
from sgdebug.runtime.graph._node import Write
from sgdebug.runtime.graph._plan import GraphPlan
from sgdebug.runtime.types import Command, Interrupt

if TYPE_CHECKING:
    from sgdebug.runtime.engine._messages_mode import MessagesStream

__all__ = ["NO_RECORD", "ApplyKind", "RunState"]

NO_RECORD = empty_record(-1)
"""Returned by a commit nobody watches: building a record per step costs time."""
_NOTHING: frozenset[str] = frozenset()
_RESUME_LOCK = threading.Lock()
_new = tuple.__new__
ApplyKind = Literal["step", "lone", "input", "edit", "interrupt"]


class RunState:
    """A run's state and the writes that change it (``Run`` adds the superstep loop).

    Slotted: every step reads and sets its attributes dozens of times, and CPython 3.11
    keeps an instance's attributes in its fast layout only up to 30 of them (past that,
    each access costs about twice as much); an attribute a run does not declare raises.
    """

    __slots__ = (
        "_inline", "announces", "applies", "breakpoint", "cached_ids", "channels",
        "commit_mark", "deferred", "dirty", "failure", "graph", "ids", "interrupts",
        "last_commit", "max_version", "messages", "moved", "null_resume", "observer", "options",
        "persist", "phase", "prefill", "resume_map", "status", "step", "stop", "tasks",
        "unsaved", "updated", "versions", "versions_seen", "watched_changed", "wrap",
    )  # fmt: skip

    def __init__(self, graph: GraphPlan, options: RunOptions) -> None:
        self.graph = graph
        self.options = options
        self.observer: Observer = HookObserver(options.hooks) if options.hooks else QUIET
        """Who watches the run's pause points (the no-op :data:`QUIET` without hooks)."""
        self.messages: MessagesStream | None = (
            options.emit.messages if options.emit is not None else None
        )
        """The stream's ``messages`` mode, when it is streamed (its tasks' chat models
        stream to it)."""
        callbacks = options.config.get("callbacks")
        self.wrap: TaskWrap | None = self.messages
        """What runs around each task: with ``config["callbacks"]``, its tasks as chain runs
        of them (which also serve the ``messages`` stream); else the stream's ``messages``
        mode, if streamed; else nothing."""
        if callbacks:
            from sgdebug.runtime.engine._node_runs import NodeRuns

            self.wrap = NodeRuns(callbacks, self.messages)
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
        self.resume_map: dict[str, Any] = {}
        """``Command(resume={interrupt_id: answer})``'s answers, for subgraphs' interrupts."""
        self.commit_mark: int | None = None
        """Where the last commit's stream events start in the emitter's buffer."""
        self.deferred: list[Task] = []
        """A lone task whose ``updates`` event waits for its commit to succeed."""
        self.unsaved: Task | None = None
        """The step's one finished task when nothing watches the run: its writes are not
        recorded yet; the step's save stores them with its checkpoint (see ``Run.commit``)."""
        self.prefill: dict[str, list[Any]] = {}
        """Writes recorded for tasks of the pending step, by task id (from a checkpoint)."""
        self.persist: Journal[RunState] | None = None
        """Set when the run saves checkpoints."""
        self.breakpoint: str | None = None
        """``"before"`` / ``"after"`` when a static breakpoint stopped the run."""
        self.dirty: AbstractSet[str] = frozenset(graph.volatile)
        """Volatile channels that may hold a value (written in the last commit)."""
        self.failure: StepFailure | None = None
        """Why the pending step failed outside its tasks, when a hook kept it (status
        ``error``; the run stands before the step)."""
        self.ids = TaskIds()
        self.announces = bool(
            options.interrupt_before or options.control is not None or options.emit is not None
        )
        """Whether a planned step is checked or reported (a breakpoint before nodes, a drain
        request, a stream): decided once, the options of a run do not change."""
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
    def durability(self) -> str | None:
        """``invoke(..., durability=)``, or the parent run's for a subgraph's run."""
        return self.options.durability

    @property
    def store(self) -> Any:
        """The store the run's nodes get (``None`` without one)."""
        return self.options.store

    @property
    def emit(self) -> Emitter | None:
        """Collects the run's stream events (``None`` when nobody streams it)."""
        return self.options.emit

    @property
    def namespace(self) -> tuple[str, ...]:
        """The run's checkpoint namespace (``()`` unless it is a subgraph's run)."""
        parent = self.options.parent
        return () if parent is None else parent.namespace

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
        """The first failed task of the pending step, if the step failed (a failure handed to
        an error handler left its task done: it does not fail the step)."""
        return next((t for t in self.tasks if t.error is not None and not t.done), None)

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

    def restore(self, persist: Journal[RunState], values: Mapping[str, Any]) -> None:
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
        # Like LangGraph, the limit counts from the step the run continues at.
        self.stop = self.step + self.options.recursion_limit + 1
        self.persist = persist
        self.updated = None

    def apply_writes(self, writes: Sequence[Write]) -> None:
        """Apply writes now, outside a superstep (a resume's ``Command`` update or goto)."""
        grouped: dict[str, list[Any]] = defaultdict(list)
        for key, value in writes:
            if key in self.channels:
                grouped[key].append(value)
        self._apply(grouped, "edit")

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

    def next_tasks(self, *, add_order: bool = False) -> list[Task]:
        """The tasks the current channels trigger (Send tasks first, then pulled nodes)."""
        if self.persist is not None:
            head = self.persist.head
            self.ids.base = "none" if head is None else head
        return plan_tasks(self, self.ids, add_order=add_order)

    # -- what a running task's scope asks of its run ----------------------------------------

    def task_config(self, task: Task) -> dict[str, Any]:
        """The config a node of ``task`` receives."""
        return task_config(self, task)

    def take_null_resume(self) -> tuple[bool, Any]:
        """Consume the run-wide resume value, if one is left (a subgraph's run, which has
        none of its own, takes its parent's: the answer given to the root graph)."""
        with _RESUME_LOCK:
            if self.null_resume:
                return True, self.null_resume.pop()
        parent = self.options.parent
        if parent is not None:
            return cast("ScopeOwner", parent.run).take_null_resume()
        return False, None

    def answer_for(self, interrupt_id: str) -> tuple[bool, Any]:
        """The answer ``Command(resume={id: answer})`` gave the interrupt ``interrupt_id``
        (raised in a subgraph: the root graph's run holds the answers)."""
        if interrupt_id in self.resume_map:
            return True, self.resume_map[interrupt_id]
        parent = self.options.parent
        if parent is not None:
            return cast("ScopeOwner", parent.run).answer_for(interrupt_id)
        return False, None

    def custom_writer(self) -> Callable[[Any], None]:
        """The writer behind a node's ``writer`` parameter and ``get_stream_writer()``."""
        emit = self.options.emit
        if emit is None:
            return lambda _chunk: None
        return lambda chunk: emit("custom", chunk)

    def _apply(
        self,
        grouped: Mapping[str, Any],
        kind: ApplyKind,
        consumed: AbstractSet[str] = _NOTHING,
        owners: Mapping[str, list[Task]] | None = None,
        applied: Mapping[str, BaseChannel] | None = None,
    ) -> CommitRecord:
        """Apply grouped writes (key -> its writes). ``kind``: ``step`` (a superstep's:
        volatile channels clear, waiting ones may finish), ``lone`` (a step's, whose one task
        wrote each key once: ``grouped`` maps each key to its one value, see
        ``lone_writes``), ``input`` (the input step's, unreported), ``edit`` (between steps,
        unreported), ``interrupt`` (an interrupted step's finished tasks)."""
        channels, graph = self.channels, self.graph
        before = {k: c.checkpoint() for k, c in channels.items()} if owners is not None else None
        self.max_version += 1
        updated: set[str] = set()
        unlisted: list[str] = []
        moved = _new(Moved, (self.versions, self.max_version, updated, unlisted))  # (Moved.at())
        if consumed:
            consume_triggers(channels, consumed, moved)
        if kind == "lone":
            apply_single(channels, grouped, moved, applied)
        else:
            apply_writes(channels, grouped, moved, applied)
        if kind in ("step", "lone", "input"):  # a full step: unwritten volatile channels clear
            written = graph.volatile_set.intersection(grouped)
            if not self.dirty <= written:  # (dirty ones are volatile: usually all written again)
                clear_unwritten(channels, self.dirty, grouped, moved)
            self.dirty = written
            if graph.trigger_keys.isdisjoint(updated):
                finish_channels(channels, moved)  # nothing else would run next
            self.updated = updated
        else:
            self.dirty = self.dirty | graph.volatile_set.intersection(grouped)
            self.updated = None if self.updated is None else self.updated | updated
        self.moved = updated.union(unlisted) if unlisted else updated
        self.applies += 1
        options = self.options
        watching = options.watch and not self.watched_changed
        if (watching or options.emit is not None) and kind in ("step", "lone", "interrupt"):
            self._report_values(updated)
        if before is None:
            return NO_RECORD
        changes = commit_record(channels, self.versions, before, grouped, owners or {})
        return CommitRecord(self.step, changes)

    def _interrupted(self) -> None:
        """A task of the pending step stopped on ``interrupt()``: the step stays pending
        (to run again on resume); its finished tasks' state writes are applied."""
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
        emit = self.options.emit
        if emit is not None and not self.interrupts and not passes_on_only(emit):
            emit("updates", {INTERRUPT: ()})  # a subgraph stopped at a breakpoint of its own

    def _report_values(self, updated: set[str]) -> None:
        watch = self.options.watch
        if watch and not self.watched_changed:
            self.watched_changed = not watch.isdisjoint(updated)
        emit = self.options.emit
        if emit is not None:
            emit.values(self, updated)
