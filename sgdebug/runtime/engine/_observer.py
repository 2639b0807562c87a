"""How a run reports its pause points: an observer, whose no-op form is the fast path.

A run nobody watches (no pause hooks) gets :data:`QUIET`: nothing pauses, no commit
record is built, and the writes of finished tasks wait for the step's checkpoint (nothing
can read the saver before it). A run with hooks gets a :class:`HookObserver` calling each
hook in turn. Both go through the same superstep loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.runtime.engine._hooks import PauseHook
    from sgdebug.runtime.engine._records import CommitRecord
    from sgdebug.runtime.engine._step_failure import StepFailure
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView

__all__ = ["QUIET", "HookObserver", "Observer"]


class Observer:
    """The no-op observer: watches nothing, never pauses, keeps no failure."""

    __slots__ = ("watched",)

    def __init__(self) -> None:
        self.watched = False
        """Whether anyone watches: commits build records, task writes are stored at once.
        (An instance's slot: a class attribute is read the slow way, and runs read it
        every step.)"""

    def planned(self, run: RunView, tasks: Sequence[Task]) -> bool:
        """The step's tasks are known; return whether to pause."""
        return False

    def ran(self, run: RunView, task: Task) -> bool:
        """A task finished; return whether to pause."""
        return False

    def committed(self, run: RunView, record: CommitRecord) -> bool:
        """A step committed; return whether to pause."""
        return False

    def failed(self, run: RunView, task: Task, error: BaseException) -> bool:
        """A task raised; return whether to keep the run alive to retry."""
        return False

    def step_failed(self, run: RunView, failure: StepFailure) -> bool:
        """The step failed outside its tasks; return whether to keep the run alive."""
        return False


QUIET = Observer()
"""The observer of every run without hooks."""


class HookObserver(Observer):
    """Calls every pause hook at every point (all of them, even once one asked to pause)."""

    __slots__ = ("hooks",)

    def __init__(self, hooks: Sequence[PauseHook]) -> None:
        self.watched = True
        self.hooks = tuple(hooks)

    def planned(self, run: RunView, tasks: Sequence[Task]) -> bool:
        return any([bool(h.after_plan(run, tasks)) for h in self.hooks])

    def ran(self, run: RunView, task: Task) -> bool:
        return any([bool(h.after_task(run, task)) for h in self.hooks])

    def committed(self, run: RunView, record: CommitRecord) -> bool:
        return any([bool(h.after_commit(run, record)) for h in self.hooks])

    def failed(self, run: RunView, task: Task, error: BaseException) -> bool:
        return any([bool(h.on_error(run, task, error)) for h in self.hooks])

    def step_failed(self, run: RunView, failure: StepFailure) -> bool:
        return any([bool(h.on_step_error(run, failure)) for h in self.hooks])
