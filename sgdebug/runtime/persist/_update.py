"""``update_state`` as nodes: one or several updates applied together as one superstep.

Each update is handled as the result of a task of its node (``as_node``): its writes are
kept with the checkpoint it was applied to, under the id of the task of that node the
checkpoint plans next (the first one of that name not yet taken, as LangGraph does), so the
snapshot shows that task with this result; then the writes of every update are applied in
order, as one commit, and one ``update`` checkpoint is stored.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import COPY, END, INPUT, INTERRUPT, START
from sgdebug.runtime.checkpoint.base import SPECIAL_WRITES, CheckpointRecord, PendingWrite
from sgdebug.runtime.engine._branches import branch_writes
from sgdebug.runtime.engine._run import Run
from sgdebug.runtime.engine._task import Task, make_task
from sgdebug.runtime.errors import InvalidUpdateError
from sgdebug.runtime.graph._node import Write, return_writes
from sgdebug.runtime.persist._persist import Persistence, pending_by_task
from sgdebug.runtime.types import StateUpdate

if TYPE_CHECKING:
    from sgdebug.runtime.graph._plan import GraphPlan

__all__ = ["apply_node_updates", "check_several", "updates_of_copy"]

_ALONE = {
    END: "Cannot apply multiple updates when clearing state",
    INPUT: "Cannot apply multiple updates when updating as input",
    COPY: "Cannot copy checkpoint with multiple updates",
}
"""Updates that cannot share their superstep (by the node of its first update)."""


def check_several(updates: Sequence[StateUpdate]) -> None:
    """Refuse a superstep of several updates that LangGraph refuses."""
    first = updates[0]
    if first.as_node in _ALONE and (first.values is None or first.as_node != END):
        raise InvalidUpdateError(_ALONE[first.as_node])
    for update in updates:
        if update.as_node is None:
            raise InvalidUpdateError("as_node is required when applying multiple updates")


def updates_of_copy(items: Sequence[Any]) -> list[StateUpdate]:
    """The updates ``update_state(config, [updates...], as_node="__copy__")`` applies to the
    copy it makes, as one superstep: grouped by node (in order of first appearance), each
    node's in order, so that each takes the next planned task of its node."""
    grouped: dict[Any, list[StateUpdate]] = {}
    for item in items:
        if isinstance(item, str) or not isinstance(item, Sequence):
            raise InvalidUpdateError(f"Invalid update item: {item} when copying checkpoint")
        update = StateUpdate(*item[:2])
        grouped.setdefault(update.as_node, []).append(update)
    return [update for updates in grouped.values() for update in updates]


def apply_node_updates(
    run: Run,
    persist: Persistence,
    record: CheckpointRecord | None,
    updates: Sequence[StateUpdate],
    *,
    keep: bool = True,
) -> CheckpointRecord:
    """Apply ``updates`` (each with its node already known) to ``run`` as one superstep and
    store the ``update`` checkpoint; returns its record. With ``keep``, the updates are also
    stored as their tasks' writes on ``record`` (where no earlier write of theirs is)."""
    graph: GraphPlan = run.graph
    planned = _planned_ids(run) if record is not None else {}
    grouped: defaultdict[str, list[Any]] = defaultdict(list)
    stored: list[PendingWrite] = []
    for index, update in enumerate(updates):
        node = None if update.as_node in (None, END) else graph.nodes.get(update.as_node)
        if node is None:
            raise InvalidUpdateError(f"Node {update.as_node} does not exist")
        path = ("__pregel_pull", node.name)
        task = make_task("update", node.name, path, update.values, node.triggers, node)
        writes = _node_writes(run, task, update.values)
        for key, value in writes:
            if key in run.channels:
                grouped[key].append(value)
        if record is not None:
            task_id = update.task_id or _take(planned, node.name) or _fallback(persist, index, path)
            # (an update that writes nothing leaves the task's earlier writes, as LangGraph;
            # LangGraph's savers get the writes of the superstep's i-th update at the path
            # ("__interrupt__", i), whichever task they are filed under)
            at = (INTERRUPT, index)
            stored.extend(PendingWrite(task_id, node.name, at, k, v) for k, v in writes)
    if record is not None and stored and keep:
        stored = _not_recorded(persist, record, stored)
    if record is not None and stored and keep:
        persist.saver.put_writes(record.thread_id, record.id, stored)
    run._apply(grouped, "step")
    run.versions_seen[INTERRUPT] = dict(run.versions)
    return persist.save_record(run, "update", step=run.step)


def _not_recorded(
    persist: Persistence, record: CheckpointRecord, stored: list[PendingWrite]
) -> list[PendingWrite]:
    """The writes of ``stored`` that LangGraph's saver keeps for a task that already has
    writes on ``record`` (a task ran there): its ``i``-th write only where it had none."""
    recorded = pending_by_task(persist.saver.get_writes(record.thread_id, record.id))
    kept: list[PendingWrite] = []
    index: dict[str, int] = {}
    for write in stored:
        i = index[write.task_id] = index.get(write.task_id, -1) + 1
        earlier = [w for w in recorded.get(write.task_id, ()) if w.channel not in SPECIAL_WRITES]
        if i >= len(earlier):
            kept.append(write)
    return kept


def _node_writes(run: Run, task: Task, values: Any) -> list[Write]:
    """What ``values`` writes as the return value of ``task``'s node (and its branches)."""
    graph: GraphPlan = run.graph
    if task.name == START:  # (no values: no input, only the edges out of START)
        writes = graph.input_writes(values) if values is not None else []
    else:
        routes: list[Write] = []
        writes = return_writes(values, graph.target, routes) + routes
    raw = values if isinstance(values, dict) else None
    return branch_writes(run, task, writes, raw, list(writes))


def _planned_ids(run: Run) -> dict[str, deque[str]]:
    """The ids of the tasks the checkpoint plans next, by node name, in plan order (none
    when its next step cannot be planned: the updates then take ids of their own)."""
    ids: dict[str, deque[str]] = defaultdict(deque)
    try:
        tasks = run.next_tasks()
    except Exception:
        return ids
    for task in tasks:
        ids[task.name].append(task.id)
    return ids


def _take(planned: dict[str, deque[str]], name: str) -> str | None:
    queue = planned.get(name)
    return queue.popleft() if queue else None


def _fallback(persist: Persistence, index: int, path: tuple[str, str]) -> str:
    """A task id of its own for an update whose node has no planned task left (the first
    update's is its node's pulled task's)."""
    return persist.task_id(path if index == 0 else (INTERRUPT, index))
