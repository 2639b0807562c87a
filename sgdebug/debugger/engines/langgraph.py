"""The LangGraph engine: a real LangGraph compiled graph behind the engine protocol.

Fidelity by construction: every superstep is LangGraph's own. The engine drives the graph
through LangGraph's public API only: one ``stream(..., interrupt_before="*")`` call per
superstep (LangGraph plans the next step, then stops before it, so the session always sees
the pending tasks), ``get_state``/``get_state_history`` for the state and the history
tree, the checkpointer's stored task writes for the reducer diff of each step,
``update_state``/``bulk_update_state`` for edits and ``Command(resume=...)`` for answers.

The graph runs with its own checkpointer when it was compiled with one (so a thread of the
user's checkpoint database can be opened), else with LangGraph's ``InMemorySaver``. Its
compile-time ``interrupt_before``/``interrupt_after`` become the session's breakpoints.

Superstep granularity: LangGraph runs a step's tasks together, so running one task and the
in-place mutation reports are unavailable here (``Capabilities.missing`` says why). Inside a
subgraph it stops where the session asks through the compiled subgraphs' own
``interrupt_before``/``interrupt_after``, set for each move (:mod:`._lg_breaks`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.engine import Capabilities, EngineRefused, Observer, Settled
from sgdebug.debugger.engines import _lg_breaks as breaks
from sgdebug.debugger.engines import _lg_convert as convert
from sgdebug.debugger.engines import _lg_subgraphs as subgraphs
from sgdebug.debugger.engines._lg_async import Driver
from sgdebug.debugger.engines._lg_lent_saver import lent_saver
from sgdebug.debugger.engines._lg_model import (
    LangGraphModel,
    checkpoint_of,
    history_entries,
    is_push,
    pending_step,
    replanned,
    to_langgraph,
    writers_of,
)
from sgdebug.debugger.engines._lg_snapshots import NONE as _NONE
from sgdebug.debugger.engines._lg_snapshots import Snapshots
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import ErrorInfo, HistoryEntry, Mutation, TaskInfo
from sgdebug.debugger.runinfo import format_traceback, pregel_task_info
from sgdebug.inspect import ChannelRow, LastChange, snapshot_channel_rows
from sgdebug.runtime import Command, Interrupt, StateSnapshot

__all__ = ["LangGraphEngine", "SUPPORTED"]

SUPPORTED = "1."
"""The LangGraph major version this engine drives."""
_TASK = "LangGraph runs the tasks of a superstep together: `step` runs the whole superstep"
_MUTATIONS = "finding values a node changed in place needs sgdebug's runtime (--engine native)"
_PUSH = "__pregel_push"
_TASKS = "__pregel_tasks"


def _capabilities(version: str) -> Capabilities:
    return Capabilities(
        "langgraph",
        f"LangGraph {version} (superstep by superstep)",
        (("task", _TASK), ("mutations", _MUTATIONS)),
    )


class LangGraphEngine:
    """A LangGraph graph: the session's thread and the snapshot it stands at."""

    def __init__(self, graph: Any, saver: Any = None, recursion_limit: int | None = None) -> None:
        from importlib.metadata import version

        from langgraph.checkpoint.base import BaseCheckpointSaver

        found = version("langgraph")
        if not found.startswith(SUPPORTED):
            raise ValueError(
                f"this graph needs LangGraph {found}, but sgdebug's LangGraph engine drives "
                f"LangGraph {SUPPORTED}x; install a 1.x release (pip install 'langgraph>=1,<2')"
            )
        self.capabilities = _capabilities(found)
        if saver is not None and not isinstance(saver, BaseCheckpointSaver):
            raise ValueError(
                f"{type(saver).__name__} is not a LangGraph checkpointer (sgdebug's runtime "
                "savers cannot hold a LangGraph graph's history); give one of LangGraph's "
                "(a session file's is SessionFile.langgraph_saver(), which --session uses)"
            )
        compiled = graph.compile() if hasattr(graph, "add_node") else graph
        own = compiled.checkpointer
        checkpointer = saver or (own if isinstance(own, BaseCheckpointSaver) else lent_saver())
        self.graph: Any = compiled.copy(
            update={
                "checkpointer": checkpointer,
                "interrupt_before_nodes": [],
                "interrupt_after_nodes": [],
            }
        )
        """The user's graph with the session's checkpointer and without its static interrupts
        (the session's breakpoints stand for them)."""
        self.saver: Any = checkpointer
        self.driver = Driver(self.graph)
        """Runs the graph: its sync API, or its async one for async nodes (``_lg_async``)."""
        self.model = LangGraphModel(compiled, self.graph)
        self.recursion_limit: int = (
            recursion_limit
            or (compiled.config or {}).get("recursion_limit")
            or convert.default_recursion_limit()
        )
        self.thread_id: str | None = None
        self.cursor: str | None = None
        self.mutations: list[Mutation] = []
        self._live = False
        self._input: Any = None
        """What the next ``stream`` call sends: ``None`` (go on) or a resume ``Command``."""
        self._announced = False
        """Whether the observer was told the plan of the pending step."""
        self._stop = 0
        """The last step the run may start (LangGraph's ``stop``: its first step plus the
        recursion limit plus one); a step after it fails with ``GraphRecursionError``."""
        self._snaps = Snapshots(self.graph, checkpointer, self.model, self.driver)
        self._writers: dict[str, tuple[str, ...]] = {}
        """Checkpoint -> the nodes an edit was applied as (so the next edit keeps the plan)."""
        self._entries: tuple[object, str | None, tuple[HistoryEntry, ...]] = (None, None, ())
        """The history entries, and the snapshots and cursor they were made from."""

    # -- where the session stands ----------------------------------------------------------

    @property
    def live(self) -> bool:
        return self._live

    @property
    def checkpoint_id(self) -> str | None:
        return self.cursor

    @property
    def step(self) -> int:
        return pending_step(self.snapshot())

    def values(self) -> Any:
        snap = self._shown()
        return snap.values if snap is not None else {}

    def _shown(self) -> StateSnapshot | None:
        """The current snapshot; at the thread's head after an ``interrupt()``, as LangGraph
        shows the thread: the writes of the tasks that finished beside the interrupted
        ones applied (they will not run again), the interrupts answered so far gone."""
        snap = self.snapshot()
        if snap is not None and snap.interrupts and self.is_latest():
            assert self.thread_id is not None and self.cursor is not None
            return self._snaps.thread(self.thread_id, self.cursor)
        return snap

    def tasks(self) -> tuple[TaskInfo, ...]:
        snap = self._shown()
        if snap is None:
            return ()
        latest = self.is_latest()
        sends = self._sends(snap) if any(is_push(t.path) for t in snap.tasks) else []
        infos = []
        for task in snap.tasks:
            given, triggers = self._input_of(task.name, task.path, snap.values, sends)
            # At an older snapshot (live or not) every task runs again: what it did is the
            # other branch's.
            infos.append(pregel_task_info(task, given, triggers, latest=latest))
        if latest and subgraphs.has_subgraph_tasks(snap):  # older: another run's subgraph
            states = self._subgraph_states()
            return breaks.unasked(subgraphs.with_subgraphs(infos, states), snap, states)
        return tuple(infos)

    def interrupts(self) -> tuple[Interrupt, ...]:
        snap = self._shown()
        if snap is None or not self.is_latest():  # an older snapshot's tasks run again
            return ()
        if snap.interrupts and breaks.answered(snap, self._subgraph_states()):
            return ()  # (stopped inside past the answered interrupt)
        return tuple(snap.interrupts)

    def snapshot(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        checkpoint = checkpoint_id or self.cursor
        if self.thread_id is None or checkpoint is None:
            return None
        return self._snaps.at(self.thread_id, checkpoint)

    def failure(self) -> ErrorInfo | None:
        if self.thread_id is None or self.cursor is None:
            return None
        return self._snaps.failure(self.thread_id, self.cursor, self.step, head=self.is_latest())

    def latest_id(self) -> str | None:
        return None if self.thread_id is None else self.find(self.thread_id)

    def is_latest(self) -> bool:
        return self.cursor is not None and self.cursor == self.latest_id()

    def find(self, thread_id: str, checkpoint_id: str | None = None) -> str | None:
        found = self.saver.get_tuple(config_for(thread_id, checkpoint_id))
        return None if found is None else str(found.config["configurable"]["checkpoint_id"])

    def threads(self) -> tuple[str, ...]:
        try:
            seen = (t.config["configurable"]["thread_id"] for t in self.saver.list(None))
            return tuple(dict.fromkeys(seen))
        except Exception:  # a saver that cannot list across threads
            return ()

    def history(self) -> tuple[HistoryEntry, ...]:
        if self.thread_id is None:
            return ()
        snapshots = self._snaps.history(self.thread_id, self.cursor)  # (same until written)
        made_from, cursor, entries = self._entries
        if made_from is not snapshots or cursor != self.cursor:
            entries = history_entries(snapshots[::-1], self.cursor)
            self._entries = (snapshots, self.cursor, entries)
        return entries

    def snapshot_index(self) -> int | None:
        current = self.checkpoint_id
        if current is None:
            return None
        return next((e.index for e in self.history() if e.checkpoint_id == current), None)

    def channel_rows(self, changes: Sequence[LastChange]) -> tuple[ChannelRow, ...]:
        snap = self.snapshot()
        if snap is None:
            return ()
        cursor = self.checkpoint_id
        versions = None
        if self.thread_id is not None and cursor is not None:
            versions = self._snaps.versions(self.thread_id, cursor)
        return snapshot_channel_rows(self.model, snap, changes, versions=versions)

    def collect_mutations(self) -> list[Mutation]:
        return []

    # -- moving ----------------------------------------------------------------------------

    def start(self, thread_id: str, input: Any, checkpoint_id: str | None) -> None:
        self._snaps.forget()
        if input is None:  # continue the thread from the snapshot
            if self.find(thread_id, checkpoint_id) is None:
                raise EngineRefused("Received no input for __start__")
            self._stand(thread_id, checkpoint_id, live=True)
            return
        config = config_for(thread_id, checkpoint_id)
        stored = self.saver.get_tuple(config)
        try:
            if isinstance(input, Command) or checkpoint_id is not None:
                # A Command input is applied by LangGraph's input step itself: run it.
                for _ in self.driver.stream(to_langgraph(input), config, interrupt_before="*"):
                    pass
            else:
                # The input step alone, as ``stream`` records it: the hidden ``__start__``
                # task is the first step to run, as on the native engine.
                self.driver.update_state(config, input, as_node="__input__")
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        finally:
            self._snaps.forget()  # the thread has a new checkpoint
        self._stand(thread_id, None, live=True)
        # A run on new input counts from its input step (LangGraph's first step).
        first = stored.metadata.get("step", -2) + 1 if stored is not None else -1
        self._stop = first + self.recursion_limit + 1

    def open(self, thread_id: str, checkpoint_id: str) -> None:
        self._stand(thread_id, checkpoint_id, live=False)

    def materialise(self) -> None:
        if not self._live:
            assert self.thread_id is not None
            self._stand(self.thread_id, self.cursor, live=True)

    def advance(self, observer: Observer) -> Settled:
        self.materialise()
        while True:
            if not self._announced:
                if self.step > self._stop:  # checked before planning, as LangGraph does
                    raise convert.recursion_error(self.recursion_limit)
                self._announced = True
                tasks = self.tasks()
                if not tasks and self._snaps.unplanned(self.cursor) is None:
                    return Settled("done", self.step)
                if tasks and observer.planned(self.step, tasks):
                    return Settled("paused", self.step)
            settled = self._superstep(observer)
            if settled is not None:
                return settled

    def run_task(self, node: str | None, observer: Observer) -> Settled:
        raise EngineRefused(_TASK)

    def retry(self, observer: Observer) -> Settled:
        return self.advance(observer)

    def resume(self, answer: Any) -> None:
        assert self.thread_id is not None
        self._stand(self.thread_id, self.cursor, live=True)
        self._input = to_langgraph(answer)

    def subgraph_steps(self) -> tuple[subgraphs.SubgraphStep, ...]:
        return subgraphs.subgraph_steps(self.graph, self.saver, self.thread_id)

    def edit_frame(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]]) -> None:
        subgraphs.edit_subgraph(self.driver, config, writes)
        self._snaps.forget(written=False)  # the subgraph's state is read again

    def edit(self, writes: Sequence[tuple[str, Any]]) -> int:
        assert self.thread_id is not None and self.cursor is not None
        redone = self._snaps.redo_with(self.thread_id, self.cursor, writes)
        if redone is not None:  # LangGraph cannot plan from here: made again from before
            self._moved_to(redone[0], (redone[1],))
            return 0
        values = {key: to_langgraph(value) for key, value in writes}
        tasks = self.tasks()
        done = [t for t in tasks if t.done]
        before = self.step
        quiet = convert.quiet_node(self.model.builder)
        writers = (quiet,) if quiet is not None else self._writers_here()
        try:
            if quiet is not None:
                given = self._input_of("__start__", (), None, ())[0]
                steps = replanned(values, tasks, quiet, given, self.model.stream_keys)
                config = self.driver.bulk_update_state(self._here(), steps)
            elif len(writers) == 1:
                config = self.driver.update_state(self._here(), values, as_node=writers[0])
            else:
                from langgraph.types import StateUpdate

                updates = [StateUpdate(values if i == 0 else None, node)
                           for i, node in enumerate(writers)]  # fmt: skip
                config = self.driver.bulk_update_state(self._here(), [updates])
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self._moved_to(config, writers)
        self._stop += self.step - before  # LangGraph counts the edit as a step; the run does not
        return len(done)

    def update_as(self, values: Mapping[str, Any], as_node: str) -> None:
        assert self.thread_id is not None
        if reason := self._snaps.why_not_edit(self.thread_id, self.cursor or ""):
            raise EngineRefused(reason)  # (LangGraph would plan the step after it first)
        try:
            config = self.driver.update_state(
                self._here(), {k: to_langgraph(v) for k, v in values.items()}, as_node=as_node
            )
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self._moved_to(config, (as_node,))
        self._stop = self.step + self.recursion_limit + 1  # a new run from the update

    def drop(self) -> None:
        self._live = False
        self._input = None

    # -- machinery -------------------------------------------------------------------------

    def _superstep(self, observer: Observer) -> Settled | None:
        """Run the pending step (one ``stream`` call); ``None`` when it committed and the
        next step's plan is still to be told."""
        assert self.thread_id is not None and self.cursor is not None
        parent, step, before = self.cursor, self.step, (self.snapshot() or _NONE).values
        # LangGraph's stop for this call is ``step + limit + 1``: the run's own, so that
        # RemainingSteps/IsLastStep are the run's (except in its last two steps: a limit is >= 1).
        remaining = max(1, self._stop - step - 1)
        answer, self._input = self._input, None
        # From the thread's head LangGraph goes on; naming an older checkpoint forks it.
        at = None if parent == self.latest_id() else parent
        config = self._config(self.thread_id, at, limit=remaining)
        names: dict[str, str] = {}
        error = self._stream(answer, config, names, observer)
        latest = self.latest_id()
        assert latest is not None
        self.cursor = latest  # (a fork LangGraph made of ``parent``, if nothing committed)
        if error is not None and not self._committed(latest, parent):
            return self._failed(error, observer)
        if error is None and (latest == parent or (self.snapshot() or _NONE).interrupts):
            found = self.interrupts()
            if found:
                return Settled("interrupted", self.step, found)
            if self._subgraph_states() and not breaks.report(
                self.graph, self.thread_id, step, observer
            ):
                return None  # stopped inside where nothing of the session's fires: go past it
            return Settled("paused", self.step)
        after = self.values()
        change = (step, before, after)
        record = self._snaps.commit_record(self.thread_id, latest, parent, names, change)
        observer.committed(record, latest)
        if error is not None:  # it committed, then the next step's inputs failed
            return self._failed(error, observer)
        self._announced = False
        return None

    def _subgraph_states(self) -> dict[str, StateSnapshot]:
        assert self.thread_id is not None and self.cursor is not None
        return self._snaps.subgraph_states(self.thread_id, self.cursor)

    def _committed(self, latest: str, parent: str) -> bool:
        """Whether the step made ``latest`` (a ``loop`` checkpoint after ``parent``)."""
        stored = self.saver.get_tuple(config_for(self.thread_id or "", latest))
        return latest != parent and stored is not None and stored.metadata.get("source") == "loop"

    def _stream(
        self, answer: Any, config: dict[str, Any], names: dict[str, str], observer: Observer
    ) -> Exception | None:
        """One superstep, stopping inside subgraphs where the session asks
        (:func:`~._lg_breaks.stream_step`)."""
        try:
            failed = breaks.stream_step(self.driver, answer, config, names, observer)
            if self.driver.learn(failed):  # an async node the sync API refused: again, async
                self._snaps.forget()
                failed = breaks.stream_step(self.driver, answer, config, names, observer)
            return failed
        finally:
            self._snaps.forget()

    def _failed(self, exc: Exception, observer: Observer) -> Settled:
        """A step raised: a node's error is a failed step (``retry`` runs it again)."""
        self._snaps.forget()  # the snapshot read before the step knows nothing of the error
        snap = self.snapshot()
        failed = next((t for t in snap.tasks if t.error is not None), None) if snap else None
        if failed is None:
            assert self.thread_id is not None and self.cursor is not None
            found = self._snaps.step_failure(exc, self.thread_id, self.cursor, self.step)
            if found is None or not observer.errored(found):
                raise exc
            return Settled("error", self.step, error=found)
        info = ErrorInfo(
            node=failed.name,
            task_id=failed.id,
            error_type=type(exc).__name__,
            message=str(exc),
            traceback=format_traceback(exc),
            step=self.step,
            state=self.values(),
            exception=exc,
        )
        if not observer.errored(info):
            raise exc
        return Settled("error", self.step, error=info)

    def _stand(self, thread_id: str, checkpoint_id: str | None, *, live: bool) -> None:
        if thread_id != self.thread_id:
            self._writers.clear()
        self.thread_id = thread_id
        self.cursor = self.find(thread_id, checkpoint_id)
        self._live, self._input, self._announced = live, None, not live
        self._snaps.forget(written=False)
        # Going on from a stored snapshot is a new LangGraph invocation: it counts from there.
        self._stop = self.step + self.recursion_limit + 1

    def _moved_to(self, config: Mapping[str, Any], writers: tuple[str, ...]) -> None:
        self._snaps.forget()
        self.cursor = checkpoint_of(config)
        self._writers[self.cursor] = writers
        self._announced = True

    def _writers_here(self) -> tuple[str, ...]:
        """The nodes whose writes planned the pending step (an edit is applied as them)."""
        assert self.cursor is not None
        return writers_of(self.history(), self.cursor, self._writers)

    def _input_of(
        self, name: str, path: tuple[Any, ...], values: Any, sends: Sequence[Any]
    ) -> tuple[Any, tuple[str, ...]]:
        """What a pending task receives, and what triggered it."""
        if name == "__start__":
            stored = self.saver.get_tuple(self._here())
            values = stored.checkpoint.get("channel_values", {}) if stored else {}
            return values.get("__start__"), ("__start__",)
        if is_push(path):
            index = path[1] if len(path) > 1 and isinstance(path[1], int) else -1
            send = sends[index] if 0 <= index < len(sends) else None
            return (getattr(send, "arg", None), (_PUSH,))
        keys = self.model.input_keys(name)
        if isinstance(values, Mapping) and keys is not None:
            values = {k: v for k, v in values.items() if k in keys}
        return values, (f"branch:to:{name}",)

    def _sends(self, snap: StateSnapshot) -> list[Any]:
        assert self.thread_id is not None
        stored = self.saver.get_tuple(snap.config)
        if stored is None:
            return []
        return list(stored.checkpoint.get("channel_values", {}).get(_TASKS) or ())

    def _here(self) -> dict[str, Any]:
        assert self.thread_id is not None
        return config_for(self.thread_id, self.cursor)

    def _config(self, thread_id: str, checkpoint_id: str | None, *, limit: int) -> dict[str, Any]:
        config = config_for(thread_id, checkpoint_id)
        config["recursion_limit"] = limit
        return config


def _describe(exc: BaseException) -> str:
    from sgdebug.debugger.evaluation import describe_error

    return describe_error(exc)
