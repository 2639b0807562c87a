"""Running a superstep's tasks: sync nodes in a thread pool, async nodes on the event loop.

Threads are for nodes that wait (a model call, I/O). A node whose every run so far finished
in under :data:`FAST_NS` gains nothing from a thread and loses the hand-off cost (several
microseconds, more than the node itself), so the step's trailing proven-fast tasks (all of
them, when every node is fast) run in the calling thread, the others in the pool; when none
trails, the calling thread runs the last task itself. Results do not depend on this: writes
are applied in task-path order whatever order tasks finish in. A node that once runs slow
goes back to the pool for good.

Tasks START in the step's order, as in LangGraph (a node with side effects sees it): each
one waits until the one before it has started (:class:`_Gates`), whichever thread runs it.
The gates are plain locks: no threading object per task but the pool's Future.

The run's ``config["max_concurrency"]``, when set, bounds how many of a step's tasks run at
once, as in LangGraph (sync and async alike).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task

RunTask = Callable[["Task"], None]
"""Runs one task in the calling thread (``Run.run_task``)."""
ARunTask = Callable[["Task"], Awaitable[None]]
"""Runs one async task on the running event loop (``Run.arun_task``)."""

FAST_NS = 50_000
"""A run shorter than this (50 µs) counts as fast."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def pool() -> ThreadPoolExecutor:
    """The shared worker pool for sync nodes, created on first use."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(thread_name_prefix="sgdebug-task")
    return _pool


def _timed(run_task: RunTask, task: Task) -> None:
    start = time.perf_counter_ns()
    run_task(task)
    node = task.node
    if time.perf_counter_ns() - start < FAST_NS:
        if node.speed >= 0:
            node.speed += 1
    else:
        node.speed = -1


def run_tasks(
    run_task: RunTask, tasks: Sequence[Task], limit: int | None = None, timeout: float | None = None
) -> list[Task]:
    """Run ``tasks`` in parallel, starting them in order: slow (or unknown) nodes in the pool,
    the trailing proven-fast ones here; at most ``limit`` at once when it is given. With a
    ``timeout`` (the graph's ``step_timeout``), see :func:`_run_within`; returns the tasks
    still running past it."""
    if not tasks:
        return []
    slots = None
    if limit is not None and limit < len(tasks):
        slots = threading.BoundedSemaphore(limit)
    if timeout:
        return _run_within(run_task if slots is None else _bounded(run_task, slots), tasks, timeout)
    if len(tasks) == 1:
        run_task(tasks[0])
        return []
    here = len(tasks)
    while here and tasks[here - 1].node.speed > 0:
        here -= 1
    if here == 0:  # every node is fast: one after the other, no thread
        for task in tasks:
            _timed(run_task, task)
        return []
    here = min(here, len(tasks) - 1)
    gates = _Gates(len(tasks), slots)
    futures = [pool().submit(gates.run, i, run_task, tasks[i]) for i in range(here)]
    for i in range(here, len(tasks)):
        gates.run(i, run_task, tasks[i])
    wait(futures)
    return []


class _Gates:
    """Makes a step's tasks start in order: task ``i`` starts once task ``i - 1`` has (with
    ``slots``, once it also holds one of them: ``max_concurrency``).

    Task ``i``'s gate is a plain lock held until it starts: the one task waiting for it
    (task ``i + 1``) takes it. A lock is a single C object; an Event (a Condition, a lock and
    three caught AttributeErrors to make) cost a 50-wide step a fifth of its instructions."""

    __slots__ = ("_slots", "_started")

    def __init__(self, count: int, slots: threading.BoundedSemaphore | None) -> None:
        self._started = [_held() for _ in range(count - 1)]
        self._slots = slots

    def run(self, index: int, run_task: RunTask, task: Task) -> None:
        if index:
            self._started[index - 1].acquire()
        slots = self._slots
        if slots is None:
            self._open(index)
            _timed(run_task, task)
            return
        with slots:
            self._open(index)
            _timed(run_task, task)

    def _open(self, index: int) -> None:
        if index < len(self._started):
            self._started[index].release()


def _held() -> threading.Lock:
    lock = threading.Lock()
    lock.acquire()
    return lock


def _run_within(run_task: RunTask, tasks: Sequence[Task], timeout: float) -> list[Task]:
    """Every task in the pool (the calling thread keeps the time); returns the tasks not
    finished ``timeout`` seconds on. As in LangGraph, a sync node past the limit cannot be
    stopped: the step waits for those already running (what they write is kept) and
    does not start the ones still queued behind ``max_concurrency``."""
    futures = {pool().submit(run_task, task): task for task in tasks}
    _, late = wait(futures, timeout=timeout)
    for future in late:
        future.cancel()
    wait(late)
    return [futures[future] for future in late]


def _bounded(run_task: RunTask, slots: threading.BoundedSemaphore) -> RunTask:
    def bounded(task: Task) -> None:
        with slots:
            run_task(task)

    return bounded


async def arun_tasks(
    run_task: RunTask,
    arun_task: ARunTask,
    tasks: Sequence[Task],
    limit: int | None = None,
    timeout: float | None = None,
) -> list[Task]:
    """Run ``tasks`` concurrently on the running loop (sync ones in the pool), at most
    ``limit`` at once when it is given.

    As in LangGraph, once a task fails (for good: a failure its error handler took over
    does not count, see :func:`_failed`), the async tasks still running are cancelled: the
    step fails at once. Cancelling the run cancels them all. Past ``timeout`` seconds (the
    graph's ``step_timeout``) the tasks still running are cancelled and returned.
    """
    if not tasks:
        return []
    import asyncio

    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(limit) if limit is not None and limit < len(tasks) else None

    async def one(task: Task) -> None:
        assert slots is not None
        async with slots:
            if task.node.injection.is_async:
                await arun_task(task)
            else:
                await loop.run_in_executor(pool(), run_task, task)

    owners: dict[asyncio.Future[None], Task] = {}
    for task in tasks:
        if slots is not None:
            owners[asyncio.ensure_future(one(task))] = task
        elif task.node.injection.is_async:
            owners[asyncio.ensure_future(arun_task(task))] = task
        else:
            owners[loop.run_in_executor(pool(), run_task, task)] = task
    pending: set[asyncio.Future[None]] = set(owners)
    deadline = loop.time() + timeout if timeout else None
    late: list[Task] = []
    try:
        while pending:
            left = None if deadline is None else max(0.0, deadline - loop.time())
            done, pending = await asyncio.wait(
                pending, timeout=left, return_when=asyncio.FIRST_COMPLETED
            )
            if not done:
                late = [owners[future] for future in pending]
                break
            for future in done:
                future.result()  # a BaseException a task let through (KeyboardInterrupt ...)
            if any(_failed(owners[future]) for future in done):
                break
    finally:
        if pending:
            for future in pending:
                future.cancel()
            await asyncio.wait(pending)
    return late


def _failed(task: Task) -> bool:
    """Whether ``task`` failed in a way that stops its siblings: not an answer that did not
    match its ``response_schema`` (raised once the others finish, so that a task answered
    in the same resume is not cut off after its side effects), not a command for the parent
    graph, not a drain."""
    error = task.error
    if error is None or task.done:
        return False
    from sgdebug.runtime.engine._response_schema import is_invalid_resume
    from sgdebug.runtime.errors import GraphDrained, ParentCommand

    return not (isinstance(error, ParentCommand | GraphDrained) or is_invalid_resume(error))
