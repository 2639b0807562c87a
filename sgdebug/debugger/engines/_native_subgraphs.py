"""Subgraphs on the native engine: the tasks that ran inside them, told to the observer.

A run of a graph with subgraph nodes gets a ``tasks``-mode emitter that asks subgraphs to
forward their events (as ``stream(subgraphs=True)`` does): each event of a subgraph's task
comes tagged with its namespace. After each of the parent's tasks (and commits) the engine
reads what arrived and reports each task that finished inside a subgraph, named by its path
(``research/gather``), exactly as the LangGraph engine reports them (``_lg_subgraphs``). A
graph without subgraph nodes gets no emitter and pays nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.engine import Observer
from sgdebug.debugger.engines import _lg_subgraphs as shared
from sgdebug.debugger.engines._lg_subgraphs import StepEvents
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import TaskInfo
from sgdebug.runtime.engine._stream import Emitter

__all__ = [
    "edit_frame",
    "has_subgraph_nodes",
    "report_inner_tasks",
    "subgraph_emitter",
    "with_subgraph_states",
]

_MODE = "tasks"


def has_subgraph_nodes(graph: Any) -> bool:
    """Whether a node of ``graph`` is a compiled graph (a subgraph added as a node)."""
    specs = getattr(getattr(graph, "builder", None), "nodes", {}) or {}
    return any(hasattr(getattr(s, "action", None), "builder") for s in specs.values())


def subgraph_emitter(graph: Any) -> Emitter | None:
    """The emitter a run of ``graph`` collects its subgraphs' task events in (``None`` when
    ``graph`` has no subgraph nodes)."""
    if not has_subgraph_nodes(graph):
        return None
    return Emitter(_MODE, graph.stream_keys, subgraphs=True)


def report_inner_tasks(emit: Emitter | None, observer: Observer | None) -> None:
    """Tell ``observer`` each subgraph task that finished since the last call (the events of
    the parent's own tasks, which the pause hook reports, are dropped)."""
    if emit is None:
        return
    events, emit.events = emit.events, []
    if observer is None:
        return
    reader = StepEvents(observer, {})
    for event in events:
        if len(event) != 3:
            continue  # the parent's own
        _mode, payload, namespace = event
        kind = "task_result" if "result" in payload or "error" in payload else "task"
        reader.see(namespace, {"type": kind, "payload": payload})


def with_subgraph_states(
    graph: Any,
    thread_id: str | None,
    checkpoint_id: str | None,
    tasks: tuple[TaskInfo, ...],
    *,
    stopped: bool = False,
) -> tuple[TaskInfo, ...]:
    """``tasks`` with the snapshot of each subgraph one of them stopped in (an interrupt
    inside it, or with ``stopped`` a breakpoint), read with ``get_state(subgraphs=True)``;
    unchanged when none did."""
    if thread_id is None or not (stopped or any(t.interrupts for t in tasks)):
        return tasks
    if not has_subgraph_nodes(graph):
        return tasks
    try:
        full = graph.get_state(config_for(thread_id, checkpoint_id), subgraphs=True)
    except Exception:  # (the step's inputs cannot be built: shown without them)
        return tasks
    return shared.with_subgraphs(tasks, shared.subgraph_states(full))


def edit_frame(graph: Any, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]]) -> None:
    """``update_state`` on a subgraph's config (a new checkpoint in its namespace)."""
    graph.update_state(dict(config), dict(writes))
