"""The compiled graph's state API beyond ``get_state``/``update_state``: its async twins
and ``bulk_update_state``.

sgdebug's savers are synchronous (in memory, or one local SQLite file), so the async
methods go through the same code as the sync ones: reads on the caller's thread, updates on
a worker thread (an update runs the graph's path functions, and an async one needs an event
loop of its own, which the caller's running loop cannot lend). A saver with its own
``aput``/``aput_writes`` stores an async update through them, as LangGraph's: each store
is awaited on the caller's loop while the worker waits (``persist._async_face``), so a
saver whose sync methods refuse to run on the loop's thread is never called there.
"""

from __future__ import annotations

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


async def aupdate_state(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    values: Any,
    as_node: str | None = None,
    task_id: str | None = None,
) -> dict[str, Any]:
    """Async :meth:`CompiledStateGraph.update_state`."""
    import asyncio

    from sgdebug.runtime.persist._async_face import stores_on_loop

    with stores_on_loop(graph.channel_specs, config):
        return await asyncio.to_thread(graph.update_state, config, values, as_node, task_id)


def bulk_update_state(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    supersteps: Sequence[Sequence[StateUpdate]],
) -> dict[str, Any]:
    """Apply each superstep's updates together (as one checkpoint), each superstep on the
    checkpoint the one before made; returns the last checkpoint's config."""
    from sgdebug.runtime.persist._threads import update_superstep

    graph._saver()
    steps = _checked(supersteps)
    for updates in steps:
        config = update_superstep(graph, config, updates)
    return config


async def abulk_update_state(
    graph: CompiledStateGraph,
    config: dict[str, Any],
    supersteps: Sequence[Sequence[StateUpdate]],
) -> dict[str, Any]:
    """Async :func:`bulk_update_state` (each superstep's stores with its own config, the
    one the superstep before returned, as LangGraph's)."""
    import asyncio

    from sgdebug.runtime.persist._async_face import stores_on_loop
    from sgdebug.runtime.persist._threads import update_superstep

    graph._saver()
    for updates in _checked(supersteps):
        with stores_on_loop(graph.channel_specs, config):
            config = await asyncio.to_thread(update_superstep, graph, config, updates)
    return config


def _checked(supersteps: Sequence[Sequence[StateUpdate]]) -> list[list[StateUpdate]]:
    """Each superstep's updates as ``StateUpdate``, after checking there are some."""
    if len(supersteps) == 0:
        raise ValueError("No supersteps provided")
    if any(len(superstep) == 0 for superstep in supersteps):
        raise ValueError("No updates provided")
    return [[StateUpdate(*update) for update in superstep] for superstep in supersteps]
