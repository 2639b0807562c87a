"""The pieces a run is made of: tasks, run options, ids, and small helpers."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import PULL, PUSH
from sgdebug.runtime.checkpoint.base import CheckpointId, task_id
from sgdebug.runtime.engine._hooks import PauseHook
from sgdebug.runtime.graph._node import CompiledNode, Write, return_writes
from sgdebug.runtime.types import Command, Interrupt

if TYPE_CHECKING:
    from sgdebug.runtime.engine._run import Run
    from sgdebug.runtime.engine._stream import Emitter

PLAIN = frozenset((str, dict, list, tuple, type(None), int, bool))
"""Result types that are never awaitable (skips ``inspect.isawaitable``'s ABC check)."""


class Task:
    """One node execution in a superstep."""

    __slots__ = (
        "_id", "applied", "checkpoint_id", "done", "error", "input", "interrupts", "name",
        "node", "path", "resume", "triggers", "writes",
    )  # fmt: skip

    def __init__(
        self,
        id: str | None,
        name: str,
        path: tuple[Any, ...],
        input: Any,
        triggers: tuple[str, ...],
        node: CompiledNode,
        checkpoint_id: CheckpointId | None = None,
    ) -> None:
        self._id = id
        self.checkpoint_id = checkpoint_id
        """The checkpoint it was planned from, when its id derives from it (made on demand)."""
        self.name = name
        self.path = path
        """``('__pregel_pull', name)`` or ``('__pregel_push', index, False)``."""
        self.input = input
        """What the node receives: its state view, or a Send's argument."""
        self.triggers = triggers
        """The channels that made it run (``('__pregel_push',)`` for a Send)."""
        self.node = node
        self.writes: list[Write] = []
        """Its writes once run: state writes first, then routing."""
        self.done = False
        self.error: BaseException | None = None
        self.interrupts: tuple[Interrupt, ...] = ()
        self.resume: list[Any] | None = None
        """Answers to its interrupts, in call order."""
        self.applied: dict[str, Any] | None = None
        """Channels with only this task's writes applied, made for its conditional edges;
        a step of this one task commits them as they are instead of reducing twice."""

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


@dataclass(slots=True)
class RunOptions:
    """How a run is driven."""

    config: dict[str, Any]
    recursion_limit: int
    hooks: Sequence[PauseHook] = ()
    context: Any = None
    emit: Emitter | None = None
    """Collects stream events; ``None`` when nobody listens."""
    interrupt_before: tuple[str, ...] | str = ()
    """Nodes to stop before (``"*"`` for all)."""
    interrupt_after: tuple[str, ...] | str = ()
    """Nodes to stop after (``"*"`` for all)."""
    watch: frozenset[str] = frozenset()
    """Channels whose change sets :attr:`Run.watched_changed` (``invoke``'s output keys)."""


class _IdSource:
    """Task ids: UUID-shaped, unique per process, cheap to make."""

    __slots__ = ("count", "prefix")

    def __init__(self) -> None:
        self.prefix = str(uuid.uuid4())[:24]
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"{self.prefix}{self.count:012x}"


def _path_key(task: Task) -> tuple[int, Any]:
    return (0, task.name) if task.path[0] == PULL else (1, task.path[1])


def command_input_writes(run: Run, cmd: Command[Any]) -> list[Write]:
    """Writes of a ``Command`` given as a fresh run's input (update plus goto)."""
    routes: list[Write] = []
    writes = return_writes(Command(update=cmd.update, goto=cmd.goto), run.graph.target, routes)
    return writes + routes


def _await(value: Any) -> Any:
    import asyncio

    async def wait() -> Any:
        return await value

    return asyncio.run(wait())
