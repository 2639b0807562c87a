"""Where a session stands: a live run paused inside it, or a snapshot to continue from.

After ``goto`` (or reopening a session file) there is no live run: the position is a
checkpoint, shown from the checkpointer. The first verb that runs or edits creates the run
from it (:meth:`Position.materialise`): from the thread's latest snapshot that continues the
thread; from an older one it is a fork, a new branch, and the old one stays in history.
"""

from __future__ import annotations

from typing import Any

from sgdebug.debugger.driver import Driver, Goal
from sgdebug.debugger.history import Preview, config_for, preview
from sgdebug.debugger.results import Mutation, TaskInfo
from sgdebug.debugger.runinfo import mutation, task_info
from sgdebug.runtime import CompiledStateGraph, Run, StateSnapshot

__all__ = ["Position"]


class Position:
    """The session's thread, its live run (if any) and the snapshot it is positioned at."""

    def __init__(
        self, graph: CompiledStateGraph, driver: Driver, recursion_limit: int | None
    ) -> None:
        self.graph = graph
        self.driver = driver
        self.recursion_limit = recursion_limit
        self.thread_id: str | None = None
        self.run: Run | None = None
        self.cursor: str | None = None
        """The checkpoint the session is at when there is no live run."""
        self.mutations: list[Mutation] = []
        self._seen = 0
        self._preview: Preview | None = None

    # -- configs and ids -------------------------------------------------------------------

    def config(self, checkpoint_id: str | None = None) -> dict[str, Any]:
        """The config naming the thread (at ``checkpoint_id``)."""
        assert self.thread_id is not None
        return config_for(self.thread_id, checkpoint_id)

    @property
    def checkpoint_id(self) -> str | None:
        """The snapshot the session is at (the live run's latest checkpoint)."""
        run = self.run
        if run is not None and run.persist is not None and run.persist.record is not None:
            return run.persist.record.id
        return self.cursor

    def latest_id(self) -> str | None:
        """The thread's newest snapshot."""
        if self.thread_id is None:
            return None
        record = self.graph.checkpointer.get_record(self.thread_id)
        return record.id if record is not None else None

    def is_latest(self) -> bool:
        """Whether the session is at the thread's newest snapshot."""
        current = self.checkpoint_id
        return current is not None and current == self.latest_id()

    # -- moving --------------------------------------------------------------------------

    def new_run(self, thread_id: str, input: Any, checkpoint_id: str | None = None) -> Run:
        """A run of ``thread_id`` on ``input`` (from ``checkpoint_id``); nothing changes yet.

        Raises what ``graph.start`` raises (empty input, several interrupts to answer, ...).
        """
        config = config_for(thread_id, checkpoint_id)
        if self.recursion_limit is not None:
            config["recursion_limit"] = self.recursion_limit
        return self.graph.start(input, config, hooks=[self.driver])

    def adopt(self, run: Run, thread_id: str) -> Run:
        """Make ``run`` the live run and advance it to its first plan (a pause there)."""
        self.drop()
        if thread_id != self.thread_id:
            self.mutations = []
        self.thread_id = thread_id
        self.run = run
        self._seen = 0
        self._preview = None
        self.driver.begin(Goal("plan", report="start"))
        run.advance()
        self.driver.planned = tuple(t.name for t in run.tasks)
        return run

    def open(self, thread_id: str, checkpoint_id: str) -> None:
        """Stand at a stored snapshot, without a live run."""
        self.drop()
        if thread_id != self.thread_id:
            self.mutations = []
        self.thread_id = thread_id
        self.cursor = checkpoint_id

    def materialise(self) -> Run:
        """The live run, created from the current snapshot when there is none."""
        if self.run is not None:
            return self.run
        assert self.thread_id is not None
        return self.adopt(self.new_run(self.thread_id, None, self.cursor), self.thread_id)

    def drop(self) -> None:
        """Forget the live run; the session stays at its latest snapshot."""
        if self.run is None:
            return
        self.collect_mutations()
        self.cursor = self.checkpoint_id
        self.run = None
        self._preview = None

    # -- reading -------------------------------------------------------------------------

    def preview(self) -> Preview:
        """The current snapshot as stored (cached until the position changes)."""
        assert self.thread_id is not None and self.cursor is not None
        if self._preview is None:
            self._preview = preview(
                self.graph, self.thread_id, self.cursor, latest=self.is_latest()
            )
        return self._preview

    def values(self) -> Any:
        """The current state values."""
        if self.run is not None:
            return self.run.read_values(self.graph.stream_keys)
        if self.thread_id is None or self.cursor is None:
            return {}
        return self.preview().snapshot.values

    def tasks(self) -> tuple[TaskInfo, ...]:
        """The pending superstep's tasks."""
        if self.run is not None:
            return tuple(task_info(t) for t in self.run.tasks)
        if self.thread_id is None or self.cursor is None:
            return ()
        return self.preview().tasks

    @property
    def step(self) -> int:
        """The superstep the pending tasks belong to."""
        if self.run is not None:
            return self.run.step
        if self.thread_id is None or self.cursor is None:
            return -1
        return self.preview().step

    def snapshot(self) -> StateSnapshot | None:
        """The ``StateSnapshot`` of the current position, as ``get_state`` gives it."""
        checkpoint = self.checkpoint_id
        if self.thread_id is None or checkpoint is None:
            return None
        return self.graph.get_state(self.config(None if self.is_latest() else checkpoint))

    def collect_mutations(self) -> list[Mutation]:
        """In-place mutations the live run found since the last call."""
        run = self.run
        if run is None or run.persist is None:
            return []
        found = run.persist.mutations[self._seen :]
        self._seen += len(found)
        new = [mutation(m) for m in found]
        self.mutations.extend(new)
        return new
