"""What a running task can reach: its config, stream writer, interrupts and context."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from sgdebug.runtime.errors import GraphInterrupt
from sgdebug.runtime.types import Interrupt

__all__ = ["Runtime", "TaskScope", "get_config", "get_stream_writer", "interrupt"]


@dataclass(frozen=True, slots=True)
class Runtime:
    """Passed to a node's ``runtime`` parameter."""

    context: Any = None
    """The run's context object (``invoke(..., context=...)``)."""
    store: Any = None
    """Always ``None``: sgdebug has no long-term store."""
    stream_writer: Callable[[Any], None] = lambda _chunk: None
    """Emits a ``custom`` stream chunk."""
    previous: Any = None
    """Kept for parity with LangGraph's functional API; always ``None`` here."""


class ScopeOwner(Protocol):
    """What a task scope asks of the run that created it."""

    def task_config(self, task: Any) -> dict[str, Any]: ...

    def custom_writer(self) -> Callable[[Any], None]: ...

    def take_null_resume(self) -> tuple[bool, Any]: ...


class TaskScope:
    """Per-task state reached through a context variable while the node runs."""

    __slots__ = ("config", "counter", "outer", "owner", "resume", "task")

    def __init__(self, owner: ScopeOwner, task: Any, resume: list[Any]) -> None:
        self.owner = owner
        self.task = task
        """The running task; ``None`` while a reused scope waits for the next one."""
        self.resume = resume
        """Answers to this task's interrupts, in call order."""
        self.counter = 0
        """How many times the node called ``interrupt()`` so far in this attempt."""
        self.config: dict[str, Any] | None = None
        self.outer: TaskScope | None = None
        """The scope that was current before this one (stands in while ``task`` is None)."""

    def get_config(self) -> dict[str, Any]:
        """The task's config, built on first use."""
        if self.config is None:
            self.config = self.owner.task_config(self.task)
        return self.config

    @property
    def writer(self) -> Callable[[Any], None]:
        """The task's custom stream writer."""
        return self.owner.custom_writer()

    def interrupt_id(self, index: int) -> str:
        """The id of the task's ``index``-th interrupt."""
        return uuid.uuid5(uuid.NAMESPACE_OID, f"{self.task.id}:{index}").hex


SCOPE: ContextVar[TaskScope | None] = ContextVar("sgdebug_task_scope", default=None)


def current_scope() -> TaskScope:
    """The scope of the running task; raises outside a task."""
    scope = _current()
    if scope is None:
        raise RuntimeError("Called get_config outside of a runnable context")
    return scope


def _current() -> TaskScope | None:
    scope = SCOPE.get()
    while scope is not None and scope.task is None:
        scope = scope.outer  # a reused scope between tasks stands for the one before it
    return scope


def enter_scope(scope: TaskScope) -> object:
    """Make ``scope`` current; returns a token for :func:`leave_scope`."""
    return SCOPE.set(scope)


def leave_scope(token: object) -> None:
    """Restore the scope that was current before :func:`enter_scope`."""
    SCOPE.reset(token)  # type: ignore[arg-type]


def get_config() -> dict[str, Any]:
    """The config of the running task."""
    return current_scope().get_config()


def get_stream_writer() -> Callable[[Any], None]:
    """The custom stream writer of the running task (a no-op outside a task)."""
    scope = _current()
    return scope.writer if scope is not None else (lambda _chunk: None)


def interrupt(value: Any) -> Any:
    """Pause the graph and ask the caller for ``value``'s answer.

    The first call raises ``GraphInterrupt``; after ``Command(resume=answer)`` the node runs
    again from the top and the same call returns ``answer``.
    """
    scope = current_scope()
    index = scope.counter
    scope.counter += 1
    if index < len(scope.resume):
        return scope.resume[index]
    found, answer = scope.owner.take_null_resume()
    if found:
        scope.resume.append(answer)
        return answer
    raise GraphInterrupt((Interrupt(value=value, id=scope.interrupt_id(index)),))
