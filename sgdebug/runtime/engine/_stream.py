"""Collecting a run's stream events for the modes a caller asked for.

An event is ``(mode, payload)``; one forwarded from a subgraph's run (``stream(subgraphs=
True)``, see :mod:`._forward`) is ``(mode, payload, namespace)``.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import AsyncIterable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT, ROOT, START
from sgdebug.runtime.errors import ParentCommand
from sgdebug.runtime.graph._node import task_result, updates_payload

if TYPE_CHECKING:
    from sgdebug.runtime.engine._forward import Sink
    from sgdebug.runtime.engine._messages_mode import MessagesStream
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView


_TASK_MODES = frozenset(("tasks", "debug"))
_CHECKPOINT_MODES = frozenset(("checkpoints", "debug"))
_CALLBACK_MODES = frozenset(("messages", "tools"))
"""Modes fed by langchain-core callbacks in a task's config (:mod:`._messages_mode`)."""


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


class Emitter:
    """Receives a run's events and keeps those of the requested stream modes, in order."""

    __slots__ = (
        "events", "forward", "kept", "lock", "messages", "modes", "subgraphs", "update_keys",
        "values_keys",
    )  # fmt: skip

    def __init__(
        self,
        modes: str | Iterable[str],
        values_keys: str | Sequence[str],
        *,
        update_keys: str | Sequence[str] | None = None,
        subgraphs: bool = False,
    ) -> None:
        self.modes = frozenset([modes] if isinstance(modes, str) else modes)
        self.values_keys: str | tuple[str, ...] = (
            values_keys if isinstance(values_keys, str) else tuple(values_keys)
        )
        self.update_keys: str | frozenset[str] | None = (
            update_keys if update_keys is None or isinstance(update_keys, str)
            else frozenset(update_keys)
        )  # fmt: skip
        """The ``output_keys`` a stream was given: the keys its ``updates`` show."""
        self.events: list[tuple[Any, ...]] = []
        self.subgraphs = subgraphs
        """Whether the runs of subgraphs forward their events here (``subgraphs=True``)."""
        self.forward: Sink | None = None
        """Where this (subgraph's) run's events go on, besides its own caller's stream."""
        self.kept: list[tuple[Any, ...]] = []
        """Events flushed to :attr:`forward` that the run's own caller streams too."""
        self.lock = threading.Lock()
        """Serialises :meth:`flush` (tasks in several threads may flush at once)."""
        self.messages: MessagesStream | None = None
        """The ``messages`` / ``tools`` modes' state, when one is streamed."""
        if not self.modes.isdisjoint(_CALLBACK_MODES):
            from sgdebug.runtime.engine._messages_mode import MessagesStream

            self.messages = MessagesStream(self, self.modes)

    def __call__(self, mode: str, payload: Any) -> None:
        if mode in self.modes:
            self.events.append((mode, payload))
            if self.forward is not None:  # (a custom chunk, while a task runs)
                self.flush()

    def drain(self) -> list[tuple[Any, ...]]:
        """The events collected since the last drain (for the run's own caller)."""
        if self.forward is not None:
            self.flush()
            out, self.kept = self.kept, []
            return out
        out, self.events = self.events, []
        return out

    def flush(self) -> None:
        """Pass the events collected so far on to the parent's stream (:attr:`forward`).

        Called where no collected event can change any more: while tasks run (a custom
        chunk, a task's result, a subgraph's events), once a step is planned (the previous
        commit's events stand) and when an advance of the run returns. Tasks in several
        threads may flush at once: each event goes on once, in order.
        """
        forward = self.forward
        if forward is None or not self.events:
            return
        with self.lock:
            events = self.events
            batch = events[: len(events)]  # appends from other threads stay for the next
            del events[: len(batch)]
            self.kept += forward.pass_on(batch)

    def values(self, run: RunView, updated: set[str]) -> None:
        """After a commit: the state, if a streamed channel changed."""
        keys = self.values_keys
        if "values" not in self.modes:
            return
        hit = keys in updated if isinstance(keys, str) else not updated.isdisjoint(keys)
        if hit:
            self.events.append(("values", run.read_values(keys)))

    def task_result(self, run: RunView, task: Task) -> None:
        """After a task ran: its ``updates`` (none for a task that failed before writing)
        and ``tasks`` / ``debug`` entries. A ``Command.PARENT`` leaving the graph (as
        :class:`ParentCommand`) is not a result: its task reports nothing."""
        self._result(run, task)
        if self.forward is not None:
            self.flush()

    def _result(self, run: RunView, task: Task) -> None:
        if isinstance(task.error, ParentCommand):
            return
        messages = self.messages
        if messages is not None and messages.tokens and not task.interrupts and task.name != START:
            messages.finished(run, task)
        if task.error is None or task.writes:
            self.events.extend(self._updates(run, task))
        self._task_result_event(run, task)

    def _updates(self, run: RunView, task: Task) -> list[tuple[str, Any]]:
        if task.name == START or "updates" not in self.modes or task.interrupts:
            return []
        return [("updates", {task.name: self._payload(run, task)})]

    def _payload(self, run: RunView, task: Task) -> Any:
        """What a task wrote, as ``updates`` shows it: the written keys among the stream's
        output keys (all state keys unless ``output_keys`` was given; a single key's value
        bare)."""
        keys = self.update_keys
        if keys is None:
            if not run.graph.root:
                return updates_payload(task.writes, run.graph.state_keys)
            keys = ROOT
        if isinstance(keys, str):
            values = [v for k, v in task.writes if k == keys]
            if keys == ROOT and len(values) > 1:  # a root state's several updates: a list
                return values
            return values[-1] if values else None
        return updates_payload(task.writes, keys)

    def insert_results(self, run: RunView, at: int, tasks: Sequence[Task]) -> None:
        """Insert the result events of ``tasks`` at position ``at`` of the buffer."""
        tail = self.events[at:]
        del self.events[at:]
        for task in tasks:
            self._result(run, task)
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
            self.flush()
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
        self.flush()

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
        payload = self._payload(run, task)
        self.events.append(("updates", {task.name: payload, "__metadata__": {"cached": True}}))


def nested_output(chunks: Iterable[tuple[Any, str, Any]]) -> Any:
    """``invoke(subgraphs=True)``'s result, from ``stream(["updates", "values"],
    subgraphs=True)``: as in LangGraph, the last ``values`` chunk of any namespace, with
    the interrupts of every namespace's ``updates`` (a subgraph's interrupt is listed
    twice: its own and its parent's)."""
    latest: Any = None
    interrupts: list[Any] = []
    for _namespace, mode, payload in chunks:
        latest = _collect(mode, payload, latest, interrupts)
    return _with_interrupts(latest, interrupts)


async def anested_output(chunks: AsyncIterable[tuple[Any, str, Any]]) -> Any:
    """:func:`nested_output` for ``ainvoke``."""
    latest: Any = None
    interrupts: list[Any] = []
    async for _namespace, mode, payload in chunks:
        latest = _collect(mode, payload, latest, interrupts)
    return _with_interrupts(latest, interrupts)


def _collect(mode: str, payload: Any, latest: Any, interrupts: list[Any]) -> Any:
    if mode == "values":
        return payload
    if mode == "updates" and isinstance(payload, dict) and INTERRUPT in payload:
        interrupts.extend(payload[INTERRUPT])
    return latest


def _with_interrupts(latest: Any, interrupts: list[Any]) -> Any:
    if not interrupts:
        return latest
    return (
        {**latest, INTERRUPT: interrupts} if isinstance(latest, dict) else {INTERRUPT: interrupts}
    )
