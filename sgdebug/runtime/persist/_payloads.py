"""Stream payloads of checkpoints (``stream_mode="checkpoints"``/``"debug"``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT
from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, CheckpointRecord

if TYPE_CHECKING:
    from sgdebug.runtime.engine._state import RunState

__all__ = ["checkpoint_event", "resumed_event"]


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
        "tasks": [{"id": t.id, "name": t.name, "interrupts": (), "state": None} for t in tasks],
    }


def resumed_event(
    run: RunState, record: CheckpointRecord, saver: BaseCheckpointSaver
) -> dict[str, Any]:
    """The payload a resumed run re-emits for the checkpoint it starts from: its
    pending tasks carry the interrupts they raised, its parent config has no extras."""
    event = checkpoint_event(run, record, saver)
    raised = {
        w.task_id: tuple(
            {"value": i.value, "id": i.id, "response_schema": i.response_schema} for i in w.value
        )
        for w in saver.get_writes(record.thread_id, record.id)
        if w.channel == INTERRUPT
    }
    for task in event["tasks"]:
        task["interrupts"] = raised.get(task["id"], ())
    parent = event["parent_config"]
    if parent is not None:
        conf = parent["configurable"]
        parent["configurable"] = {
            "thread_id": conf["thread_id"],
            "checkpoint_ns": "",
            "checkpoint_id": conf["checkpoint_id"],
        }
    return event


def _stream_config(record: CheckpointRecord) -> dict[str, Any]:
    # LangGraph's checkpoint stream payloads list the keys in this order.
    configurable = {"checkpoint_ns": "", "thread_id": record.thread_id, "checkpoint_id": record.id}
    return {"configurable": configurable}
