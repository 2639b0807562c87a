"""The compiled graph's state API beyond ``get_state``/``update_state``: its async twins
and ``bulk_update_state``.

sgdebug's savers are synchronous (in memory, or one local SQLite file), so the async
methods go through the same code as the sync ones: reads on the caller's thread, updates on
a worker thread (an update runs the graph's path functions, and an async one needs an event
loop of its own, which the caller's running loop cannot lend).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.types import StateSnapshot, StateUpdate

if TYPE_CHECKING:
    from sgdebug.runtime._compiled import CompiledStateGraph

__all__ = [
    "abulk_update_state",
    "aget_state",
    "aget_state_history",
    "aupdate_state",
    "bulk_update_state",
]


async def aget_state(
    graph: CompiledStateGraph, config: dict[str, Any], *, subgraphs: bool = False
) -> StateSnapshot:
    """Async :meth:`CompiledStateGraph.get_state`."""
    return graph.get_state(config, subgraphs=subgraphs)


async def aget_state_history(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    *,
    filter: dict[str, Any] | None = None,
    before: dict[str, Any] | None = None,
    limit: int | None = None,
) -> AsyncIterator[StateSnapshot]:
    """Async :meth:`CompiledStateGraph.get_state_history`: newest first."""
    for snapshot in graph.get_state_history(config, filter=filter, before=before, limit=limit):
        yield snapshot


def _refuse_task_id(call: str, task_id: str | None) -> None:
    if task_id is not None:
        raise NotImplementedError(f"{call}(task_id=...) is not supported by sgdebug.runtime yet")


async def aupdate_state(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    values: Any,
    as_node: str | None = None,
    task_id: str | None = None,
) -> dict[str, Any]:
    """Async :meth:`CompiledStateGraph.update_state`."""
    _refuse_task_id("aupdate_state", task_id)
    return await asyncio.to_thread(graph.update_state, config, values, as_node)


def bulk_update_state(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    supersteps: Sequence[Sequence[StateUpdate]],
) -> dict[str, Any]:
    """Apply each superstep's update in turn, each on the checkpoint the one before made;
    returns the last checkpoint's config.

    A superstep of several updates (applied together as one checkpoint by LangGraph) is not
    supported yet and raises ``NotImplementedError`` before anything is written.
    """
    updates = _checked(supersteps)
    for update in updates:
        config = graph.update_state(config, update.values, update.as_node)
    return config


async def abulk_update_state(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    supersteps: Sequence[Sequence[StateUpdate]],
) -> dict[str, Any]:
    """Async :func:`bulk_update_state`."""
    return await asyncio.to_thread(bulk_update_state, graph, config, supersteps)


def _checked(supersteps: Sequence[Sequence[StateUpdate]]) -> list[StateUpdate]:
    """The one update of each superstep, after checking them all."""
    if len(supersteps) == 0:
        raise ValueError("No supersteps provided")
    updates: list[StateUpdate] = []
    for superstep in supersteps:
        if len(superstep) == 0:
            raise ValueError("No updates provided")
        if len(superstep) > 1:
            raise NotImplementedError(
                "bulk_update_state with several updates in one superstep is not supported "
                "by sgdebug.runtime yet (give each update its own superstep)"
            )
        update = StateUpdate(*superstep[0])
        _refuse_task_id("bulk_update_state", update.task_id)
        updates.append(update)
    return updates
