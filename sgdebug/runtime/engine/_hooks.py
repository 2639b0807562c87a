"""Pause hooks: how a caller watches a run and asks it to stop at a superstep boundary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sgdebug.runtime.engine._run import Run, Task
    from sgdebug.runtime.engine._step_failure import StepFailure

__all__ = ["ChannelChange", "CommitRecord", "PauseHook", "TaskWrite"]


@dataclass(frozen=True, slots=True)
class TaskWrite:
    """One write of one task to a channel, in the order the reducer saw it."""

    task_id: str
    """The writing task's id."""
    task_name: str
    """The writing task's node name."""
    value: Any
    """What it wrote."""


@dataclass(frozen=True, slots=True)
class ChannelChange:
    """What a commit did to one channel."""

    channel: str
    """Channel name."""
    old: Any
    """Value before the commit (``MISSING`` when empty)."""
    writes: tuple[TaskWrite, ...]
    """The writes applied, in application order (empty for a clear or finish)."""
    new: Any
    """Value after the commit (``MISSING`` when empty)."""
    version: int
    """The channel's version after the commit."""


@dataclass(frozen=True, slots=True)
class CommitRecord:
    """The effect of one superstep's commit."""

    step: int
    """The superstep that was committed."""
    changes: tuple[ChannelChange, ...]
    """One entry per channel that changed, user channels and internal ones."""
    tasks: tuple[str, ...] = ()
    """Names of the tasks whose writes were committed, in application order."""


class PauseHook(Protocol):
    """Called by a :class:`Run` at each pause point; returning ``True`` pauses the run there.

    A paused run continues exactly where it stopped on the next ``advance()``.
    """

    def after_plan(self, run: Run, tasks: Sequence[Task]) -> bool:
        """The tasks of the next superstep are known; nothing has run yet."""
        ...

    def after_task(self, run: Run, task: Task) -> bool:
        """``task`` finished; its writes are known but not applied."""
        ...

    def after_commit(self, run: Run, record: CommitRecord) -> bool:
        """A superstep's writes were applied."""
        ...

    def on_error(self, run: Run, task: Task, error: BaseException) -> bool:
        """``task`` raised; returning ``True`` keeps the run alive, paused, to retry."""
        ...

    def on_step_error(self, run: Run, failure: StepFailure) -> bool:
        """The step failed outside its tasks: a channel rejected its writes at commit, or a
        task's input could not be built. Returning ``True`` keeps the run alive (status
        ``error``, back before the step) to edit and retry; it needs a checkpointer for a
        commit failure. Otherwise the error propagates, as from LangGraph."""
        ...


class BaseHook:
    """A hook that never pauses; subclass it and override what you need."""

    def after_plan(self, run: Run, tasks: Sequence[Task]) -> bool:
        return False

    def after_task(self, run: Run, task: Task) -> bool:
        return False

    def after_commit(self, run: Run, record: CommitRecord) -> bool:
        return False

    def on_error(self, run: Run, task: Task, error: BaseException) -> bool:
        return False

    def on_step_error(self, run: Run, failure: StepFailure) -> bool:
        return False
