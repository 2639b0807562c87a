"""The errors a graph run raises, named and worded as LangGraph's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sgdebug.runtime._constants import TROUBLESHOOTING

if TYPE_CHECKING:
    from sgdebug.runtime.types import Command, Interrupt

__all__ = [
    "EmptyChannelError",
    "EmptyInputError",
    "GraphDrained",
    "GraphInterrupt",
    "GraphRecursionError",
    "InvalidUpdateError",
    "NodeCancelledError",
    "NodeError",
    "NodeTimeoutError",
    "ParentCommand",
    "troubleshooting",
]


def troubleshooting(message: str, code: str) -> str:
    """Append LangGraph's troubleshooting link for ``code`` to ``message``."""
    return f"{message}{TROUBLESHOOTING}{code}"


class EmptyChannelError(Exception):
    """Raised when reading a channel that holds no value."""


class InvalidUpdateError(Exception):
    """A node or the input wrote something the graph cannot apply."""


class GraphRecursionError(RecursionError):
    """The run exceeded its ``recursion_limit`` without reaching a stop."""


class EmptyInputError(Exception):
    """``invoke(None)`` on a thread that has nothing to resume."""


class GraphInterrupt(Exception):
    """Raised inside a task by ``interrupt()``; never used for debugger pauses."""

    def __init__(self, interrupts: Sequence[Interrupt] = ()) -> None:
        super().__init__(tuple(interrupts))
        self.interrupts: tuple[Interrupt, ...] = tuple(interrupts)


class ParentCommand(Exception):
    """A ``Command(graph=Command.PARENT)`` travelling to the parent graph."""

    def __init__(self, command: Command[Any]) -> None:
        super().__init__(command)
        self.command: Command[Any] = command

    def __str__(self) -> str:
        from dataclasses import replace

        return repr(replace(self.command, graph=None))


@dataclass(frozen=True, slots=True)
class NodeError:
    """What an error handler node receives as its ``error: NodeError`` parameter."""

    node: str
    """The node that failed."""
    error: BaseException
    """What it raised (after its retries, if it has a retry policy)."""


class NodeCancelledError(Exception):
    """A node's own code raised ``asyncio.CancelledError``: a failure of the node, unlike a
    cancellation of the run."""

    def __init__(self, node: str, message: str | None = None) -> None:
        super().__init__(message or f"Node {node!r} raised asyncio.CancelledError")
        self.node = node


class NodeTimeoutError(Exception):
    """An attempt of a node went past its ``TimeoutPolicy`` (retryable by default: it is not
    the built-in ``TimeoutError``)."""

    def __init__(
        self,
        node: str,
        elapsed: float,
        *,
        kind: Literal["idle", "run"],
        idle_timeout: float | None = None,
        run_timeout: float | None = None,
    ) -> None:
        limit = idle_timeout if kind == "idle" else run_timeout
        if limit is None:
            raise ValueError(f"{kind}_timeout is required when kind={kind!r}")
        what = "idle timeout" if kind == "idle" else "run timeout"
        progress = " without making progress" if kind == "idle" else ""
        super().__init__(
            f"Node '{node}' exceeded its {what} of {limit:.3f}s{progress} "
            f"(elapsed: {elapsed:.3f}s)."
        )
        self.node, self.elapsed, self.kind, self.timeout = node, elapsed, kind, limit
        self.idle_timeout, self.run_timeout = idle_timeout, run_timeout


class GraphDrained(Exception):
    """The run stopped between two steps because its ``RunControl`` asked it to drain; with
    a checkpointer, ``invoke(None, config)`` resumes it where it stopped."""

    def __init__(self, reason: str = "shutdown") -> None:
        super().__init__(f"Graph drained: {reason}")
        self.reason = reason
