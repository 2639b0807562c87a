"""Public value types of the runtime, shaped like LangGraph's so programs port unchanged."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Generic, NamedTuple, TypeVar

__all__ = [
    "Command",
    "RetryPolicy",
    "TimeoutPolicy",
    "Interrupt",
    "Overwrite",
    "PregelTask",
    "Send",
    "StateSnapshot",
    "StateUpdate",
    "StreamWriter",
]

from sgdebug.runtime._policies import RetryPolicy, TimeoutPolicy

N = TypeVar("N", bound=str)

StreamWriter = Callable[[Any], None]
"""A node parameter named ``writer`` receives one: it emits a ``custom`` stream chunk."""

OVERWRITE_KEY: Final = "__overwrite__"


class Send:
    """Schedule one task of ``node`` in the next superstep with exactly ``arg`` as its input;
    ``timeout`` (seconds, a ``timedelta`` or a ``TimeoutPolicy``) replaces the node's own
    time limit for that task."""

    __slots__ = ("arg", "node", "timeout")

    def __init__(self, node: str, arg: Any, *, timeout: Any = None) -> None:
        self.node = node
        self.arg = arg
        self.timeout: TimeoutPolicy | None = TimeoutPolicy.coerce(timeout)

    def __repr__(self) -> str:
        if self.timeout is None:
            return f"Send(node={self.node!r}, arg={self.arg!r})"
        return f"Send(node={self.node!r}, arg={self.arg!r}, timeout={self.timeout!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Send) and (self.node, self.arg, self.timeout) == (
            other.node, other.arg, other.timeout,
        )  # fmt: skip

    def __hash__(self) -> int:
        return hash((self.node, repr(self.arg), self.timeout))


@dataclass(frozen=True, slots=True)
class Overwrite:
    """Write ``value`` to a reducer channel, replacing its value instead of reducing."""

    value: Any
    """The new value of the channel."""
    type: str = OVERWRITE_KEY
    """Marker kept for parity with LangGraph's repr."""


@dataclass(frozen=True, slots=True)
class Interrupt:
    """A pause requested by ``interrupt(value)`` inside a node."""

    value: Any
    """What the node asked the caller."""
    id: str = "placeholder-id"
    """Identifies the interrupt when resuming several at once."""
    response_schema: Any = None
    """The JSON Schema the answer must match (``interrupt(..., response_schema=)``)."""


@dataclass(frozen=True, slots=True, repr=False)
class Command(Generic[N]):
    """Returned by a node (update + routing) or given as input (resume, update, goto)."""

    PARENT: ClassVar[str] = "__parent__"

    graph: str | None = None
    """``None`` for the current graph, ``Command.PARENT`` for the parent graph."""
    update: Any | None = None
    """Applied like a node's returned dict."""
    resume: Any | None = None
    """Answer to pending interrupts (a value, or a dict of interrupt id to value)."""
    goto: Send | Sequence[Send | N] | N = field(default=())
    """Nodes or Sends to run next, added to the node's own edges."""

    def __repr__(self) -> str:
        parts = [
            f"{name}={value!r}"
            for name, value in (
                ("graph", self.graph),
                ("update", self.update),
                ("resume", self.resume),
                ("goto", self.goto),
            )
            if value is not None and value != ()
        ]
        return f"Command({', '.join(parts)})"


class PregelTask(NamedTuple):
    """One task of the superstep that follows a snapshot."""

    id: str
    name: str
    path: tuple[Any, ...]
    error: Exception | str | None = None
    interrupts: tuple[Interrupt, ...] = ()
    state: Any = None
    result: Any | None = None


class StateSnapshot(NamedTuple):
    """The state of a thread at one checkpoint, as ``get_state`` returns it."""

    values: Any
    next: tuple[str, ...]
    config: dict[str, Any]
    metadata: dict[str, Any] | None
    created_at: str | None
    parent_config: dict[str, Any] | None
    tasks: tuple[PregelTask, ...]
    interrupts: tuple[Interrupt, ...]


class StateUpdate(NamedTuple):
    """One update of ``bulk_update_state``: ``values`` as if ``as_node`` returned them."""

    values: dict[str, Any] | Any | None
    as_node: str | None = None
    task_id: str | None = None
