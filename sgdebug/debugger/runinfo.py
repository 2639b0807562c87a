"""Turning the runtime's live objects into the session's frozen data (tasks, errors, mutations)."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sgdebug.debugger.results import ErrorInfo, Mutation, TaskInfo
from sgdebug.runtime import PregelTask, StepFailure, Task

__all__ = [
    "error_info",
    "failure_info",
    "format_traceback",
    "mutation",
    "pregel_task_info",
    "task_info",
    "user_traceback",
]

_RUNTIME_DIR = str(Path(__file__).resolve().parent.parent / "runtime")
_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)


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


def user_traceback(error: BaseException) -> str:
    """The traceback of ``error`` through the user's code only (without sgdebug's frames
    and LangGraph's), or ``""`` when none of its frames is the user's: an error the user's
    code did not raise is said in one line by whoever reports it."""
    skipped = [_PACKAGE_DIR]
    langgraph = sys.modules.get("langgraph")
    for folder in getattr(langgraph, "__path__", ()):
        skipped.append(str(Path(folder).resolve()))
    info = traceback.TracebackException.from_exception(error)
    kept = [f for f in info.stack if not any(f.filename.startswith(d) for d in skipped)]
    if not kept:
        return ""
    info.stack = traceback.StackSummary.from_list(kept)
    return "".join(info.format())


def failure_info(failure: StepFailure, *, state: Any) -> ErrorInfo:
    """What the session shows about a step that failed outside its tasks (at commit, or
    building a task's input)."""
    error = failure.error
    plan = failure.phase == "plan"
    return ErrorInfo(
        node=failure.writers[0] if plan and failure.writers else None,
        task_id=None,
        error_type=type(error).__name__,
        message=str(error),
        traceback=user_traceback(error),
        step=failure.step,
        state=state,
        exception=error,
        phase=failure.phase,
        channel=failure.channel,
        channel_type=failure.channel_type,
        reducer=failure.reducer,
        writers=() if plan else failure.writers,
    )


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
