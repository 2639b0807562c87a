"""Turning the runtime's live objects into the session's frozen data (tasks, errors, mutations)."""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sgdebug.debugger.results import ErrorInfo, Mutation, TaskInfo
from sgdebug.runtime import PregelTask, Task

__all__ = ["error_info", "format_traceback", "mutation", "pregel_task_info", "task_info"]

_RUNTIME_DIR = str(Path(__file__).resolve().parent.parent / "runtime")


def task_info(task: Task) -> TaskInfo:
    """A pending or finished task of a live run."""
    return TaskInfo(
        id=task.id,
        name=task.name,
        path=tuple(task.path),
        input=task.input,
        triggers=tuple(task.triggers),
        send=task.send,
        done=task.done,
        writes=tuple(task.writes),
        error=task.error,
        interrupts=tuple(task.interrupts),
    )


def pregel_task_info(
    task: PregelTask, input: Any = None, triggers: tuple[str, ...] = (), *, latest: bool = True
) -> TaskInfo:
    """A task read back from a snapshot (its input comes from a replanned preview).

    At an older snapshot (``latest=False``) the tasks will run again: they are pending.
    """
    if not latest:
        task = PregelTask(task.id, task.name, task.path)
    result = task.result
    writes = tuple(result.items()) if isinstance(result, dict) else ()
    return TaskInfo(
        id=task.id,
        name=task.name,
        path=tuple(task.path),
        input=input,
        triggers=triggers,
        send=bool(task.path) and task.path[0] == "__pregel_push",
        done=result is not None,
        writes=writes,
        error=task.error,
        interrupts=tuple(task.interrupts),
    )


def format_traceback(error: BaseException) -> str:
    """The traceback of ``error`` without the runtime's frames (the user's code remains)."""
    info = traceback.TracebackException.from_exception(error)
    kept = [frame for frame in info.stack if not frame.filename.startswith(_RUNTIME_DIR)]
    if kept:
        info.stack = traceback.StackSummary.from_list(kept)
    return "".join(info.format())


def error_info(error: BaseException, *, task: Task | None, step: int, state: Any) -> ErrorInfo:
    """What the session shows about an exception."""
    return ErrorInfo(
        node=task.name if task is not None else None,
        task_id=task.id if task is not None else None,
        error_type=type(error).__name__,
        message=str(error),
        traceback=format_traceback(error),
        step=step,
        state=state,
        exception=error,
    )


def mutation(found: Any) -> Mutation:
    """The session's copy of a runtime in-place-mutation record."""
    return Mutation(
        step=found.step, channel=found.channel, nodes=tuple(found.tasks), written=found.written
    )


def names(tasks: Iterable[Task]) -> tuple[str, ...]:
    """The node names of ``tasks``, in order."""
    return tuple(t.name for t in tasks)
