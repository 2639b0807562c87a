"""Pure helpers of the LangGraph engine: the graph's model, conversions, history, edits.

Nothing here calls the graph: these read LangGraph's public objects (the builder, snapshots)
and build what the engine hands to LangGraph or to the session.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.engines import _lg_convert as convert
from sgdebug.debugger.results import HistoryEntry, TaskInfo
from sgdebug.debugger.subframes import node_input_keys
from sgdebug.inspect import snapshot_changes
from sgdebug.runtime import Command, Overwrite, Send, StateSnapshot

__all__ = [
    "pending_step",
    "LangGraphModel",
    "checkpoint_of",
    "history_entries",
    "is_push",
    "replanned",
    "to_langgraph",
    "writers_of",
]


def pending_step(snapshot: StateSnapshot | None) -> int:
    """The superstep the tasks pending at ``snapshot`` belong to (-1 without one)."""
    if snapshot is None:
        return -1
    return int((snapshot.metadata or {}).get("step", -1)) + 1


PUSH = "__pregel_push"


class LangGraphModel:
    """The graph model of a LangGraph graph: its channels described as ours."""

    def __init__(self, user: Any, compiled: Any) -> None:
        builder = compiled.builder
        self._compiled = compiled
        self.name: str = compiled.get_name() if hasattr(compiled, "get_name") else "LangGraph"
        self.nodes: tuple[str, ...] = tuple(builder.nodes)
        fields: dict[str, Any] = {k: convert.channel(c, k) for k, c in builder.channels.items()}
        fields.update({k: convert.managed(m) for k, m in builder.managed.items()})
        self.user_fields: dict[str, Any] = fields
        specs = {k: convert.channel(c, k) for k, c in compiled.channels.items()}
        self.channel_specs: dict[str, Any] = {**specs, **fields}
        self.state_keys = frozenset(builder.channels)
        keys = tuple(builder.channels)
        self.stream_keys: str | tuple[str, ...] = "__root__" if keys == ("__root__",) else keys
        self.builder = builder
        self.state_schema = builder.state_schema
        self.interrupt_before_nodes = user.interrupt_before_nodes
        self.interrupt_after_nodes = user.interrupt_after_nodes

    @classmethod
    def for_subgraph(cls, compiled: Any) -> LangGraphModel:
        """The model of a compiled LangGraph subgraph (a frame's channel table and edits)."""
        return cls(compiled, compiled)

    def get_graph(self, xray: bool | int = False) -> Any:
        return self._compiled.get_graph(xray=xray)

    def input_keys(self, node: str) -> frozenset[str] | None:
        """The state keys node ``node`` reads (its input schema), when known."""
        return node_input_keys(self._compiled, node)


def to_langgraph(value: Any) -> Any:
    """Our ``Command``/``Overwrite``/``Send`` as LangGraph's (other values unchanged)."""
    from langgraph import types

    if isinstance(value, Overwrite):
        return types.Overwrite(value.value)
    if isinstance(value, Send):
        return types.Send(value.node, value.arg)
    if isinstance(value, Command):
        goto = value.goto
        if isinstance(goto, Send):
            goto = types.Send(goto.node, goto.arg)
        return types.Command(graph=value.graph, update=value.update, resume=value.resume,
                             goto=goto)  # fmt: skip
    return value


def is_push(path: tuple[Any, ...]) -> bool:
    return bool(path) and path[0] == PUSH


def checkpoint_of(config: Mapping[str, Any] | None) -> str:
    return str((config or {}).get("configurable", {}).get("checkpoint_id", ""))


def history_entries(snaps: Sequence[StateSnapshot], cursor: str | None) -> tuple[HistoryEntry, ...]:
    """The thread's snapshots (oldest first) as history entries; ``cursor`` is current."""
    ids = [checkpoint_of(s.config) for s in snaps]
    index = {c: i for i, c in enumerate(ids)}
    by_id = dict(zip(ids, snaps, strict=True))
    parents = {checkpoint_of(s.parent_config) for s in snaps if s.parent_config}
    entries = []
    for i, snap in enumerate(snaps):
        meta = snap.metadata or {}
        parent = checkpoint_of(snap.parent_config) if snap.parent_config else None
        ran: tuple[str, ...] = ()
        if meta.get("source") == "loop" and parent in by_id:
            done = [t.name for t in by_id[parent].tasks if t.result is not None]
            ran = tuple(dict.fromkeys(done))
        changes = snapshot_changes(by_id[parent], snap) if parent in by_id else ()
        entries.append(
            HistoryEntry(
                index=i,
                checkpoint_id=ids[i],
                parent_index=index.get(parent) if parent else None,
                step=int(meta.get("step", -1)),
                source=str(meta.get("source", "loop")),
                created_at=snap.created_at or "",
                ran=ran,
                current=ids[i] == cursor,
                head=ids[i] not in parents,
                changes=changes,
            )
        )
    return tuple(entries)


def writers_of(
    entries: Sequence[HistoryEntry], cursor: str, known: Mapping[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The nodes whose writes planned the step pending at ``cursor`` (``known``: the nodes
    earlier edits were applied as, by the checkpoint they made)."""
    if cursor in known:
        return known[cursor]
    by_id = {e.checkpoint_id: e for e in entries}
    entry = by_id.get(cursor)
    while entry is not None:
        if entry.source == "input" or entry.step < 0:
            return ("__start__",)
        if entry.ran:
            return entry.ran
        if entry.checkpoint_id in known:
            return known[entry.checkpoint_id]
        parent = entry.parent_index
        entry = entries[parent] if parent is not None and parent < len(entries) else None
    return ("__start__",)


def replanned(
    values: dict[str, Any],
    tasks: Sequence[TaskInfo],
    quiet: str,
    start_input: Any,
    stream_keys: str | tuple[str, ...],
) -> list[list[Any]]:
    """The ``bulk_update_state`` steps of an edit that keeps the pending tasks: the values
    and a ``goto`` back to each pending task (a Send again for a Send's), as if ``quiet``
    (a node without edges) returned them, so no branch is evaluated again; then the pending
    input (``start_input``) again, when the input step had not run."""
    import uuid

    from langgraph import types

    goto = [types.Send(t.name, t.input) if t.send else t.name
            for t in tasks if t.name != "__start__"]  # fmt: skip
    update = values.get("__root__") if stream_keys == "__root__" else values
    # ``quiet`` "returns" a Command (its writers route it as a node's return value), under a
    # fresh task id: LangGraph would file the writes under a pending task of ``quiet``.
    returned: Any = types.Command(update=update, goto=goto)
    edit = types.StateUpdate(returned, quiet, str(uuid.uuid4()))
    steps: list[list[Any]] = [[edit]]
    if any(t.name == "__start__" for t in tasks):
        steps.append([types.StateUpdate(start_input, "__input__")])
    return steps
