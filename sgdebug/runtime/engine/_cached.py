"""Node caching in a run (``compile(cache=...)`` with nodes that have a ``CachePolicy``).

Before a step's tasks run, :func:`replay` looks each cached node's task up by its input: a
hit takes the stored writes instead of calling the node (saved to the checkpoint like a
run task's, shown in ``updates`` with ``"__metadata__": {"cached": True}``, without a task
result event). After they ran, :func:`remember` stores the writes of those that finished;
a task that failed or was interrupted is not cached. A run whose graph has no cache never
calls into this module (its loop checks ``graph.cache is None`` once per step).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.cache._policy import digest

if TYPE_CHECKING:
    from sgdebug.runtime.cache._base import FullKey
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.engine._task import Task

__all__ = ["Keyed", "aremember", "areplay", "remember", "replay"]

Keyed = list[tuple["Task", "FullKey", "int | None"]]
"""The tasks of cached nodes, each with its cache key and time to live."""


def replay(run: RunState, pending: list[Task]) -> tuple[list[Task], Keyed]:
    """Give the tasks of cached nodes their cached writes; the tasks left to run, and the
    keys of those of them whose writes are to be cached."""
    keyed = _keyed(pending)
    if not keyed:
        return pending, keyed
    return _take_hits(run, pending, keyed, run.graph.cache.get([k for _, k, _ in keyed]))


async def areplay(run: RunState, pending: list[Task]) -> tuple[list[Task], Keyed]:
    """:func:`replay` through the cache's async ``aget``."""
    keyed = _keyed(pending)
    if not keyed:
        return pending, keyed
    hits = await run.graph.cache.aget([k for _, k, _ in keyed])
    return _take_hits(run, pending, keyed, hits)


def remember(run: RunState, keyed: Keyed) -> None:
    """Cache the writes of each task of ``keyed`` that finished (one ``set`` per task)."""
    cache = run.graph.cache
    for task, key, ttl in keyed:
        if _cacheable(task):
            with _naming(task):
                cache.set({key: (list(task.writes), ttl)})


async def aremember(run: RunState, keyed: Keyed) -> None:
    """:func:`remember` through the cache's async ``aset``."""
    cache = run.graph.cache
    for task, key, ttl in keyed:
        if _cacheable(task):
            with _naming(task):
                await cache.aset({key: (list(task.writes), ttl)})


@contextmanager
def _naming(task: Task) -> Iterator[None]:
    """A cache that cannot store the writes fails the run; its error names the node."""
    try:
        yield
    except Exception as exc:
        exc.add_note(f"While caching the writes of node '{task.name}' (a list of (channel, value))")
        raise


def _keyed(tasks: Sequence[Task]) -> Keyed:
    """The tasks whose node has a cache policy (an error handler's task never does), keyed
    by ``key_func(input)``; a ``key_func`` that raises fails the step with its error."""
    keyed: Keyed = []
    for task in tasks:
        node = task.node
        policy = node.cache_policy
        if policy is None or task.node_error is not None:
            continue
        keyed.append((task, (node.cache_ns, digest(policy.key_func(task.input))), policy.ttl))
    return keyed


def _take_hits(
    run: RunState, pending: list[Task], keyed: Keyed, hits: Mapping[FullKey, Any]
) -> tuple[list[Task], Keyed]:
    if not hits:
        return pending, keyed
    emit, persist = run.options.emit, run.persist
    defer = emit is None and not run.observer.watched
    for task, key, _ in keyed:
        writes = hits.get(key)
        if writes is None:
            continue
        task.writes = [(channel, value) for channel, value in writes]
        task.done = True
        if persist is not None:
            persist.task_done(task, defer=defer)
        if emit is not None:
            emit.cached(run, task)
    return [t for t in pending if not t.done], [k for k in keyed if not k[0].done]


def _cacheable(task: Task) -> bool:
    """Finished with writes: a failure, an interrupt or a handed-over error is not cached."""
    return task.done and task.error is None and task.handler is None and bool(task.writes)
