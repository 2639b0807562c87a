"""The pieces a run is made of: tasks, their ids, run options, and small helpers."""

from __future__ import annotations

import uuid
from typing import Any

from sgdebug.runtime._constants import PULL, PUSH
from sgdebug.runtime.checkpoint.base import CheckpointId, task_id
from sgdebug.runtime.errors import NodeError
from sgdebug.runtime.graph._node import CompiledNode, Write, WriteTarget, return_writes
from sgdebug.runtime.types import Command, Interrupt

PLAIN = frozenset((str, dict, list, tuple, type(None), int, bool))
"""Result types that are never awaitable (skips ``inspect.isawaitable``'s ABC check)."""


class Task:
    """One node execution in a superstep, made by :func:`make_task`."""

    __slots__ = (
        "_id", "applied", "checkpoint_id", "done", "error", "extras", "input", "interrupts",
        "name", "node", "path", "resume", "stopped", "triggers", "writes",
    )  # fmt: skip

    _id: str | None
    checkpoint_id: CheckpointId | None
    """The checkpoint it was planned from, when its id derives from it (made on demand)."""
    name: str
    path: tuple[Any, ...]
    """``('__pregel_pull', name)`` or ``('__pregel_push', index, False)``."""
    input: Any
    """What the node receives: its state view, or a Send's argument."""
    triggers: tuple[str, ...]
    """The channels that made it run (``('__pregel_push',)`` for a Send)."""
    node: CompiledNode
    writes: list[Write]
    """Its writes once run: state writes first, then routing."""
    done: bool
    error: BaseException | None
    interrupts: tuple[Interrupt, ...]
    stopped: bool
    """Whether an attempt stopped on a ``GraphInterrupt`` (with :attr:`interrupts`, or
    none: a subgraph it ran stopped at a static breakpoint); read with :attr:`done`,
    as a later attempt that finishes leaves it set."""
    resume: list[Any] | None
    """Answers to its interrupts, in call order."""
    applied: dict[str, Any] | None
    """Channels with only this task's writes applied, made for its conditional edges;
    a step of this one task commits them as they are instead of reducing twice."""
    extras: TaskExtras | None
    """What only a task under a policy or an error handler needs, once it needs it (a task
    per step does not fill these fields: read them as the properties below)."""

    def _extras(self) -> TaskExtras:
        extras = self.extras
        if extras is None:
            extras = self.extras = TaskExtras()
        return extras

    @property
    def attempt(self) -> int:
        """Which attempt of the node is running (more than 1 under a retry policy)."""
        return 1 if self.extras is None else self.extras.attempt

    @attempt.setter
    def attempt(self, value: int) -> None:
        self._extras().attempt = value

    @property
    def first_attempt(self) -> float | None:
        """When the first attempt started (Unix seconds), set under a retry policy."""
        return None if self.extras is None else self.extras.first_attempt

    @first_attempt.setter
    def first_attempt(self, value: float | None) -> None:
        self._extras().first_attempt = value

    @property
    def beat(self) -> float:
        """Its last sign of progress (``time.monotonic``), under an idle time limit."""
        return 0.0 if self.extras is None else self.extras.beat

    @beat.setter
    def beat(self, value: float) -> None:
        self._extras().beat = value

    @property
    def handler(self) -> Task | None:
        """The error handler task its failure was handed to (it is then done, writing nothing)."""
        return None if self.extras is None else self.extras.handler

    @handler.setter
    def handler(self, value: Task | None) -> None:
        self._extras().handler = value

    @property
    def node_error(self) -> NodeError | None:
        """For an error handler task: the failure it handles (its ``error`` parameter)."""
        return None if self.extras is None else self.extras.node_error

    @node_error.setter
    def node_error(self, value: NodeError | None) -> None:
        self._extras().node_error = value

    @property
    def seconds(self) -> float | None:
        """How long it ran last time it was run (under a retry policy, every attempt and the
        waits between them), in a watched run (the debugger shows it; an unwatched run
        times nothing): timed in the thread or on the loop that ran it, so each task of a
        parallel step has its own time, not the step's."""
        return None if self.extras is None else self.extras.seconds

    @seconds.setter
    def seconds(self, value: float | None) -> None:
        self._extras().seconds = value

    @property
    def id(self) -> str:
        """UUID-shaped; derived from the checkpoint and path when the run saves checkpoints."""
        found = self._id
        if found is None:
            assert self.checkpoint_id is not None
            found = self._id = task_id(self.checkpoint_id, self.path)
        return found

    def __repr__(self) -> str:
        state = "done" if self.done else "error" if self.error else "pending"
        return f"Task({self.name!r}, path={self.path!r}, {state})"

    @property
    def send(self) -> bool:
        """Whether the task was created by a ``Send``."""
        return bool(self.path[0] == PUSH)


_new_object = object.__new__


def make_task(
    id: str | None,
    name: str,
    path: tuple[Any, ...],
    input: Any,
    triggers: tuple[str, ...],
    node: CompiledNode,
    checkpoint_id: CheckpointId | None = None,
) -> Task:
    """A new pending task (``id`` ``None``: derived from ``checkpoint_id`` and ``path``).

    Tasks are made here, not by calling the class: a class call runs ``__init__`` from C, the
    costliest call of a step that makes one task.
    """
    task: Task = _new_object(Task)
    task._id = id
    task.checkpoint_id = checkpoint_id
    task.name = name
    task.path = path
    task.input = input
    task.triggers = triggers
    task.node = node
    task.writes = []
    task.done = False
    task.error = None
    task.interrupts = ()
    task.stopped = False
    task.resume = None
    task.applied = None
    task.extras = None
    return task


class TaskExtras:
    """The fields of a :class:`Task` that only a task under a retry policy or a time limit,
    an error handler's (or its failed task), or a timed one sets."""

    __slots__ = ("attempt", "beat", "first_attempt", "handler", "node_error", "seconds")

    def __init__(self) -> None:
        self.attempt = 1
        self.first_attempt: float | None = None
        self.beat = 0.0
        self.handler: Task | None = None
        self.node_error: NodeError | None = None
        self.seconds: float | None = None


class TaskIds:
    """Where a step's task ids come from.

    Without a checkpointer: UUID-shaped, unique per process, cheap to make (a counter).
    With one, ``base`` is the checkpoint the step is planned from and a task's id derives
    from it and the task's path (made when first asked for, see :attr:`Task.id`).
    """

    __slots__ = ("base", "count", "prefix")

    def __init__(self) -> None:
        self.prefix = str(uuid.uuid4())[:24]
        self.count = 0
        self.base: CheckpointId | None = None
        """The checkpoint tasks are planned from, when the run saves checkpoints."""

    def task(
        self, node: CompiledNode, path: tuple[Any, ...], value: Any, triggers: tuple[str, ...]
    ) -> Task:
        """A new task of ``node`` at ``path`` receiving ``value``."""
        if self.base is not None:
            return make_task(None, node.name, path, value, triggers, node, self.base)
        self.count += 1
        return make_task(f"{self.prefix}{self.count:012x}", node.name, path, value, triggers, node)


def path_key(task: Task) -> tuple[int, Any]:
    """Sort key of task-path order: pulled nodes by name, then Send tasks by index (an error
    handler's task, whose path extends its failed task's, sorts in that task's place)."""
    path = task.path
    return (0 if path[0] == PULL else 1, path[1])


def command_input_writes(target: WriteTarget, cmd: Command[Any]) -> list[Write]:
    """Writes of a ``Command`` given as a fresh run's input (update plus goto)."""
    routes: list[Write] = []
    writes = return_writes(Command(update=cmd.update, goto=cmd.goto), target, routes)
    return writes + routes


def _await(value: Any) -> Any:
    import asyncio

    async def wait() -> Any:
        return await value

    return asyncio.run(wait())
