"""The engine protocol: the one interface through which a session drives a graph.

A session never touches a runtime object: it asks an :class:`Engine` to start a run, to
advance it (telling an :class:`Observer` what happens, so the session can stop at a
breakpoint), to edit, resume or retry it, and to read the state, the pending tasks and the
history back as the frozen data of :mod:`~sgdebug.debugger.results`. Two engines implement
it (``sgdebug.debugger.engines``): ``native`` drives ``sgdebug.runtime`` and can pause
between the tasks of a superstep; ``langgraph`` drives a real LangGraph compiled graph
through its public API, one superstep at a time.

What an engine cannot do is in its :class:`Capabilities`, with the reason, so that every
front end shows it as unavailable instead of doing nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from sgdebug.debugger.results import (
    Capabilities,
    EngineName,
    ErrorInfo,
    HistoryEntry,
    Mutation,
    TaskInfo,
)
from sgdebug.inspect import ChannelRow, GraphModel, LastChange
from sgdebug.runtime import CommitRecord, Interrupt, StateSnapshot

__all__ = [
    "Capabilities",
    "Engine",
    "EngineName",
    "EngineRefused",
    "EngineStatus",
    "GraphModel",
    "Observer",
    "Settled",
]

EngineStatus = Literal["paused", "done", "interrupted", "error"]
"""Where a run stands after an engine call (``error``: a node raised, or the step failed at
commit or building a task's input; nothing committed)."""

Write = tuple[str, Any]


class EngineRefused(Exception):
    """The engine would not do it, and changed nothing; ``str()`` says why."""


@dataclass(frozen=True, slots=True)
class Settled:
    """Where an engine call left the run."""

    status: EngineStatus
    step: int
    """The superstep the pending tasks belong to (the one that failed, for ``error``)."""
    interrupts: tuple[Interrupt, ...] = ()
    """For ``interrupted``: what the nodes asked."""
    error: ErrorInfo | None = None
    """For ``error``: the failing task's exception."""


class Observer(Protocol):
    """What the session hears while an engine advances a run (the session's driver).

    ``planned`` and ``errored`` return whether the run should pause there.
    """

    def planned(self, step: int, tasks: Sequence[TaskInfo]) -> bool:
        """The tasks of superstep ``step`` are known and none has run."""
        ...

    def task_ran(self, task: TaskInfo) -> None:
        """A task finished (its writes are known, not applied yet)."""
        ...

    def committed(self, record: CommitRecord, checkpoint_id: str | None) -> None:
        """A superstep committed (per channel: old value, writes by task, new value)."""
        ...

    def errored(self, error: ErrorInfo) -> bool:
        """A node raised (or the step failed outside its nodes: ``error.phase``); returning
        ``True`` keeps the failed step for ``retry``."""
        ...


class Engine(Protocol):
    """A graph and the run a session stands in: a live run paused inside it, or a snapshot.

    Every moving call takes the session's :class:`Observer`. A call that raises
    :class:`EngineRefused` changed nothing; any other exception is the run failing outside
    a node (the run is then dropped and the session stands at its last snapshot).
    """

    @property
    def capabilities(self) -> Capabilities: ...
    @property
    def model(self) -> GraphModel:
        """The graph's shape, for views."""
        ...

    @property
    def graph(self) -> Any:
        """The graph that runs (``graph`` in expressions): the user's, with the session's
        checkpointer."""
        ...

    @property
    def thread_id(self) -> str | None: ...
    @property
    def mutations(self) -> Sequence[Mutation]:
        """In-place mutations found on this thread so far (native engine only)."""
        ...

    # -- where the session stands ------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether a run is open (paused in it), not just a stored snapshot."""
        ...

    @property
    def checkpoint_id(self) -> str | None:
        """The snapshot the session is at."""
        ...

    @property
    def step(self) -> int:
        """The superstep the pending tasks belong to (-1 before any run)."""
        ...

    def values(self) -> Any:
        """The current state values."""
        ...

    def tasks(self) -> tuple[TaskInfo, ...]:
        """The pending superstep's tasks (done ones included, with their writes)."""
        ...

    def interrupts(self) -> tuple[Interrupt, ...]:
        """The ``interrupt()`` questions waiting at the current snapshot."""
        ...

    def snapshot(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        """A ``StateSnapshot`` as ``get_state`` gives it (the current one by default); where
        ``get_state`` would raise (see :meth:`failure`), the snapshot before the step."""
        ...

    def failure(self) -> ErrorInfo | None:
        """Why the pending step fails outside its tasks' bodies, if it does: the writes
        recorded for it are rejected at commit (a reducer raises, two writes to a plain
        key), or a task's input cannot be built (the state schema rejects a value). The
        views then show the state before the step; an edit, then ``retry``, runs it again."""
        ...

    def is_latest(self) -> bool:
        """Whether the session is at its thread's newest snapshot."""
        ...

    def latest_id(self) -> str | None: ...
    def history(self) -> tuple[HistoryEntry, ...]:
        """Every snapshot of the thread, oldest first (the current one marked)."""
        ...

    def snapshot_index(self) -> int | None:
        """The current snapshot's number (its ``HistoryEntry.index``), ``None`` when not at
        a stored one; every view shows it, so an engine finds it without listing history."""
        ...

    def find(self, thread_id: str, checkpoint_id: str | None = None) -> str | None:
        """The id of a stored snapshot of ``thread_id`` (its latest by default), or ``None``."""
        ...

    def threads(self) -> tuple[str, ...]:
        """The threads the checkpointer holds (for ``--thread`` naming none of them)."""
        ...

    # -- moving --------------------------------------------------------------------------

    def start(self, thread_id: str, input: Any, checkpoint_id: str | None) -> None:
        """A new live run of ``thread_id`` on ``input`` (from ``checkpoint_id``); nothing runs
        until ``advance``, whose first plan is the run's first step. ``EngineRefused``: the
        input was refused (empty input, several interrupts to answer, ...)."""
        ...

    def open(self, thread_id: str, checkpoint_id: str) -> None:
        """Stand at a stored snapshot, without a live run."""
        ...

    def materialise(self) -> None:
        """Make the current snapshot a live run (``start`` from it) when there is none."""
        ...

    def advance(self, observer: Observer) -> Settled:
        """Run until the observer pauses, the run ends, an interrupt or an error."""
        ...

    def run_task(self, node: str | None, observer: Observer) -> Settled:
        """Run one pending task (of ``node``, else the first); commit after the last."""
        ...

    def retry(self, observer: Observer) -> Settled:
        """Run the failed step again (its failed tasks only) and commit it."""
        ...

    def resume(self, answer: Any) -> None:
        """Answer the waiting ``interrupt()`` with ``answer`` (a ``Command(resume=...)``):
        ``start`` from the current snapshot. ``EngineRefused``: the answer was refused."""
        ...

    def edit(self, writes: Sequence[Write]) -> int:
        """Apply ``writes`` (``Overwrite`` bypasses a reducer) to the state, as a new
        snapshot; the pending step is planned again. Returns how many tasks that had run
        in this step will run again."""
        ...

    def update_as(self, values: Mapping[str, Any], as_node: str) -> None:
        """Apply ``values`` as if ``as_node`` returned them (its edges choose what's next)."""
        ...

    def drop(self) -> None:
        """Forget the live run; the session stays at its latest snapshot."""
        ...

    def channel_rows(self, changes: Sequence[LastChange]) -> tuple[ChannelRow, ...]:
        """The channel table at the current position (``changes``: who last wrote what)."""
        ...

    def collect_mutations(self) -> list[Mutation]:
        """In-place mutations found since the last call (``[]`` on engines without them)."""
        ...
