"""An async step's sync tasks run in the shared pool, and never wait for good behind a pool
whose threads are all in tasks of outer steps (LangGraph runs them in the loop's own
executor)."""

from __future__ import annotations

import asyncio
import operator
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.engine import _executor


class S(TypedDict):
    key: str
    log: Annotated[list[str], operator.add]


OUTER = [f"sub{i}" for i in range(6)]
"""The outer step's nodes, each running an async graph with ``asyncio.run``."""


@contextmanager
def _pool_of(monkeypatch: pytest.MonkeyPatch, workers: int) -> Iterator[None]:
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="test-pool")
    monkeypatch.setattr(_executor, "_pool", pool)
    monkeypatch.setattr(_executor, "WORKERS", workers)
    try:
        yield
    finally:
        pool.shutdown(wait=False)


def _guarded(call: Callable[[], Any]) -> Any:
    """``call()`` in a thread of its own, given a minute (a deadlock guard)."""
    got: list[Any] = []
    runner = threading.Thread(target=lambda: got.append(call()), daemon=True)
    runner.start()
    runner.join(60)
    assert not runner.is_alive(), "the step hung"
    return got[0]


def _outer(inner: Any) -> Any:
    """Parallel sync nodes (slow: pooled), each running ``inner`` with ``asyncio.run``."""

    def sub(key: str) -> Callable[[S], dict[str, Any]]:
        def run(state: S) -> dict[str, Any]:
            time.sleep(0.001)
            got = asyncio.run(inner.ainvoke({"key": key, "log": []}))
            return {"log": got["log"]}

        return run

    graph = StateGraph(S)
    for key in OUTER:
        graph.add_node(key, sub(key)).add_edge(START, key)
    return graph.compile()


def test_an_async_steps_sync_tasks_nested_in_a_full_pool_do_not_wait_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def node(name: str) -> Callable[[S], dict[str, Any]]:
        def run(state: S) -> dict[str, Any]:
            return {"log": [name]}

        return run

    inner = StateGraph(S)
    for name in ("x", "y", "z"):
        inner.add_node(name, node(name)).add_edge(START, name)
    with _pool_of(monkeypatch, 2):
        got = _guarded(lambda: _outer(inner.compile()).invoke({"key": "", "log": []}))
    assert sorted(got["log"]) == sorted(["x", "y", "z"] * len(OUTER))


def test_an_async_steps_sync_tasks_meeting_at_a_barrier_in_a_full_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stand-ins run beside each other (as many as the pool has threads): the two
    meet."""
    barriers = {key: threading.Barrier(2, timeout=10) for key in OUTER}
    broken: list[str] = []

    def node(name: str) -> Callable[[S], dict[str, Any]]:
        def meet(state: S) -> dict[str, Any]:
            try:
                barriers[state["key"]].wait()
            except threading.BrokenBarrierError:
                broken.append(state["key"])
            return {"log": [name]}

        return meet

    inner = StateGraph(S)
    for name in ("x", "y"):
        inner.add_node(name, node(name)).add_edge(START, name)
    with _pool_of(monkeypatch, 2):
        got = _guarded(lambda: _outer(inner.compile()).invoke({"key": "", "log": []}))
    assert sorted(got["log"]) == sorted(["x", "y"] * len(OUTER))
    assert broken == []


def test_sync_tasks_queued_behind_the_pool_when_a_sibling_fails_never_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pool's two threads hold two sync tasks; the two others wait in its queue (no
    thread stands in: as many of the step's jobs run as the pool has threads). An async
    sibling fails: they are cancelled and never start, though the pool takes their jobs
    once the first two end."""
    ran: list[str] = []
    release = threading.Event()

    def sync(name: str) -> Callable[[S], dict[str, Any]]:
        def run(state: S) -> dict[str, Any]:
            ran.append(name)
            if name.startswith("b"):
                release.wait(10)
            return {"log": [name]}

        return run

    async def fails(state: S) -> dict[str, Any]:
        await asyncio.sleep(0.1)
        raise ValueError("boom")

    graph = StateGraph(S).add_node("a_fails", fails).add_edge(START, "a_fails")
    for name in ("b1", "b2", "c1", "c2"):
        graph.add_node(name, sync(name)).add_edge(START, name)

    async def run() -> None:
        with pytest.raises(ValueError, match="boom"):
            await graph.compile().ainvoke({"key": "", "log": []})

    with _pool_of(monkeypatch, 2):
        asyncio.run(run())
        release.set()
        _executor.pool().submit(lambda: None).result(10)  # (the queued jobs are over)
        _executor.pool().submit(lambda: None).result(10)
    assert sorted(ran) == ["b1", "b2"]
