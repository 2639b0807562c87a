"""What a running task can reach: its config, stream writer, interrupts and context."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, fields, replace
from types import GenericAlias
from typing import Any, Protocol

from sgdebug.runtime.errors import GraphInterrupt
from sgdebug.runtime.types import Interrupt

__all__ = ["Runtime", "TaskScope", "get_config", "get_store", "get_stream_writer", "interrupt"]


def _no_writer(_chunk: Any) -> None:
    """The stream writer of a runtime outside a run: writes nowhere."""


def _no_heartbeat() -> None:
    """The heartbeat of a runtime outside a time-limited attempt: does nothing."""


@dataclass(frozen=True, slots=True)
class Runtime:
    """Passed to a node's ``runtime`` parameter; ``Runtime[Context]`` in annotations."""

    context: Any = None
    """The run's context object (``invoke(..., context=...)``)."""
    store: Any = None
    """The graph's long-term store (``compile(store=)``; a subgraph's: its parent's), or
    ``None``."""
    stream_writer: Callable[[Any], None] = _no_writer
    """Emits a ``custom`` stream chunk."""
    heartbeat: Callable[[], None] = _no_heartbeat
    """Marks progress for the node's ``idle_timeout`` (a no-op without one)."""
    previous: Any = None
    """Kept for parity with LangGraph's functional API; always ``None`` here."""
    execution_info: Any = None
    """What is running (an ``ExecutionInfo``): set inside a node, ``None`` outside."""
    server_info: Any = None
    """Always ``None``: set by a LangGraph server, which sgdebug is not."""
    control: Any = None
    """The run's ``RunControl`` (``invoke(..., control=)``), ``None`` outside a run."""

    def __class_getitem__(cls, params: Any) -> GenericAlias:
        """``Runtime[Context]`` in annotations, as in LangGraph."""
        return GenericAlias(cls, params)

    @property
    def drain_requested(self) -> bool:
        """Whether the run's control asked it to drain."""
        return bool(self.control is not None and self.control.drain_requested)

    @property
    def drain_reason(self) -> str | None:
        """The reason of the drain the run's control asked for, if any."""
        return None if self.control is None else self.control.drain_reason

    def override(self, **overrides: Any) -> Runtime:
        """A copy with the given fields replaced; an unknown field raises."""
        for name in overrides:
            if name not in _FIELDS:
                raise TypeError(f"Runtime.override() got an unexpected keyword argument {name!r}")
        return replace(self, **overrides)

    def merge(self, other: Runtime) -> Runtime:
        """This runtime with ``other``'s fields where ``other`` sets them (falsy ones do not)."""
        return Runtime(
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=(
                self.stream_writer if other.stream_writer is _no_writer else other.stream_writer
            ),
            heartbeat=self.heartbeat if other.heartbeat is _no_heartbeat else other.heartbeat,
            previous=self.previous if other.previous is None else other.previous,
            execution_info=other.execution_info or self.execution_info,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
        )


_FIELDS = frozenset(f.name for f in fields(Runtime))


class TaskWrap(Protocol):
    """What a run does around each of its tasks, in the thread (or on the loop) that runs it:
    ``enter`` as the task starts, ``leave`` with what ``enter`` returned once it has ended
    (see ``ScopeOwner.wrap``)."""

    def enter(self, run: Any, task: Any) -> Any: ...

    def leave(self, entered: Any, run: Any, task: Any) -> None: ...

    async def aenter(self, run: Any, task: Any) -> Any: ...

    async def aleave(self, entered: Any, run: Any, task: Any) -> None: ...


class ScopeOwner(Protocol):
    """What a task scope asks of the run that created it."""

    @property
    def namespace(self) -> tuple[str, ...]:
        """The run's checkpoint namespace (``()`` for a root graph: see ``_nesting``)."""
        ...

    @property
    def store(self) -> Any:
        """The store the run's nodes get (``None`` without one)."""
        ...

    def task_config(self, task: Any) -> dict[str, Any]: ...

    def custom_writer(self) -> Callable[[Any], None]: ...

    @property
    def messages(self) -> Any:
        """The stream's ``messages`` mode (a ``MessagesStream``), or ``None``."""
        ...

    @property
    def wrap(self) -> TaskWrap | None:
        """What runs around each task: its tasks as chain runs of its config's callbacks (a
        ``NodeRuns``), else the ``messages`` stream (a task's chat models stream to it), or
        ``None`` (the usual run: a task costs one check)."""
        ...

    def take_null_resume(self) -> tuple[bool, Any]: ...

    def answer_for(self, interrupt_id: str) -> tuple[bool, Any]: ...


class TaskScope:
    """Per-task state reached through a context variable while the node runs."""

    __slots__ = (
        "config", "counter", "outer", "owner", "pushed", "resume", "subgraphs", "task",
    )  # fmt: skip

    def __init__(self, owner: ScopeOwner, task: Any, resume: list[Any] | None) -> None:
        self.owner = owner
        self.task = task
        """The running task; ``None`` while a reused scope waits for the next one."""
        self.resume = resume
        """Answers to this task's interrupts, in call order (the task's own list; ``None``
        until it has one)."""
        self.counter = 0
        """How many times the node called ``interrupt()`` so far in this attempt."""
        self.config: dict[str, Any] | None = None
        self.subgraphs = 0
        """How many graphs the node ran in this attempt (each after the first gets a
        namespace of its own: see ``_subgraph_runs.nested_run``)."""
        self.outer: TaskScope | None = None
        """The scope that was current before this one (stands in while ``task`` is None)."""
        self.pushed: list[tuple[str, Any]] | None = None
        """Writes the node made while it ran (``push_message``), before its return value's."""

    def get_config(self) -> dict[str, Any]:
        """The task's config, built on first use."""
        if self.config is None:
            self.config = self.owner.task_config(self.task)
        return self.config

    @property
    def writer(self) -> Callable[[Any], None]:
        """The task's custom stream writer (under an idle time limit, each write is also a
        sign of progress: see ``_timeouts``)."""
        writer = self.owner.custom_writer()
        policy = None if self.task is None else self.task.node.policy
        if policy is not None and policy.timeout is not None:
            from sgdebug.runtime.engine._timeouts import progress_writer

            return progress_writer(self.task, policy.timeout, writer)
        return writer

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


def get_store() -> Any:
    """The store of the running task's graph (``compile(store=)``), ``None`` without one;
    raises outside a task, as ``get_config`` does."""
    return current_scope().owner.store


def get_stream_writer() -> Callable[[Any], None]:
    """The custom stream writer of the running task (a no-op outside a task)."""
    scope = _current()
    return scope.writer if scope is not None else (lambda _chunk: None)


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Pause the graph and ask the caller for ``value``'s answer.

    The first call raises ``GraphInterrupt``; after ``Command(resume=answer)`` the node runs
    again from the top and the same call returns ``answer`` (validated against
    ``response_schema`` when one is given: see ``_response_schema``).
    """
    from sgdebug.runtime.engine._response_schema import schema_json, validated_answer

    scope = current_scope()
    index = scope.counter
    scope.counter += 1
    if scope.resume is not None and index < len(scope.resume):
        return validated_answer(response_schema, scope.resume[index])
    interrupt_id = scope.interrupt_id(index)
    found, answer = scope.owner.answer_for(interrupt_id)
    if not found:
        found, answer = scope.owner.take_null_resume()
    if found:
        if scope.resume is None:  # (the task's first answer: its list is made now)
            scope.resume = scope.task.resume = []
        scope.resume.append(answer)
        return validated_answer(response_schema, answer)
    interrupt_ = Interrupt(value, interrupt_id, schema_json(response_schema))
    raise GraphInterrupt((interrupt_,))
