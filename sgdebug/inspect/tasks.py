"""Pending task rows: what will run in the next superstep, why, with what input.

:func:`task_rows` reads a live run's :class:`~sgdebug.runtime.Task` objects;
:func:`snapshot_task_rows` reads a stored snapshot's ``PregelTask`` tuples (which carry no
input or triggers). Breakpoints belong to the debugger: pass the node names to break
before / after (``"*"`` marks every node).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sgdebug.inspect.preview import DEFAULT_WIDTH, preview
from sgdebug.runtime import CommitRecord, StateSnapshot, Task
from sgdebug.runtime._constants import END, PUSH, TASKS
from sgdebug.runtime.channels import MISSING
from sgdebug.runtime.types import PregelTask, Send

__all__ = [
    "ALL_NODES",
    "TaskRow",
    "TaskStatus",
    "error_text",
    "snapshot_task_rows",
    "task_rows",
]

ALL_NODES: Final = "*"
"""In a breakpoint set: every node."""
_ROUTE_PREFIXES: Final = ("branch:to:", "join:")

TaskStatus = Literal["pending", "done", "error", "interrupted"]


@dataclass(frozen=True, slots=True)
class TaskRow:
    """One task of the planned superstep."""

    id: str
    """The task id."""
    name: str
    """The node it runs."""
    path: tuple[Any, ...]
    """``('__pregel_pull', name)`` or ``('__pregel_push', index, ...)``."""
    triggers: tuple[str, ...]
    """The channels that triggered it (``('__pregel_push',)`` for a Send; empty when unknown)."""
    sources: tuple[str, ...]
    """The nodes whose writes in the last commit triggered it, when known."""
    send: bool
    """Whether a ``Send`` created it."""
    arg_preview: str | None
    """For a Send task: its argument on one line."""
    input: Any
    """What the node receives (``MISSING`` when unknown, as for snapshots)."""
    input_preview: str
    """:attr:`input` on one line."""
    status: TaskStatus
    """``pending`` until it has run in this step."""
    error: str | None
    """``Type: message`` of its error."""
    interrupts: tuple[str, ...]
    """Previews of the values of its ``interrupt()`` calls."""
    writes: tuple[tuple[str, str], ...]
    """Once run: ``(state key, value preview)`` for each state write."""
    routes: tuple[str, ...]
    """Once run: the nodes its edges, branches and Sends schedule."""
    break_before: bool
    """A breakpoint stops before this node."""
    break_after: bool
    """A breakpoint stops after this node."""


def task_rows(
    tasks: Sequence[Task],
    *,
    before: frozenset[str] = frozenset(),
    after: frozenset[str] = frozenset(),
    last_commit: CommitRecord | None = None,
    width: int = DEFAULT_WIDTH,
) -> tuple[TaskRow, ...]:
    """Rows for a live run's planned tasks (``run.tasks``), in plan order.

    ``last_commit`` (``run.last_commit``) tells which nodes triggered each task.
    """
    writers = _writers(last_commit)
    return tuple(_task_row(t, before, after, writers, width) for t in tasks)


def _task_row(
    task: Task,
    before: frozenset[str],
    after: frozenset[str],
    writers: dict[str, tuple[Any, ...]],
    width: int,
) -> TaskRow:
    status: TaskStatus = "pending"
    if task.error is not None:
        status = "error"
    elif task.interrupts:
        status = "interrupted"
    elif task.done:
        status = "done"
    ran = task.done and task.error is None
    return TaskRow(
        id=task.id,
        name=task.name,
        path=tuple(task.path),
        triggers=tuple(task.triggers),
        sources=_sources(task, writers),
        send=task.send,
        arg_preview=preview(task.input, width) if task.send else None,
        input=task.input,
        input_preview=preview(task.input, width),
        status=status,
        error=error_text(task.error),
        interrupts=tuple(preview(i.value, width) for i in task.interrupts),
        writes=_state_writes(task.writes, width) if ran else (),
        routes=_routes(task.writes) if ran else (),
        break_before=_marked(task.name, before),
        break_after=_marked(task.name, after),
    )


def snapshot_task_rows(
    snapshot: StateSnapshot,
    *,
    before: frozenset[str] = frozenset(),
    after: frozenset[str] = frozenset(),
    width: int = DEFAULT_WIDTH,
) -> tuple[TaskRow, ...]:
    """Rows for the tasks that follow a stored snapshot (results when they ran)."""
    return tuple(_pregel_row(t, before, after, width) for t in snapshot.tasks)


def _pregel_row(
    task: PregelTask, before: frozenset[str], after: frozenset[str], width: int
) -> TaskRow:
    status: TaskStatus = "pending"
    if task.error is not None:
        status = "error"
    elif task.interrupts:
        status = "interrupted"
    elif task.result is not None:
        status = "done"
    result = task.result if isinstance(task.result, dict) else {}
    error = error_text(task.error)
    return TaskRow(
        id=task.id,
        name=task.name,
        path=tuple(task.path),
        triggers=(PUSH,) if task.path and task.path[0] == PUSH else (),
        sources=(),
        send=bool(task.path) and task.path[0] == PUSH,
        arg_preview=None,
        input=MISSING,
        input_preview=preview(MISSING, width),
        status=status,
        error=error,
        interrupts=tuple(preview(i.value, width) for i in task.interrupts),
        writes=tuple((str(k), preview(v, width)) for k, v in result.items()),
        routes=(),
        break_before=_marked(task.name, before),
        break_after=_marked(task.name, after),
    )


def _marked(name: str, nodes: frozenset[str]) -> bool:
    return name in nodes or ALL_NODES in nodes


def error_text(error: BaseException | str | None) -> str | None:
    """``Type: message``, for an exception or for the ``repr`` of one that LangGraph's
    snapshots (and so its engine's tasks) hold: ``"ValueError('no')"`` is
    ``ValueError: no``, as the native engine's exception shows; other text as it is."""
    if error is None:
        return None
    if not isinstance(error, str):
        return f"{type(error).__name__}: {error}"
    found = _REPR.fullmatch(error)
    if found is None:
        return error
    name, quoted = found.groups()
    try:
        message = ast.literal_eval(quoted)  # (a string literal only: nothing runs)
    except (ValueError, SyntaxError):
        return error
    if not isinstance(message, str):
        return error
    # (``str(KeyError(k))`` is ``repr(k)``: the native engine shows it quoted)
    return f"{name}: {quoted if name.rpartition('.')[2] == 'KeyError' else message}"


_REPR = re.compile(r"([A-Za-z_][\w.]*)\(('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)", re.S)
"""An exception's ``repr`` with one string argument: ``ValueError('no')``."""


def _writers(record: CommitRecord | None) -> dict[str, tuple[Any, ...]]:
    """Channel -> the task names of its writes in ``record`` (for Sends: one per packet)."""
    if record is None:
        return {}
    return {c.channel: tuple(w.task_name for w in c.writes) for c in record.changes}


def _sources(task: Task, writers: dict[str, tuple[Any, ...]]) -> tuple[str, ...]:
    if task.send:
        names = writers.get(TASKS, ())
        index = task.path[1] if len(task.path) > 1 else None
        if isinstance(index, int) and 0 <= index < len(names):
            return (str(names[index]),)
        return ()
    found = [str(n) for t in task.triggers for n in writers.get(t, ())]
    if not found:  # LangGraph names a join's task trigger branch:to:NODE, written as join:…:NODE
        ending = f":{task.name}"
        found = [
            str(n) for c, names in writers.items() if _is_route(c) and c.endswith(ending)
            for n in names
        ]  # fmt: skip
    return tuple(dict.fromkeys(found))


def _is_route(channel: str) -> bool:
    return channel == TASKS or channel.startswith(_ROUTE_PREFIXES) or channel.startswith("__")


def _state_writes(writes: Sequence[tuple[str, Any]], width: int) -> tuple[tuple[str, str], ...]:
    return tuple((k, preview(v, width)) for k, v in writes if not _is_route(k))


def _routes(writes: Sequence[tuple[str, Any]]) -> tuple[str, ...]:
    out: list[str] = []
    for key, value in writes:
        if key == TASKS and isinstance(value, Send):
            out.append(value.node)
        elif key.startswith("branch:to:") and key != f"branch:to:{END}":
            out.append(key.removeprefix("branch:to:"))
        elif key.startswith("join:"):
            out.append(key.rsplit(":", 1)[-1])
    return tuple(dict.fromkeys(out))
