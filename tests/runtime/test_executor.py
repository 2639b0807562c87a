"""The executor runs a step's tasks at once, starting them in the step's order, and its
bookkeeping costs no threading object per task."""

from __future__ import annotations

import operator
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.engine import _executor

WIDTH = 24
"""Parallel nodes in the graphs below."""
NAMES = [f"n{i:02d}" for i in range(WIDTH)]
"""Their names, in the step's (sorted) order."""


class S(TypedDict):
    started: Annotated[list[str], operator.add]


def _fan(node: Callable[[str], Callable[[S], dict[str, Any]]]) -> Any:
    """START -> every name of :data:`NAMES` (each made by ``node(name)``) -> END."""
    graph = StateGraph(S)
    for name in reversed(NAMES):  # (added out of order: the step sorts them)
        graph.add_node(name, node(name)).add_edge(START, name)
    return graph.compile()


class _Starts:
    """Notes the order the nodes start in, and which thread ran each one."""

    def __init__(self, body: Callable[[str], None]) -> None:
        self.order: list[str] = []
        self.threads: dict[str, threading.Thread] = {}
        self._body = body

    def node(self, name: str) -> Callable[[S], dict[str, Any]]:
        def started(state: S) -> dict[str, Any]:
            self.order.append(name)
            self.threads[name] = threading.current_thread()
            self._body(name)
            return {"started": [name]}

        return started


def _slow(name: str) -> None:
    time.sleep(0.001)  # (past FAST_NS: the node stays in the pool)


def test_pooled_tasks_start_in_step_order_run_after_run() -> None:
    starts = _Starts(_slow)
    graph = _fan(starts.node)
    for _ in range(5):
        starts.order = []
        assert graph.invoke({"started": []}) == {"started": NAMES}
        assert starts.order == NAMES
    pooled = {t for name, t in starts.threads.items() if name != NAMES[-1]}
    assert threading.current_thread() not in pooled
    assert starts.threads[NAMES[-1]] is threading.current_thread()  # the last one runs here


def test_a_steps_tasks_all_run_at_once() -> None:
    """Every task is running before any finishes (a barrier of all of them): handing a
    task to the pool only once the one before has started does not make them wait for
    each other to finish (the pool has enough threads for them)."""
    barrier = threading.Barrier(WIDTH, timeout=10)

    def body(name: str) -> None:
        _slow(name)
        barrier.wait()

    starts = _Starts(body)
    wide = ThreadPoolExecutor(max_workers=WIDTH, thread_name_prefix="test-wide")
    old, _executor._pool = _executor._pool, wide
    try:
        assert _fan(starts.node).invoke({"started": []}) == {"started": NAMES}
    finally:
        _executor._pool = old
        wide.shutdown()
    assert starts.order == NAMES and not barrier.broken


def test_start_order_holds_under_max_concurrency() -> None:
    running: list[int] = [0]
    most = [0]
    lock = threading.Lock()

    def body(name: str) -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        _slow(name)
        with lock:
            running[0] -= 1

    starts = _Starts(body)
    graph = _fan(starts.node)
    for _ in range(3):
        starts.order = []
        assert graph.invoke({"started": []}, {"max_concurrency": 3}) == {"started": NAMES}
        assert starts.order == NAMES
    assert most[0] <= 3


def test_proven_fast_trailing_tasks_run_in_the_calling_thread() -> None:
    """Nodes that ran fast stay out of the pool once proven; one that turns slow goes back
    to it, and the tasks before it with it (they must start first)."""
    starts = _Starts(lambda name: _slow(name) if name == "n05" else None)
    graph = _fan(starts.node)
    for name in NAMES:  # (as a few runs would leave them, whatever the machine's load)
        graph.nodes[name].speed = -1 if name == "n05" else 3
    here = threading.current_thread()
    starts.order = []
    assert graph.invoke({"started": []}) == {"started": NAMES}
    assert starts.order == NAMES
    assert all(starts.threads[name] is here for name in NAMES[6:])
    assert all(starts.threads[name] is not here for name in NAMES[:6])


@pytest.fixture
def made_conditions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every ``threading.Condition`` made while the test runs (Events, Futures and
    semaphores each make one: the per-task cost of thread bookkeeping)."""
    made: list[object] = []
    original = threading.Condition.__init__

    def counted(self: threading.Condition, lock: Any = None) -> None:
        made.append(self)
        original(self, lock)

    monkeypatch.setattr(threading.Condition, "__init__", counted)
    yield made


def test_starting_in_order_makes_no_threading_object_per_task(
    made_conditions: list[object],
) -> None:
    """A pooled step makes one Future per pooled task and nothing else per task (per-task
    start gates made two Conditions a task: a fifth of a wide step's cost)."""
    starts = _Starts(_slow)
    graph = _fan(starts.node)
    small = ThreadPoolExecutor(max_workers=4, thread_name_prefix="test-small")
    old, _executor._pool = _executor._pool, small
    try:
        graph.invoke({"started": []})  # (the pool's 4 threads are made in the first run)
        made_conditions.clear()
        assert graph.invoke({"started": []}) == {"started": NAMES}
    finally:
        _executor._pool = old
        small.shutdown()
    assert starts.order[-WIDTH:] == NAMES
    # the Futures, and wait()'s own when a task is still running
    assert WIDTH - 1 <= len(made_conditions) <= WIDTH


class _Refusing(ThreadPoolExecutor):
    """A pool that takes ``accepts`` tasks, then refuses as a pool shutting down does."""

    def __init__(self, accepts: int) -> None:
        super().__init__(max_workers=4, thread_name_prefix="test-refusing")
        self.accepts = accepts

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self.accepts == 0:
            raise RuntimeError("cannot schedule new futures after shutdown")
        self.accepts -= 1
        return super().submit(fn, *args, **kwargs)


@pytest.mark.parametrize("accepts", [0, 3])
def test_a_pool_refusing_a_task_raises_in_the_caller_without_hanging(accepts: int) -> None:
    """A task the pool refuses (interpreter shutdown) raises in the run's thread, wherever
    the refusal happened (the calling thread or a pooled task handing on the next)."""
    graph = _fan(_Starts(_slow).node)
    refusing = _Refusing(accepts)
    old, _executor._pool = _executor._pool, refusing
    try:
        with pytest.raises(RuntimeError, match="cannot schedule new futures"):
            graph.invoke({"started": []})
    finally:
        _executor._pool = old
        refusing.shutdown()
