"""Reading stored values back: a blob and its append chain, as LangGraph hands them back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, Blob

__all__ = ["CorruptCheckpointError", "as_langgraph_reads", "load_value"]


class CorruptCheckpointError(ValueError):
    """The file is not an sgdebug checkpoint database, or a row cannot be read."""


def load_value(saver: BaseCheckpointSaver, thread_id: str, blob_id: str) -> tuple[Any, int]:
    """Decode a blob, following its append chain back to a whole value."""
    from sgdebug.runtime.checkpoint.serde import DeserializationError

    try:
        return _load_value(saver, thread_id, blob_id)
    except DeserializationError as exc:
        raise CorruptCheckpointError(
            f"cannot decode value blob {blob_id} of thread {thread_id}: {exc}"
        ) from exc


def _load_value(saver: BaseCheckpointSaver, thread_id: str, blob_id: str) -> tuple[Any, int]:
    chain: list[Blob] = []
    blob = saver.get_blob(thread_id, blob_id)
    depth = blob.depth
    while blob.base is not None:
        chain.append(blob)
        blob = saver.get_blob(thread_id, blob.base)
    value = saver.decode(blob.data)
    if chain:
        if isinstance(value, list):
            value = list(value)
            for delta in reversed(chain):
                value.extend(saver.decode(delta.data))
        else:
            value = value + "".join(saver.decode(d.data) for d in reversed(chain))
    return value, depth


def as_langgraph_reads(value: Any) -> Any:
    """The value as LangGraph hands it back from a checkpointer: plain tuples become lists.

    sgdebug stores tuples faithfully; only what a resumed run (and ``get_state``) sees is
    converted, so programs behave as they do on LangGraph.
    """
    if type(value) is tuple:
        return [as_langgraph_reads(v) for v in value]
    if type(value) is list:
        if any(type(v) in (tuple, list, dict) for v in value):
            return [as_langgraph_reads(v) for v in value]
        return value
    if type(value) is dict:
        if any(type(v) in (tuple, list, dict) for v in value.values()):
            return {k: as_langgraph_reads(v) for k, v in value.items()}
        return value
    return value
