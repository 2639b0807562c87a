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
_SAMPLES_DIR = str(Path(__file__).resolve().parent.parent / "sample_graphs")


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
        duration=task.seconds,
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
    """The traceback of a node's ``error`` through the user's code (see
    :func:`user_traceback`); when none of its frames is the user's, all of them but the
    runtime's (an error LangGraph raised about the node is shown where it was raised)."""
    kept = user_traceback(error)
    if kept:
        return kept
    info = traceback.TracebackException.from_exception(error)
    stack = [frame for frame in info.stack if not frame.filename.startswith(_RUNTIME_DIR)]
    if stack:
        info.stack = traceback.StackSummary.from_list(stack)
    return "".join(info.format())


def user_traceback(error: BaseException) -> str:
    """The traceback of ``error`` through the user's code only, or ``""`` when none of its
    frames is the user's: an error the user's code did not raise is said in one line by
    whoever reports it.

    It starts at the first frame of the user's code (the sample graphs count as theirs;
    the standard library's frames that ran it, a thread pool's, do not) and leaves out
    sgdebug's and LangGraph's frames after it.
    """
    skipped = [_PACKAGE_DIR]
    langgraph = sys.modules.get("langgraph")
    for folder in getattr(langgraph, "__path__", ()):
        skipped.append(str(Path(folder).resolve()))

    def ours(filename: str) -> bool:  # sgdebug's or LangGraph's
        return not filename.startswith(_SAMPLES_DIR) and filename.startswith(tuple(skipped))

    info = traceback.TracebackException.from_exception(error)
    stack = list(info.stack)
    first = next(
        (i for i, f in enumerate(stack) if not ours(f.filename) and not _stdlib(f.filename)),
        None,
    )
    if first is None:
        return ""
    info.stack = traceback.StackSummary.from_list(
        [frame for frame in stack[first:] if not ours(frame.filename)]
    )
    return "".join(info.format())


def _stdlib(filename: str) -> bool:
    """Whether ``filename`` is the standard library's (not an installed package's)."""
    import sysconfig  # (only when a traceback is shown: not loaded at start)

    paths = sysconfig.get_paths()
    installed = (paths["purelib"], paths["platlib"])
    return filename.startswith(paths["stdlib"]) and not filename.startswith(installed)


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
