"""The JSON a LangGraph server sends and takes, as sgdebug's types and back.

A server's thread state (``GET /threads/{id}/state``, each item of its history) has the
fields of LangGraph's ``StateSnapshot`` as JSON: it becomes our ``StateSnapshot`` with the
same ``config``/``parent_config`` shape a local graph gives, so the history tree, the views
and the diffs read it the same way. Values stay JSON (dicts, lists, strings, numbers).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from sgdebug.runtime import Command, Interrupt, Overwrite, Send, StateSnapshot
from sgdebug.runtime.types import PregelTask

__all__ = ["command_json", "interrupts", "snapshot", "thread_uuid", "value_json"]


def thread_uuid(thread_id: str) -> str:
    """A thread id as the server keeps it: a UUID in its canonical form when it is one."""
    try:
        return str(uuid.UUID(thread_id))
    except ValueError:
        return thread_id


def _config(thread_id: str, checkpoint: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not checkpoint or not checkpoint.get("checkpoint_id"):
        return None
    configurable = {
        "thread_id": str(checkpoint.get("thread_id") or thread_id),
        "checkpoint_ns": str(checkpoint.get("checkpoint_ns") or ""),
        "checkpoint_id": str(checkpoint["checkpoint_id"]),
    }
    return {"configurable": configurable}


def interrupts(items: Any) -> tuple[Interrupt, ...]:
    """The server's interrupts (``{"value": ..., "id": ...}``) as ours."""
    return tuple(
        Interrupt(item.get("value"), str(item.get("id") or ""))
        for item in items or ()
        if isinstance(item, Mapping)
    )


def _task(item: Mapping[str, Any], thread_id: str) -> PregelTask:
    state = item.get("state")
    if isinstance(state, Mapping) and "values" in state:
        state = snapshot(state, thread_id)
    elif state is None and isinstance(item.get("checkpoint"), Mapping):
        # A task running a subgraph: the server names the subgraph's checkpoint namespace
        # (as a local ``get_state`` gives the subgraph's config as the task's ``state``).
        state = {"configurable": dict(item["checkpoint"])}
    return PregelTask(
        str(item.get("id") or ""),
        str(item.get("name") or ""),
        tuple(item.get("path") or ()),
        item.get("error"),
        interrupts(item.get("interrupts")),
        state,
        item.get("result"),
    )


def snapshot(data: Mapping[str, Any], thread_id: str) -> StateSnapshot:
    """A server thread state as our ``StateSnapshot``."""
    config = _config(thread_id, data.get("checkpoint")) or {
        "configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": ""}
    }
    metadata = data.get("metadata")
    return StateSnapshot(
        values=data.get("values") if data.get("values") is not None else {},
        next=tuple(data.get("next") or ()),
        config=config,
        metadata=dict(metadata) if isinstance(metadata, Mapping) else None,
        created_at=data.get("created_at"),
        parent_config=_config(thread_id, data.get("parent_checkpoint")),
        tasks=tuple(_task(t, thread_id) for t in data.get("tasks") or () if isinstance(t, Mapping)),
        interrupts=interrupts(data.get("interrupts")),
    )


def value_json(value: Any) -> Any:
    """A value to send: our ``Overwrite`` as LangGraph's JSON form of it; ``Send`` refused."""
    if isinstance(value, Overwrite):
        return {"__overwrite__": value.value}
    if isinstance(value, Send | Command):
        raise NotImplementedError(
            f"sending a {type(value).__name__} to a server as a value is not supported"
        )
    return value


def command_json(command: Command[Any]) -> dict[str, Any]:
    """A ``Command`` input as the server's ``command`` field (resume, update, goto)."""
    found: dict[str, Any] = {}
    if command.graph is not None:
        raise NotImplementedError("Command(graph=...) is not supported on a server")
    if command.resume is not None:
        found["resume"] = command.resume
    if command.update is not None:
        found["update"] = command.update
    goto = command.goto
    if goto:
        items = goto if isinstance(goto, list | tuple) else [goto]
        found["goto"] = [
            {"node": g.node, "input": g.arg} if isinstance(g, Send) else str(g) for g in items
        ]
    return found
