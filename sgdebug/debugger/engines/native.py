"""The native engine: ``sgdebug.runtime`` behind the engine protocol, every feature on.

It compiles the user's graph again with the session's checkpointer and drives the runtime's
:class:`~sgdebug.runtime.Run` through its public API: a pause hook tells the session's
observer what happens, one task can run at a time, and in-place mutations are reported.

After ``open`` (``goto``, reopening a session file) there is no live run: the position is a
checkpoint, read back from the checkpointer. The first call that runs or edits creates the
run from it: from the thread's latest snapshot that continues the thread; from an older
one it is a fork, a new branch, and the old one stays in history.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sgdebug.debugger.engine import Capabilities, EngineRefused, Observer, Settled
from sgdebug.debugger.engines import _native_breaks as breaks
from sgdebug.debugger.engines import _native_subgraphs as inner
from sgdebug.debugger.engines._native_history import history, stored_versions
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import ErrorInfo, HistoryEntry, Mutation, TaskInfo
from sgdebug.debugger.runinfo import (
    error_info,
    failure_info,
    mutation,
    pregel_task_info,
    task_info,
)
from sgdebug.debugger.subframes import SubgraphStep, read_subgraph_steps
from sgdebug.inspect import ChannelRow, LastChange, channel_rows, snapshot_channel_rows
from sgdebug.runtime import (
    BaseHook,
    CommitRecord,
    CompiledStateGraph,
    Interrupt,
    Run,
    RunView,
    StateSnapshot,
    StepFailure,
    Task,
    add_messages,
    inspect_state,
)
from sgdebug.runtime.channels import BinaryOperatorAggregate
from sgdebug.runtime.checkpoint import BaseCheckpointSaver, InMemorySaver

__all__ = ["NativeEngine"]

CAPABILITIES = Capabilities("native", "sgdebug.runtime (every feature)")


class _Hook(BaseHook):
    """Tells the session's observer what the run does (the only hook a session's run has)."""

    def __init__(self) -> None:
        self.observer: Observer | None = None

    def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
        observer = self.observer
        return observer is not None and observer.planned(
            run.step, tuple(task_info(t) for t in tasks)
        )

    def after_task(self, run: RunView, task: Task) -> bool:
        inner.report_inner_tasks(run, self.observer)
        if self.observer is not None:
            self.observer.task_ran(task_info(task))
        return False

    def after_commit(self, run: RunView, record: CommitRecord) -> bool:
        if self.observer is not None:
            self.observer.committed(record, run.checkpoint_id)
        return False

    def on_error(self, run: RunView, task: Task, error: BaseException) -> bool:
        if self.observer is None:
            return False
        state = run.read_values(run.graph.stream_keys)
        return self.observer.errored(error_info(error, task=task, step=run.step, state=state))

    def on_step_error(self, run: RunView, failure: StepFailure) -> bool:
        if self.observer is None:
            return False
        state = run.read_values(run.graph.stream_keys)
        return self.observer.errored(failure_info(failure, state=state))


@dataclass(frozen=True, slots=True)
class _Preview:
    """A position read back from the checkpointer (no live run)."""

    snapshot: StateSnapshot
    step: int
    tasks: tuple[TaskInfo, ...]
    interrupts: tuple[Interrupt, ...]
    failure: ErrorInfo | None = None
    """Why its pending step fails outside its tasks (its stored writes, or inputs)."""


class NativeEngine:
    """``sgdebug.runtime``: the session's thread, its live run (if any) and its position."""

    capabilities = CAPABILITIES

    def __init__(
        self, graph: CompiledStateGraph, saver: Any = None, recursion_limit: int | None = None
    ) -> None:
        if saver is None:
            from sgdebug.runtime.checkpoint import InMemorySaver

            saver = InMemorySaver()
        self.compiled: CompiledStateGraph = graph.builder.compile(
            checkpointer=saver, name=graph.name, store=graph.store, cache=graph.cache
        )
        """The user's graph compiled with the session's checkpointer (and the user's node
        cache): what actually runs."""
        self.graph = self.compiled
        self.model = _Model(self.compiled, graph)
        self.recursion_limit = recursion_limit
        self.thread_id: str | None = None
        self.run: Run | None = None
        self.cursor: str | None = None
        """The checkpoint the session is at when there is no live run."""
        self.mutations: list[Mutation] = []
        self._seen = 0
        self._preview: _Preview | None = None
        self._hook = _Hook()
        self._subgraphs = inner.SubgraphUse(self.compiled)  # (tasks reported, frames read)

    # -- where the session stands ----------------------------------------------------------

    @property
    def live(self) -> bool:
        return self.run is not None

    @property
    def checkpoint_id(self) -> str | None:
        run = self.run
        if run is not None and run.checkpoint_id is not None:
            return run.checkpoint_id
        return self.cursor

    @property
    def step(self) -> int:
        if self.run is not None:
            return self.run.step
        if self.thread_id is None or self.cursor is None:
            return -1
        return self._at().step

    def values(self) -> Any:
        if self.run is not None:
            return self.run.read_values(self.compiled.stream_keys)
        if self.thread_id is None or self.cursor is None:
            return {}
        return self._at().snapshot.values

    def tasks(self) -> tuple[TaskInfo, ...]:
        if self.run is None:
            if self.thread_id is None or self.cursor is None:
                return ()
            return self._at().tasks  # (with the subgraph states it stands in)
        found = tuple(task_info(t) for t in self.run.tasks)
        inside = self.run.status == "interrupted"  # (an interrupt or a breakpoint)
        return self._subgraphs.with_states(
            self.thread_id, self.checkpoint_id, found, stopped=inside
        )

    def edit_frame(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]]) -> None:
        inner.edit_frame(self.compiled, config, writes)

    def subgraph_steps(self) -> tuple[SubgraphStep, ...]:
        return read_subgraph_steps(self.compiled, self.compiled.checkpointer, self.thread_id)

    def interrupts(self) -> tuple[Interrupt, ...]:
        if self.run is not None:
            return tuple(self.run.interrupts)
        if self.thread_id is None or self.cursor is None:
            return ()
        return self._at().interrupts

    def snapshot(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        checkpoint = checkpoint_id or self.checkpoint_id
        if self.thread_id is None or checkpoint is None:
            return None
        latest = checkpoint == self.latest_id()
        config = config_for(self.thread_id, None if latest else checkpoint)
        return inspect_state(self.compiled, config)[0]  # (where get_state would raise)

    def failure(self) -> ErrorInfo | None:
        run = self.run
        if run is not None:
            found = run.failure if run.status == "error" else None
            return None if found is None else failure_info(found, state=self.values())
        if self.thread_id is None or self.cursor is None:
            return None
        return self._at().failure

    def latest_id(self) -> str | None:
        if self.thread_id is None:
            return None
        record = self.compiled.checkpointer.get_record(self.thread_id)
        return record.id if record is not None else None

    def is_latest(self) -> bool:
        current = self.checkpoint_id
        return current is not None and current == self.latest_id()

    def find(self, thread_id: str, checkpoint_id: str | None = None) -> str | None:
        _import_message_classes(self.compiled)
        record = self.compiled.checkpointer.get_record(thread_id, checkpoint_id)
        return record.id if record is not None else None

    def threads(self) -> tuple[str, ...]:
        threads = getattr(self.compiled.checkpointer, "threads", None)
        return tuple(threads()) if callable(threads) else ()

    def history(self) -> tuple[HistoryEntry, ...]:
        if self.thread_id is None:
            return ()
        return history(self.compiled, self.thread_id, self.checkpoint_id)

    def snapshot_index(self) -> int | None:
        current = self.checkpoint_id
        if self.thread_id is None or current is None or self.find(self.thread_id, current) is None:
            return None
        saver: BaseCheckpointSaver = self.compiled.checkpointer
        return saver.count_before(self.thread_id, current)

    # -- moving ----------------------------------------------------------------------------

    def start(self, thread_id: str, input: Any, checkpoint_id: str | None) -> None:
        config = config_for(thread_id, checkpoint_id)
        if self.recursion_limit is not None:
            config["recursion_limit"] = self.recursion_limit
        try:
            streams = self._subgraphs.streams()
            run = self.compiled.start(input, config, hooks=[self._hook], **streams)
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self.drop()
        if thread_id != self.thread_id:
            self.mutations = []
        self.thread_id, self.run, self._seen, self._preview = thread_id, run, 0, None

    def open(self, thread_id: str, checkpoint_id: str) -> None:
        self.drop()
        if thread_id != self.thread_id:
            self.mutations = []
        self.thread_id = thread_id
        self.cursor = checkpoint_id
        self._preview = None  # (read again: it was of the snapshot the session stood at)

    def advance(self, observer: Observer) -> Settled:
        return self._advance(self._moving(), observer)

    def run_task(self, node: str | None, observer: Observer) -> Settled:
        run = self._moving()
        pending = [t for t in run.tasks if not t.done and t.error is None]
        chosen = next((t for t in pending if node is None or t.name == node), None)
        if chosen is None:
            names = ", ".join(t.name for t in pending) or "none"
            asked = f" of node {node!r}" if node else ""
            raise EngineRefused(f"no pending task{asked} (pending: {names})")
        self._hook.observer = observer
        breaks.arm(run, observer)
        status = run.run_one(chosen)
        if status not in ("error", "interrupted") and run.phase == "commit":
            status = run.advance()
        return self._settled(run, status, observer)

    def retry(self, observer: Observer) -> Settled:
        run = self.run
        if run is not None and run.status == "error":
            run.retry()
        return self.advance(observer)

    def resume(self, answer: Any) -> None:
        assert self.thread_id is not None
        self.start(self.thread_id, answer, self.checkpoint_id)

    def edit(self, writes: Sequence[tuple[str, Any]]) -> int:
        run = self._run()
        done = [t for t in run.tasks if t.done]
        self._hook.observer = _Quiet()  # the edited step's inputs may fail: kept, to edit again
        try:
            run.edit(writes, discard_done=True)
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        finally:
            self._hook.observer = None
        return len(done)

    def update_as(self, values: Mapping[str, Any], as_node: str) -> None:
        assert self.thread_id is not None
        try:
            config = self.compiled.update_state(
                config_for(self.thread_id, self.checkpoint_id), dict(values), as_node
            )
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self.open(self.thread_id, config["configurable"]["checkpoint_id"])
        self._run()

    def drop(self) -> None:
        if self.run is None:
            return
        self.collect_mutations()
        self.cursor = self.checkpoint_id
        self.run = None
        self._preview = None

    def channel_rows(self, changes: Sequence[LastChange]) -> tuple[ChannelRow, ...]:
        if self.run is not None:
            return channel_rows(self.compiled, self.run, changes)
        snapshot = self.snapshot()
        if snapshot is None:
            return ()
        versions = stored_versions(self.compiled.checkpointer, self.thread_id, self.checkpoint_id)
        return snapshot_channel_rows(self.model, snapshot, changes, versions=versions)

    def collect_mutations(self) -> list[Mutation]:
        run = self.run
        if run is None:
            return []
        found = run.mutations[self._seen :]
        self._seen += len(found)
        new = [mutation(m) for m in found]
        self.mutations.extend(new)
        return new

    # -- machinery -------------------------------------------------------------------------

    def materialise(self) -> None:
        if self.run is None:
            assert self.thread_id is not None
            # The latest goes on (into a subgraph it stopped in); an older one is forked.
            self.start(self.thread_id, None, None if self.is_latest() else self.cursor)

    def _run(self) -> Run:
        """The live run, created from the current snapshot (paused at its plan) if needed."""
        if self.run is None:
            self.materialise()
            assert self.run is not None
            self._advance(self.run, _Quiet())
        assert self.run is not None
        return self.run

    def _moving(self) -> Run:
        """The run to move on (after a stop inside a subgraph: see :meth:`_reentered`)."""
        run = self._run()
        if run.status == "interrupted" and not run.interrupts:
            self.drop()
            run = self._run()
        return run

    def _advance(self, run: Run, observer: Observer) -> Settled:
        self._hook.observer = observer
        breaks.arm(run, observer)
        try:
            return self._settled(run, run.advance(), observer)
        finally:
            self._hook.observer = None

    def _settled(self, run: Run, status: str, observer: Observer) -> Settled:
        while status == "interrupted" and not run.interrupts:  # a stop inside a subgraph
            if self._stays_inside(run, observer):
                return Settled("paused", run.step)
            run, status = self._reentered(observer)  # no breakpoint fired there: go past it
        if status == "error":
            state = run.read_values(self.compiled.stream_keys)
            if run.failure is not None:
                return Settled("error", run.step, error=failure_info(run.failure, state=state))
            task = run.failed
            error = task.error if task is not None and task.error is not None else None
            info = error_info(error or RuntimeError(), task=task, step=run.step, state=state)
            return Settled("error", run.step, error=info)
        if status == "interrupted":
            return Settled("interrupted", run.step, tuple(run.interrupts))
        if status == "done":
            return Settled("done", run.step)
        return Settled("paused", run.step)

    def _reentered(self, observer: Observer) -> tuple[Run, str]:
        """Past a subgraph stop: a new run from its checkpoint, as ``invoke(None)`` (the
        stopped one holds its step's finished writes), planned quietly, then advanced."""
        self.drop()
        run = self._run()
        self._hook.observer = observer
        breaks.arm(run, observer)
        return run, run.advance()

    def _stays_inside(self, run: Run, observer: Observer) -> bool:
        """A subgraph's run stopped at a breakpoint: whether the driver keeps the stop (it
        is told which breakpoints fired)."""
        inner.report_inner_tasks(run, observer)  # (its task did not finish: no hook)
        if self.thread_id is None:
            return True
        return breaks.report(self.compiled, self.thread_id, run.step, observer)

    def _at(self) -> _Preview:
        """The current snapshot as stored (cached until the position changes)."""
        assert self.thread_id is not None and self.cursor is not None
        if self._preview is None:
            self._preview = _preview(
                self._subgraphs, self.thread_id, self.cursor, latest=self.is_latest()
            )
        return self._preview


class _Quiet:
    """The observer of a run created from a snapshot: it pauses at the first plan."""

    def planned(self, step: int, tasks: Sequence[TaskInfo]) -> bool:
        return True

    def task_ran(self, task: TaskInfo) -> None:
        return None

    def committed(self, record: CommitRecord, checkpoint_id: str | None) -> None:
        return None

    def errored(self, error: Any) -> bool:
        return True


class _Model:
    """The graph model of a compiled ``sgdebug.runtime`` graph (``graph``, compiled with the
    session's checkpointer from ``user``, the user's graph)."""

    def __init__(self, graph: CompiledStateGraph, user: CompiledStateGraph) -> None:
        self._graph = graph
        self.name: str = graph.name
        self.nodes = tuple(graph.builder.nodes)
        self.user_fields = graph.user_fields
        self.channel_specs = graph.channel_specs
        self.state_keys = graph.state_keys
        self.stream_keys = graph.stream_keys
        self.builder = graph.builder
        self.state_schema = graph.builder.state_schema
        # The session runs the graph without them: they are its breakpoints #1, #2, ...
        self.interrupt_before_nodes = user.interrupt_before_nodes
        self.interrupt_after_nodes = user.interrupt_after_nodes

    def get_graph(self, xray: bool | int = False) -> Any:
        return self._graph.get_graph(xray=xray)


def _describe(exc: BaseException) -> str:
    from sgdebug.debugger.evaluation import describe_error

    return describe_error(exc)


def _preview(
    subgraphs: inner.SubgraphUse, thread_id: str, checkpoint_id: str, *, latest: bool
) -> _Preview:
    """The values and pending tasks of a snapshot, with each task's input (and why its
    pending step fails, when the writes stored for it or its inputs do)."""
    config = config_for(thread_id, None if latest else checkpoint_id)
    snapshot, failed = inspect_state(subgraphs.graph, config)
    try:
        planned = subgraphs.graph.next_tasks(config_for(thread_id, checkpoint_id))
        inputs = {t.id: (t.input, tuple(t.triggers)) for t in planned}
    except Exception:  # a preview is a nicety: never fail a view on it
        inputs = {}
    tasks = tuple(
        pregel_task_info(t, *inputs.get(t.id, (None, ())), latest=latest) for t in snapshot.tasks
    )
    if latest:  # where the thread stands: inside the subgraphs its pending tasks stopped in
        tasks = subgraphs.with_states(thread_id, checkpoint_id, tasks, stopped=True)
    metadata = snapshot.metadata or {}
    step = int(metadata.get("step", -1)) + 1
    interrupts = tuple(snapshot.interrupts) if latest else ()
    failure = failure_info(failed, state=snapshot.values) if failed is not None else None
    return _Preview(snapshot, step, tasks, interrupts, failure)


def _import_message_classes(compiled: CompiledStateGraph) -> None:
    """Let stored messages decode as messages: the saver imports nothing, it only finds
    classes already imported, and the runtime imports langchain-core's message classes
    when a run first merges messages, not when a stored thread is opened. (Its
    ``utils`` module imports every message class; the package imports them lazily.)

    An in-memory saver's records were all made in this process, by code that had the
    classes imported, so nothing is imported for it (a first screen shows no message
    before the run merges one: langchain-core costs about 100 ms to import)."""
    if isinstance(compiled.checkpointer, InMemorySaver):
        return
    if any(
        isinstance(spec, BinaryOperatorAggregate) and spec.operator is add_messages
        for spec in compiled.channel_specs.values()
    ):
        with contextlib.suppress(ImportError):
            importlib.import_module("langchain_core.messages.utils")
