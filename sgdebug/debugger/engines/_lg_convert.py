"""LangGraph's objects turned into the data the session and ``inspect`` read.

LangGraph's snapshots, tasks and interrupts become ``sgdebug.runtime``'s types of the same
shape; its channels become ``sgdebug.runtime.channels`` objects of the same kind (only for
describing them: nothing runs through them). Only public attributes are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sgdebug.runtime import ChannelChange, CommitRecord, Interrupt, StateSnapshot, TaskWrite
from sgdebug.runtime import channels as ours
from sgdebug.runtime.channels import MISSING
from sgdebug.runtime.managed import IsLastStepManager, RemainingStepsManager
from sgdebug.runtime.types import PregelTask

__all__ = [
    "channel",
    "commit_record",
    "default_recursion_limit",
    "interrupts",
    "managed",
    "quiet_node",
    "recursion_error",
    "snapshot",
    "version_number",
]

_SPECIAL = frozenset(("__error__", "__interrupt__", "__resume__", "__no_writes__"))
"""Pending writes about a task attempt, not channel writes."""


def channel(lg: Any, key: str) -> Any:
    """Our channel of the same kind as LangGraph's ``lg`` (the object itself if unknown)."""
    kind = type(lg).__name__
    typ = getattr(lg, "typ", Any)
    if kind == "BinaryOperatorAggregate":
        return ours.BinaryOperatorAggregate(typ, lg.operator, key)
    if kind in ("LastValue", "AnyValue"):
        return ours.LastValue(typ, key)
    if kind == "LastValueAfterFinish":
        return ours.LastValueAfterFinish(typ, key)
    if kind == "EphemeralValue":
        return ours.EphemeralValue(typ, getattr(lg, "guard", True), key)
    if kind == "UntrackedValue":
        return ours.UntrackedValue(typ, getattr(lg, "guard", True), key)
    if kind == "Topic":
        return ours.Topic(typ, getattr(lg, "accumulate", False), key)
    if kind in ("NamedBarrierValue", "NamedBarrierValueAfterFinish"):
        return ours.NamedBarrierValue(getattr(lg, "names", ()), key)
    return lg


def managed(spec: Any) -> Any:
    """Our managed-value class for LangGraph's (the spec itself if unknown)."""
    name = getattr(spec, "__name__", "")
    if name == "RemainingStepsManager":
        return RemainingStepsManager
    if name == "IsLastStepManager":
        return IsLastStepManager
    return spec


def interrupts(items: Iterable[Any]) -> tuple[Interrupt, ...]:
    """LangGraph interrupts as ours (same value and id)."""
    found = []
    for item in items:
        if isinstance(item, Mapping):  # as debug events carry them
            found.append(Interrupt(item.get("value"), str(item.get("id", ""))))
        else:
            found.append(Interrupt(item.value, getattr(item, "id", "")))
    return tuple(found)


def snapshot(lg: Any) -> StateSnapshot:
    """A LangGraph ``StateSnapshot`` as ours; a subgraph task's ``state`` snapshot too."""
    return StateSnapshot(
        values=lg.values,
        next=tuple(lg.next),
        config=lg.config,
        metadata=dict(lg.metadata) if lg.metadata is not None else None,
        created_at=lg.created_at,
        parent_config=lg.parent_config,
        tasks=tuple(_task(t) for t in lg.tasks),
        interrupts=interrupts(lg.interrupts),
    )


def _task(task: Any) -> PregelTask:
    state = task.state
    if state is not None and hasattr(state, "values") and hasattr(state, "tasks"):
        state = snapshot(state)
    return PregelTask(
        task.id, task.name, tuple(task.path), task.error, interrupts(task.interrupts), state,
        task.result,
    )  # fmt: skip


def version_number(version: Any) -> int:
    """A channel version as an int (LangGraph's are ``"000...0003.0.123"`` strings)."""
    if isinstance(version, int):
        return version
    try:
        return int(str(version).split(".", 1)[0])
    except ValueError:
        return 0


def commit_record(
    step: int,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    writes: Sequence[tuple[str, str, Any]],
    names: Mapping[str, str],
    versions: Mapping[str, Any],
) -> CommitRecord:
    """What one superstep did to each channel: old value, writes by task, new value.

    ``writes`` are the step's stored ``(task_id, channel, value)`` writes in order, ``names``
    the tasks' node names by id, ``versions`` the channel versions after the commit.
    """
    by_channel: dict[str, list[TaskWrite]] = {}
    order: list[str] = []
    for task_id, key, value in writes:
        if key in _SPECIAL:
            continue
        by_channel.setdefault(key, []).append(TaskWrite(task_id, names.get(task_id, "?"), value))
        if task_id not in order:
            order.append(task_id)
    keys = list(dict.fromkeys([*new, *old, *by_channel]))
    changes = []
    for key in keys:
        before, after = old.get(key, MISSING), new.get(key, MISSING)
        written = tuple(by_channel.get(key, ()))
        if not written and _same(before, after):
            continue
        changes.append(
            ChannelChange(key, before, written, after, version_number(versions.get(key, 0)))
        )
    tasks = tuple(dict.fromkeys(names.get(t, "?") for t in order))
    return CommitRecord(step, tuple(changes), tasks)


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return a is b


def default_recursion_limit() -> int:
    """LangGraph's default ``recursion_limit`` (10007 in 1.2, or its environment variable)."""
    import os

    return int(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))


def recursion_error(limit: int) -> Exception:
    """LangGraph's ``GraphRecursionError`` for ``limit``, with LangGraph's message."""
    from langgraph.errors import ErrorCode, GraphRecursionError, create_error_message

    message = (
        f"Recursion limit of {limit} reached without hitting a stop condition. You can "
        "increase the limit by setting the `recursion_limit` config key."
    )
    return GraphRecursionError(
        create_error_message(message=message, error_code=ErrorCode.GRAPH_RECURSION_LIMIT)
    )


def quiet_node(builder: Any) -> str | None:
    """A node without edges or branches (only to END), in ``add_node`` order, if any."""
    sources = {a for a, b in builder.edges if b != "__end__"}
    sources.update(name for starts, _ in builder.waiting_edges for name in starts)
    sources.update(name for name, branches in builder.branches.items() if branches)
    return next((n for n in builder.nodes if n not in sources), None)
