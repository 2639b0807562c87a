"""Stopping a run between steps on its ``RunControl``'s request (``invoke(..., control=)``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sgdebug.runtime.errors import GraphDrained

if TYPE_CHECKING:
    from sgdebug.runtime._control import RunControl
    from sgdebug.runtime.engine._nesting import Parent
    from sgdebug.runtime.engine._task import Task

__all__ = ["check_drain", "inherited_control"]


def inherited_control(parent: Parent | None) -> RunControl | None:
    """A subgraph's run obeys its parent run's control."""
    if parent is None:
        return None
    control: Any = getattr(getattr(parent.run, "options", None), "control", None)
    return control  # type: ignore[no-any-return]


def check_drain(control: RunControl, tasks: list[Task]) -> None:
    """Before a planned step runs: raise ``GraphDrained`` if a drain was requested.

    Called after the step's breakpoints were checked (a drain does not skip a breakpoint),
    and only for a step with tasks (a run with nothing left to do ends normally). A run
    drained before it starts stops at its input checkpoint, before the input is applied.
    """
    if control.drain_requested and tasks:
        raise GraphDrained(control.drain_reason or "shutdown")
