"""The errors a graph run raises, named and worded as LangGraph's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import TROUBLESHOOTING

if TYPE_CHECKING:
    from sgdebug.runtime.types import Command, Interrupt

__all__ = [
    "EmptyChannelError",
    "EmptyInputError",
    "GraphInterrupt",
    "GraphRecursionError",
    "InvalidUpdateError",
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
