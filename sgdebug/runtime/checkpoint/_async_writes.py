"""LangGraph's write API on sgdebug's savers: ``aput`` and ``aput_writes``, and ``put`` /
``put_writes`` called LangGraph's way.

A checkpointer written LangGraph's way overrides ``aput(config, checkpoint, metadata,
new_versions)`` or ``aput_writes(config, writes, task_id, task_path)`` and calls the base
class's to store. An async run whose saver overrides either stores through them (see
``persist._async_face``): it hands over the checkpoint it made as an
:class:`OfferedCheckpoint` (a LangGraph checkpoint dict that also carries sgdebug's record
and blobs) and a task's writes as :class:`OfferedWrites`; the base implementations
store those, so nothing is converted twice and append-deltas are kept.

A checkpoint dict sgdebug did not make (a saver building its own) cannot be filed as a
record yet: ``aput`` refuses it by name rather than storing something else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.checkpoint._keys import split_thread_key, thread_key
from sgdebug.runtime.checkpoint._offered import OfferedCheckpoint, OfferedWrites
from sgdebug.runtime.checkpoint._slots import task_path_text

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import Blob, CheckpointRecord, PendingWrite

__all__ = [
    "OfferedCheckpoint",
    "OfferedWrites",
    "config_for",
    "key_of",
    "langgraph_put",
    "langgraph_writes",
    "offered_record",
    "task_path_text",
    "writes_task",
]

_PULL = "__pregel_pull"


def config_for(key: str, checkpoint_id: str | None) -> dict[str, Any]:
    """The config naming the checkpoint ``checkpoint_id`` of the saver key ``key`` (its
    thread and namespace only, without ``checkpoint_id`` when it is ``None``)."""
    thread_id, ns = split_thread_key(key)
    configurable: dict[str, Any] = {"checkpoint_ns": ns, "thread_id": thread_id}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def key_of(config: Mapping[str, Any]) -> tuple[str, str | None]:
    """The saver key (thread and namespace) and the checkpoint id ``config`` names."""
    configurable = config.get("configurable") or {}
    thread_id = configurable.get("thread_id")
    if thread_id is None:
        raise ValueError("a checkpointer call needs config['configurable']['thread_id']")
    ns = str(configurable.get("checkpoint_ns") or "")
    return thread_key(str(thread_id), ns), configurable.get("checkpoint_id")


def offered_record(
    saver: object, checkpoint: Mapping[str, Any]
) -> tuple[CheckpointRecord, Mapping[str, Blob]]:
    """The record and blobs ``aput`` stores for ``checkpoint`` (made by a run: an
    :class:`OfferedCheckpoint`)."""
    if not isinstance(checkpoint, OfferedCheckpoint):
        raise NotImplementedError(
            f"{type(saver).__name__}.aput: storing a checkpoint dict that sgdebug's runtime "
            "did not make (pass on the one your aput received)"
        )
    return checkpoint.record, checkpoint.blobs


def writes_task(
    config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_path: str
) -> tuple[str, str, str, tuple[Any, ...]]:
    """For ``aput_writes``: the saver key and checkpoint id ``config`` names, and the name
    and path of the task that wrote ``writes``."""
    key, checkpoint_id = key_of(config)
    if checkpoint_id is None:
        raise ValueError("aput_writes needs config['configurable']['checkpoint_id']")
    if isinstance(writes, OfferedWrites):
        return key, checkpoint_id, writes.task_name, writes.path
    return key, checkpoint_id, *_pulled(task_path)


def _pulled(task_path: str) -> tuple[str, tuple[Any, ...]]:
    """The node name and path of a pulled node's task from LangGraph's path text."""
    parts = task_path.removeprefix("~").split(", ")  # (a pulled node's path has no number)
    if len(parts) == 2 and parts[0] == _PULL:
        return parts[1], (_PULL, parts[1])
    raise NotImplementedError(
        f"aput_writes: writes of the task at {task_path!r} not handed over by sgdebug's runtime"
    )


def langgraph_put(
    saver: object, checkpoint: Mapping[str, Any]
) -> tuple[CheckpointRecord, Mapping[str, Blob], dict[str, Any]]:
    """For ``put`` called LangGraph's way with ``checkpoint``: the record and blobs to
    store, and the config naming it (what that ``put`` returns)."""
    record, blobs = offered_record(saver, checkpoint)
    return record, blobs, config_for(record.thread_id, record.id)


def langgraph_writes(
    config: Any, writes: Any, task: Any, task_path: str
) -> tuple[str, str, list[PendingWrite]]:
    """For ``put_writes(config, writes, task_id, task_path)`` called LangGraph's way: the
    saver key, checkpoint id and writes to record (the arguments come as the parameters
    of sgdebug's ``put_writes`` they stand in: untyped)."""
    from sgdebug.runtime.checkpoint.base import PendingWrite

    key, checkpoint_id, name, path = writes_task(config, writes, task_path)
    return key, checkpoint_id, [PendingWrite(task, name, path, k, v) for k, v in writes]
