"""How long each superstep's tasks ran, kept for the session and in its session file.

Engines time each task (:class:`~sgdebug.debugger.events.TaskRan`); when the superstep
commits (:class:`~sgdebug.debugger.events.Stepped`) its tasks' times are filed under the
checkpoint it made and saved through the session's store when the store keeps them (the
session file: ``save_step_time``), so a reopened session shows the times it showed before.
A store without them (a file from before, or none) gives no times: those steps show none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sgdebug.debugger.events import Event, Planned, Stepped, TaskRan

__all__ = ["StepTimes", "StepTiming"]


@dataclass(frozen=True, slots=True)
class StepTiming:
    """How long the tasks of one committed superstep ran (engines time each task)."""

    tasks: tuple[tuple[str, float], ...]
    """(node, seconds) for each task that was timed, in the order they finished."""

    @property
    def total(self) -> float:
        """Seconds all its tasks ran, added up."""
        return sum(seconds for _, seconds in self.tasks)


class StepTimes:
    """The timing of every superstep the session committed (or its file kept), by the id of
    the checkpoint the step made, oldest first. Follows the session's events."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.times: dict[str, StepTiming] = _saved(store)
        """Checkpoint id -> the timing of the step that made it."""
        self._timed: list[tuple[str, float]] = []
        """The tasks timed in the superstep now running."""

    def follow(self, event: Event) -> None:
        """Runs in the verb's thread: time tasks, file them when their step commits."""
        if isinstance(event, Planned):
            self._timed = []
        elif isinstance(event, TaskRan) and event.task.duration is not None:
            self._timed.append((event.task.name, event.task.duration))
        elif isinstance(event, Stepped):
            if event.checkpoint_id is not None and self._timed:
                timing = StepTiming(tuple(self._timed))
                self.times[event.checkpoint_id] = timing
                self._save(event.checkpoint_id, timing)
            self._timed = []

    def _save(self, checkpoint_id: str, timing: StepTiming) -> None:
        save = getattr(self._store, "save_step_time", None)
        if not callable(save):
            return
        try:
            save(checkpoint_id, timing.tasks)
        except Exception:  # a time is a nicety: the history itself is saved without it
            return


def _saved(store: Any) -> dict[str, StepTiming]:
    """The times ``store`` kept (``step_times()``), or none."""
    read = getattr(store, "step_times", None)
    if not callable(read):
        return {}
    try:
        kept: Mapping[str, Sequence[tuple[str, float]]] = read()
    except Exception:  # unreadable times: the steps show none
        return {}
    return {checkpoint: StepTiming(tuple(tasks)) for checkpoint, tasks in kept.items()}
