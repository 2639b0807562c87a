"""Collecting a run's stream events for the modes a caller asked for."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT, ROOT, START
from sgdebug.runtime.graph._node import task_result, updates_payload

if TYPE_CHECKING:
    from sgdebug.runtime.engine._messages_mode import MessagesStream
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView


_TASK_MODES = frozenset(("tasks", "debug"))
_CHECKPOINT_MODES = frozenset(("checkpoints", "debug"))


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


class Emitter:
    """Receives a run's events and keeps those of the requested stream modes, in order."""

    __slots__ = ("events", "messages", "modes", "values_keys")

    def __init__(self, modes: str | Sequence[str], values_keys: str | Sequence[str]) -> None:
        self.modes = frozenset([modes] if isinstance(modes, str) else modes)
        self.values_keys: str | tuple[str, ...] = (
            values_keys if isinstance(values_keys, str) else tuple(values_keys)
        )
        self.events: list[tuple[str, Any]] = []
        self.messages: MessagesStream | None = None
        """The ``messages`` mode's state, when it is streamed."""
        if "messages" in self.modes:
            from sgdebug.runtime.engine._messages_mode import MessagesStream

            self.messages = MessagesStream(self)

    def __call__(self, mode: str, payload: Any) -> None:
        if mode in self.modes:
            self.events.append((mode, payload))

    def drain(self) -> list[tuple[str, Any]]:
        """The events collected since the last drain."""
        out, self.events = self.events, []
        return out

    def values(self, run: RunView, updated: set[str]) -> None:
        """After a commit: the state, if a streamed channel changed."""
        keys = self.values_keys
        if "values" not in self.modes:
            return
        hit = keys in updated if isinstance(keys, str) else not updated.isdisjoint(keys)
        if hit:
            self.events.append(("values", run.read_values(keys)))

    def task_result(self, run: RunView, task: Task) -> None:
        """After a task finished: its ``messages``, ``updates`` (and ``tasks`` / ``debug``)
        entries."""
        if self.messages is not None and not task.interrupts and task.name != START:
            self.messages.finished(run, task)
        self.events.extend(self._updates(run, task))
        self._task_result_event(run, task)

    def failed(self, run: RunView, task: Task) -> None:
        """A task raised (and wrote nothing): its ``tasks`` / ``debug`` result, with the
        exception as its error, before the error ends the run."""
        self._task_result_event(run, task)

    def _updates(self, run: RunView, task: Task) -> list[tuple[str, Any]]:
        if task.name == START or "updates" not in self.modes or task.interrupts:
            return []
        if run.graph.root:
            values = [v for k, v in task.writes if k == ROOT]  # several: all, as a list
            payload = (values[0] if len(values) == 1 else values) if values else None
        else:
            payload = updates_payload(task.writes, run.graph.state_keys)
        return [("updates", {task.name: payload})]

    def insert_results(self, run: RunView, at: int, tasks: Sequence[Task]) -> None:
        """Insert the result events of ``tasks`` at position ``at`` of the buffer."""
        tail = self.events[at:]
        del self.events[at:]
        for task in tasks:
            self.task_result(run, task)
        self.events.extend(tail)

    def truncate(self, at: int) -> None:
        """Drop the events buffered since position ``at``."""
        del self.events[at:]

    def resumed(self, run: RunView) -> None:
        """A run resumes on a thread: the current state first."""
        if "values" in self.modes:
            self.events.append(("values", run.read_values(self.values_keys)))

    def planned(self, run: RunView, tasks: Sequence[Task]) -> None:
        """After planning: the ``tasks`` / ``debug`` start events."""
        if not self.modes & _TASK_MODES:
            return
        for task in tasks:
            if task.name == START:
                continue
            payload = {
                "id": task.id,
                "name": task.name,
                "input": task.input,
                "triggers": task.triggers,
            }
            self._task_event(run, "task", payload)

    def _task_result_event(self, run: RunView, task: Task) -> None:
        if not self.modes & _TASK_MODES or task.name == START:
            return
        result: dict[str, Any] = {}
        if not task.interrupts:
            state_keys = run.graph.state_keys
            result = task_result(task.writes, state_keys)
        payload = {
            "id": task.id,
            "name": task.name,
            "error": task.error,
            "result": result,
            "interrupts": [
                {"value": i.value, "id": i.id, "response_schema": i.response_schema}
                for i in task.interrupts
            ],
        }
        self._task_event(run, "task_result", payload)

    def _task_event(self, run: RunView, kind: str, payload: dict[str, Any]) -> None:
        if "tasks" in self.modes:
            self.events.append(("tasks", payload))
        if "debug" in self.modes:
            event = {"step": run.step, "timestamp": _now(), "type": kind, "payload": payload}
            self.events.append(("debug", event))

    def checkpoint(self, payload: dict[str, Any], step: int) -> None:
        """After a checkpoint was saved: the ``checkpoints`` / ``debug`` events."""
        if "checkpoints" in self.modes:
            self.events.append(("checkpoints", payload))
        if "debug" in self.modes:
            event = {"step": step, "timestamp": _now(), "type": "checkpoint", "payload": payload}
            self.events.append(("debug", event))

    @property
    def wants_checkpoints(self) -> bool:
        """Whether saved checkpoints are streamed."""
        return bool(self.modes & _CHECKPOINT_MODES)

    def interrupted(self, run: RunView, task: Task) -> None:
        """A task called ``interrupt()``: the ``__interrupt__`` update and values."""
        self("updates", {INTERRUPT: task.interrupts})
        if "values" in self.modes:
            state = run.read_values(self.values_keys)
            if isinstance(state, dict):
                self.events.append(("values", {**state, INTERRUPT: task.interrupts}))

    def cached(self, run: RunView, task: Task) -> None:
        """A task whose writes were recorded before a resume: its update, marked cached."""
        if "updates" not in self.modes or task.name == START:
            return
        payload = updates_payload(task.writes, run.graph.state_keys)
        self.events.append(("updates", {task.name: payload, "__metadata__": {"cached": True}}))
