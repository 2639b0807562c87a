"""Stream payloads of checkpoints (``stream_mode="checkpoints"``/``"debug"``)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT
from sgdebug.runtime.checkpoint.base import (
    SPECIAL_WRITES,
    BaseCheckpointSaver,
    CheckpointRecord,
    PendingWrite,
    split_thread_key,
)
from sgdebug.runtime.engine._nesting import NS_SEP
from sgdebug.runtime.graph._node import task_result

if TYPE_CHECKING:
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.engine._task import Task

__all__ = ["ERROR", "checkpoint_event", "resumed_event", "subgraph_config"]

ERROR = "__error__"
"""The channel of a failed task's pending write."""


def checkpoint_event(
    run: RunState, record: CheckpointRecord, saver: BaseCheckpointSaver
) -> dict[str, Any]:
    """The ``checkpoints`` stream payload of ``record`` (LangGraph's shape)."""
    tasks = run.next_tasks()
    parent = saver.get_record(record.thread_id, record.parent_id) if record.parent_id else None
    return {
        "config": _stream_config(record),
        "parent_config": _stream_config(parent) if parent is not None else None,
        "values": run.read_values(run.graph.stream_keys),
        "metadata": record.metadata,
        "next": [t.name for t in tasks],
        "tasks": [
            {"id": t.id, "name": t.name, "interrupts": (), "state": subgraph_config(record, t)}
            for t in tasks
        ],
    }


def resumed_event(
    run: RunState, record: CheckpointRecord, saver: BaseCheckpointSaver
) -> dict[str, Any]:
    """The payload a resumed run re-emits for the checkpoint it starts from: its
    pending tasks carry the interrupts they raised, its parent config has no extras."""
    event = checkpoint_event(run, record, saver)
    stored: dict[str, list[PendingWrite]] = {}
    for write in saver.get_writes(record.thread_id, record.id):
        stored.setdefault(write.task_id, []).append(write)
    keys = run.graph.state_keys
    event["tasks"] = [_resumed_task(t, stored.get(t["id"], ()), keys) for t in event["tasks"]]
    parent = event["parent_config"]
    if parent is not None:
        conf = parent["configurable"]
        resumed = {
            "thread_id": conf["thread_id"],
            "checkpoint_ns": conf["checkpoint_ns"],
            "checkpoint_id": conf["checkpoint_id"],
        }
        if "checkpoint_map" in conf:
            resumed["checkpoint_map"] = conf["checkpoint_map"]
        parent["configurable"] = resumed
    return event


def _resumed_task(
    task: dict[str, Any], writes: Sequence[PendingWrite], keys: Collection[str]
) -> dict[str, Any]:
    """A pending task of a resumed checkpoint as LangGraph shows it: a failed one with its
    error (and no interrupts), a finished one with its result, else its interrupts."""
    head = {"id": task["id"], "name": task["name"]}
    error = next((w.value for w in writes if w.channel == ERROR), None)
    if error is not None:
        return {**head, "error": error, "state": task["state"]}
    raised = tuple(
        {"value": i.value, "id": i.id, "response_schema": i.response_schema}
        for w in writes
        if w.channel == INTERRUPT
        for i in w.value
    )
    regular = [w for w in writes if w.channel not in SPECIAL_WRITES]
    if regular:
        head["result"] = task_result([(w.channel, w.value) for w in regular], keys)
    return {**head, "interrupts": raised, "state": task["state"]}


def subgraph_config(record: CheckpointRecord, task: Task) -> dict[str, Any] | None:
    """What a snapshot's (or checkpoint event's) task shows as its ``state``: for a
    subgraph node, the config of the subgraph's checkpoints (thread and namespace)."""
    if not task.node.subgraphs:  # (its own graph, or one its function runs)
        return None
    thread_id, ns = split_thread_key(record.thread_id)
    part = f"{task.name}:{task.id}"
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": f"{ns}{NS_SEP}{part}" if ns else part,
        }
    }


def _stream_config(record: CheckpointRecord) -> dict[str, Any]:
    # LangGraph's checkpoint stream payloads list the keys in this order.
    # A subgraph's also maps each level's namespace to its checkpoint (``checkpoint_map``).
    thread_id, ns = split_thread_key(record.thread_id)
    configurable: dict[str, Any] = {"checkpoint_ns": ns, "thread_id": thread_id}
    if ns:
        parents = record.metadata.get("parents") or {}
        configurable["checkpoint_map"] = {**parents, ns: record.id}
    configurable["checkpoint_id"] = record.id
    return {"configurable": configurable}
