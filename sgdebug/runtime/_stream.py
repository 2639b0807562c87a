"""Collecting a run's stream events for the modes a caller asked for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT, ROOT, START
from sgdebug.runtime._node import updates_payload

if TYPE_CHECKING:
    from sgdebug.runtime._run import Run, Task


class Emitter:
    """Receives a run's events and keeps those of the requested stream modes, in order."""

    __slots__ = ("events", "modes", "track_values", "values_keys", "values_seen")

    def __init__(
        self,
        modes: str | Sequence[str],
        values_keys: str | Sequence[str],
        *,
        track_values: bool = False,
    ) -> None:
        self.modes = frozenset([modes] if isinstance(modes, str) else modes)
        self.track_values = track_values
        """Only note that the values changed (``invoke`` reads them once at the end)."""
        self.values_seen = False
        self.values_keys: str | tuple[str, ...] = (
            values_keys if isinstance(values_keys, str) else tuple(values_keys)
        )
        self.events: list[tuple[str, Any]] = []

    def __call__(self, mode: str, payload: Any) -> None:
        if mode in self.modes:
            self.events.append((mode, payload))

    def drain(self) -> list[tuple[str, Any]]:
        """The events collected since the last drain."""
        out, self.events = self.events, []
        return out

    def values(self, run: Run, updated: set[str]) -> None:
        """After a commit: the state, if a streamed channel changed."""
        keys = self.values_keys
        if self.track_values:
            if not self.values_seen:
                self.values_seen = (
                    keys in updated if isinstance(keys, str) else not updated.isdisjoint(keys)
                )
            return
        if "values" not in self.modes:
            return
        hit = keys in updated if isinstance(keys, str) else not updated.isdisjoint(keys)
        if hit:
            self.events.append(("values", run.read_values(keys)))

    def task_result(self, run: Run, task: Task) -> None:
        """After a task finished: its ``updates`` entry."""
        if task.name == START or "updates" not in self.modes:
            return
        if run.graph.root:
            values = [v for k, v in task.writes if k == ROOT]
            payload = values[-1] if values else None
        else:
            payload = updates_payload(task.writes, run.graph.state_keys)
        self.events.append(("updates", {task.name: payload}))

    def interrupted(self, run: Run) -> None:
        """After a dynamic interrupt: the ``__interrupt__`` update."""
        self("updates", {INTERRUPT: run.interrupts})
