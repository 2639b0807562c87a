"""A LangGraph superstep that failed outside its nodes, and snapshots LangGraph cannot build.

LangGraph raises from ``stream`` when a channel rejects a step's writes at commit (a reducer
raising, two writes to a plain key) and when the next step's inputs cannot be built (a
pydantic state rejecting a value); ``get_state`` of that checkpoint then raises the same
error. These helpers read the checkpointer (public API) instead: the stored values, and
the writes stored for the step, replayed through channels of the same kinds to find the
channel that rejects them and whose writes they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sgdebug.debugger.results import ErrorInfo
from sgdebug.debugger.runinfo import failure_info
from sgdebug.runtime import StateSnapshot, commit_failure, plan_failure
from sgdebug.runtime.channels import MISSING, BaseChannel

__all__ = ["commit_info", "plan_info", "plans", "stored_snapshot"]

_PULL = "__pregel_pull"


def plans(error: BaseException) -> bool:
    """Whether ``error`` was raised building a task's input (LangGraph's note says so)."""
    return bool(plan_failure(0, error).writers)


def stored_snapshot(saver: Any, config: Mapping[str, Any], model: Any) -> StateSnapshot | None:
    """The snapshot of a stored checkpoint whose next step LangGraph cannot plan: its
    values only (no next tasks; reducer keys never written at their start value), or
    ``None`` when it is not stored. ``model``: the graph's ``LangGraphModel``."""
    stored = saver.get_tuple(config)
    if stored is None:
        return None
    channels = _channels(stored, model.channel_specs)
    keys = model.stream_keys
    values = {k: c.peek() for k in ((keys,) if isinstance(keys, str) else keys)
              if (c := channels.get(k)) is not None and c.peek() is not MISSING}  # fmt: skip
    shown = values.get(keys) if isinstance(keys, str) else values
    return StateSnapshot(
        values=shown,
        next=(),
        config=stored.config,
        metadata=dict(stored.metadata) if stored.metadata is not None else None,
        created_at=stored.checkpoint.get("ts"),
        parent_config=stored.parent_config,
        tasks=(),
        interrupts=(),
    )


def plan_info(error: BaseException, step: int, state: Any) -> ErrorInfo:
    """A step whose task's input could not be built."""
    return failure_info(plan_failure(step, error), state=state)


def commit_info(
    error: BaseException, step: int, snap: StateSnapshot, stored: Any, specs: Mapping[str, Any]
) -> ErrorInfo | None:
    """A step whose stored writes a channel rejects, or ``None`` when none does (the error
    is then not a commit failure). ``snap``: the checkpoint the step ran from (its tasks
    name the writers); ``stored``: its checkpointer tuple; ``specs``: the graph's channels
    as ``sgdebug.runtime`` channels of the same kinds."""
    if stored is None:
        return None
    order = {t.id: (_order(tuple(t.path), t.name), t.name) for t in snap.tasks}
    writes = sorted(
        (order.get(task_id, ((2, ""), "?")), i, key, value)
        for i, (task_id, key, value) in enumerate(stored.pending_writes or ())
    )
    channels = _channels(stored, specs)
    found = commit_failure(channels, ((o[1], k, v) for o, _, k, v in writes), step, error)
    if found.channel is None:
        return None
    return failure_info(found, state=snap.values)


def _channels(stored: Any, specs: Mapping[str, Any]) -> dict[str, BaseChannel]:
    """The graph's channels holding the values of checkpoint tuple ``stored``."""
    values = stored.checkpoint.get("channel_values", {})
    return {
        k: c.from_checkpoint(values[k]) if k in values else c.copy()
        for k, c in specs.items()
        if isinstance(c, BaseChannel)
    }


def _order(path: tuple[Any, ...], name: str) -> tuple[int, Any]:
    """The order LangGraph applies a step's tasks in: pulled nodes by name, then Sends."""
    if path and path[0] == _PULL:
        return (0, name)
    return (1, path[1] if len(path) > 1 and isinstance(path[1], int) else 0)
