"""Pause hooks: how a caller watches a run and asks it to stop at a superstep boundary."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from sgdebug.runtime.engine._records import ChannelChange, CommitRecord, TaskWrite

if TYPE_CHECKING:
    from sgdebug.runtime.engine._step_failure import StepFailure
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView

__all__ = ["ChannelChange", "CommitRecord", "PauseHook", "TaskWrite"]


class PauseHook(Protocol):
    """Called by a :class:`Run` at each pause point; returning ``True`` pauses the run there.

    A hook reads the run through :class:`~sgdebug.runtime.engine._view.RunView`; a caller
    that drives the run (edits, retries) holds the ``Run`` it started.

    A paused run continues exactly where it stopped on the next ``advance()``.
    """

    def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
        """The tasks of the next superstep are known; nothing has run yet."""
        ...

    def after_task(self, run: RunView, task: Task) -> bool:
        """``task`` finished; its writes are known but not applied."""
        ...

    def after_commit(self, run: RunView, record: CommitRecord) -> bool:
        """A superstep's writes were applied."""
        ...

    def on_error(self, run: RunView, task: Task, error: BaseException) -> bool:
        """``task`` raised; returning ``True`` keeps the run alive, paused, to retry."""
        ...

    def on_step_error(self, run: RunView, failure: StepFailure) -> bool:
        """The step failed outside its tasks: a channel rejected its writes at commit, or a
        task's input could not be built. Returning ``True`` keeps the run alive (status
        ``error``, back before the step) to edit and retry; it needs a checkpointer for a
        commit failure. Otherwise the error propagates, as from LangGraph."""
        ...


class BaseHook:
    """A hook that never pauses; subclass it and override what you need."""

    def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
        return False

    def after_task(self, run: RunView, task: Task) -> bool:
        return False

    def after_commit(self, run: RunView, record: CommitRecord) -> bool:
        return False

    def on_error(self, run: RunView, task: Task, error: BaseException) -> bool:
        return False

    def on_step_error(self, run: RunView, failure: StepFailure) -> bool:
        return False
