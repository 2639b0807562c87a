"""Driving a LangGraph graph whose nodes or edges are async functions.

LangGraph runs an ``async def`` node only through its async API: ``stream`` and
``update_state`` refuse it ("No synchronous function provided to ..."), as langchain-core
refuses a coroutine-only tool called synchronously. So the LangGraph engine drives such a
graph through ``astream``, ``aupdate_state`` and ``abulk_update_state``, each awaited on an
event loop of the session's own: one loop, in a daemon thread, for the life of the process,
so that what a node keeps between steps (an async client, a connection pool) stays bound to
a loop that is still running. The session's threads wait for each result in short slices,
so Ctrl+C pressed twice (a ``KeyboardInterrupt`` raised in the waiting thread) cancels the
running node, as it interrupts a sync one.

:class:`Driver` is what the engine calls: the sync API for a graph that needs none of this
(the same calls as before, at no cost), the async one when :func:`needs_async` finds an
async-only node, edge or tool anywhere in the graph or its subgraphs, or once a step fails
with LangGraph's refusal (a graph whose async part only shows itself when it runs).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

__all__ = ["Driver", "async_only_refusal", "needs_async"]

T = TypeVar("T")

_SLICE = 0.05
"""Seconds a waiting thread waits at a time (how soon a KeyboardInterrupt reaches it)."""
_CANCEL_S = 10.0
"""Seconds a cancelled node is given to end (one that swallows the cancellation is left)."""
_REFUSALS = (
    (TypeError, "No synchronous function provided"),
    (NotImplementedError, "does not support sync invocation"),
)
"""LangGraph's and langchain-core's refusals of an async-only callable called synchronously."""


def needs_async(graph: Any) -> bool:
    """Whether a node, a conditional edge or a tool of ``graph`` (or of a subgraph it runs)
    is async only, so that only LangGraph's async API can run it."""
    graphs = [graph]
    with contextlib.suppress(Exception):  # (one that cannot list its subgraphs: its nodes)
        graphs += [sub for _, sub in graph.get_subgraphs(recurse=True)]
    return any(_has_async_part(g) for g in graphs)


def async_only_refusal(error: BaseException | None) -> bool:
    """Whether ``error`` is LangGraph's (or langchain-core's) refusal to call an async-only
    node, edge or tool through the sync API."""
    return any(isinstance(error, kind) and text in str(error) for kind, text in _REFUSALS)


class Driver:
    """How the engine runs its LangGraph graph: the sync API, or (``use_async``) the async
    one awaited on the session's loop (see the module's docstring)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.use_async = needs_async(graph)

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        """``graph.stream(...)``, or ``astream`` with the same arguments."""
        if not self.use_async:
            yield from self.graph.stream(*args, **kwargs)
            return
        yield from _iterate(self.graph.astream(*args, **kwargs))

    def update_state(self, *args: Any, **kwargs: Any) -> Any:
        """``graph.update_state(...)``, or ``aupdate_state``."""
        if not self.use_async:
            return self.graph.update_state(*args, **kwargs)
        return _await(self.graph.aupdate_state(*args, **kwargs))

    def bulk_update_state(self, *args: Any, **kwargs: Any) -> Any:
        """``graph.bulk_update_state(...)``, or ``abulk_update_state``."""
        if not self.use_async:
            return self.graph.bulk_update_state(*args, **kwargs)
        return _await(self.graph.abulk_update_state(*args, **kwargs))

    def learn(self, error: BaseException | None) -> bool:
        """After a step failed with ``error``: whether it was the sync API's refusal of an
        async-only part, the driver now using the async API (the step is to run again)."""
        if self.use_async or not async_only_refusal(error):
            return False
        self.use_async = True
        return True


def _has_async_part(graph: Any) -> bool:
    nodes = getattr(graph, "nodes", None) or {}
    if any(_async_only(getattr(node, "bound", None)) for node in nodes.values()):
        return True
    branches = getattr(getattr(graph, "builder", None), "branches", None) or {}
    return any(
        _async_only(getattr(branch, "path", None))
        for by_name in branches.values()
        for branch in by_name.values()
    )


def _async_only(runnable: Any, depth: int = 0) -> bool:
    """Whether ``runnable`` (a node's, an edge's) has an async function and no sync one,
    or holds such a step or tool (a ``RunnableSeq``'s steps, a ``ToolNode``'s tools)."""
    if runnable is None or depth > 8:
        return False
    if getattr(runnable, "afunc", None) is not None and getattr(runnable, "func", 0) is None:
        return True
    tools = getattr(runnable, "tools_by_name", None)
    if isinstance(tools, dict) and any(
        getattr(t, "coroutine", None) is not None and getattr(t, "func", 0) is None
        for t in tools.values()
    ):
        return True
    steps = getattr(runnable, "steps", None)
    return isinstance(steps, list | tuple) and any(_async_only(s, depth + 1) for s in steps)


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _session_loop() -> asyncio.AbstractEventLoop:
    """The session's event loop, running in a daemon thread from its first use on."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(
                target=loop.run_forever, name="sgdebug-langgraph-loop", daemon=True
            )
            thread.start()
            _loop = loop
        return _loop


def _await(coroutine: Coroutine[Any, Any, T]) -> T:
    """``coroutine``'s result, awaited on the session's loop; an exception raised in the
    waiting thread (Ctrl+C twice: ``KeyboardInterrupt``) cancels it, waits for it to end
    (a stream it was reading can then be closed), and goes on up."""
    loop = _session_loop()
    over = threading.Event()
    tasks: list[asyncio.Task[T]] = []

    def start() -> None:
        task = loop.create_task(coroutine)
        task.add_done_callback(lambda _: over.set())
        tasks.append(task)

    def cancel() -> None:
        for task in tasks:
            task.cancel()

    loop.call_soon_threadsafe(start)
    try:
        while not over.wait(_SLICE):
            pass
    except BaseException:
        loop.call_soon_threadsafe(cancel)  # (after start: the loop runs them in order)
        over.wait(_CANCEL_S)
        raise
    return tasks[0].result()


def _iterate(stream: AsyncIterator[Any]) -> Iterator[Any]:
    """The items of an async iterator, each awaited on the session's loop; closed on the
    loop when the caller stops (or fails) early."""

    async def next_item() -> Any:
        return await anext(stream)

    try:
        while True:
            try:
                item = _await(next_item())
            except StopAsyncIteration:
                return
            yield item
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            _await(aclose())
