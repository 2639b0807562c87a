"""Running a superstep's tasks: sync nodes in a thread pool, async nodes on the event loop.

Threads are for nodes that wait (a model call, I/O). A node whose every run so far finished
in under :data:`FAST_NS` gains nothing from a thread and loses the hand-off cost (several
microseconds, more than the node itself), so a step of proven-fast tasks runs in the
calling thread; otherwise the calling thread and a pool thread for each other task, at most
:data:`WORKERS`, take the tasks in turn: while one thread waits in a task, the others go on
with the next ones, so tasks that wait for each other all run at once. Results do not
depend on this: writes are applied in task-path order whatever order tasks finish in. A
node that runs slow counts as slow until it has run fast :data:`FAST_AGAIN` times in a row:
a node that waits seldom runs fast again, one that waits often stays in a thread (a single
preempted run of a trivial node used to send its whole step to the pool for good).

Tasks START in the step's order, as in LangGraph (a node with side effects sees it): each
one waits until the one before it has started (:class:`_Crew`), whichever thread runs it.
The gates are plain locks: no threading object per task.

The run's ``config["max_concurrency"]``, when set, bounds how many of a step's tasks run at
once, as in LangGraph (sync and async alike).
"""

from __future__ import annotations

import os
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

FAST_AGAIN = 16
"""Fast runs in a row after a slow one before a node counts as fast again."""

WORKERS = min(32, (os.cpu_count() or 1) + 4)
"""Threads in the pool (``ThreadPoolExecutor``'s default, as LangGraph's)."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def pool() -> ThreadPoolExecutor:
    """The shared worker pool for sync nodes, created on first use."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="sgdebug-task")
    return _pool


def _timed(run_task: RunTask, task: Task) -> None:
    start = time.perf_counter_ns()
    run_task(task)
    node = task.node
    if time.perf_counter_ns() - start < FAST_NS:
        node.speed += 1
    else:
        node.speed = 1 - FAST_AGAIN  # (positive again after FAST_AGAIN fast runs)


def run_tasks(
    run_task: RunTask,
    tasks: Sequence[Task],
    limit: int | None = None,
    timeout: float | None = None,
    here: RunTask | None = None,
) -> list[Task]:
    """Run ``tasks`` in parallel, starting them in order, here and in the pool (see the
    module's docstring); at most ``limit`` at once when it is given. With a
    ``timeout`` (the graph's ``step_timeout``), see :func:`_run_within`; returns the tasks
    still running past it. ``here``, when given, runs the tasks of a step run wholly in
    the calling thread, one after the other, in place of ``run_task`` (the run's reused
    task scope: see ``Run.advance``)."""
    if not tasks:
        return []
    slots = None
    if limit is not None and limit < len(tasks):
        slots = threading.BoundedSemaphore(limit)
    if timeout:
        return _run_within(run_task if slots is None else _bounded(run_task, slots), tasks, timeout)
    if here is None:
        here = run_task
    if len(tasks) == 1:
        here(tasks[0])
        return []
    if all(task.node.speed > 0 for task in tasks):  # all fast: one after the other, no thread
        for task in tasks:
            _timed(here, task)
        return []
    crew = _Crew(run_task, tasks, slots)
    # A thread for every task (up to the pool's size), not one per slow task: a node that
    # was fast may wait for a sibling this time (the last to reach a barrier passes it at
    # once, so it counts as fast; next time it is among those waiting), and the thread
    # that took it must not be the one its sibling is queued behind. The calling thread
    # takes turns too, so fast tasks still mostly run there.
    for _ in range(min(len(tasks) - 1, WORKERS)):
        pool().submit(crew.take_turns)
    crew.run_here()
    return []


class _Crew:
    """Runs a step's tasks in the calling thread and pool threads, which take them in turn,
    in the step's order; task ``i`` starts once task ``i - 1`` has (with ``slots``, once it
    also holds one of them: ``max_concurrency``).

    A pool thread loops over the tasks left (:meth:`take_turns`) instead of taking one
    Future per task (a Future costs as much as a trivial task); the calling thread takes
    turns too (:meth:`run_here`), so a step never waits for pool threads busy elsewhere: a
    nested subgraph's step in a pooled task used to wait forever for a full pool.

    Task ``i``'s gate is a plain lock held until it starts: the one task waiting for it
    (task ``i + 1``) takes it. A lock is a single C object; an Event (a Condition, a lock and
    three caught AttributeErrors to make) cost a 50-wide step a fifth of its instructions."""

    __slots__ = ("_done", "_escaped", "_left", "_lock", "_next", "_run_task", "_slots",
                 "_started", "_tasks")  # fmt: skip

    def __init__(
        self, run_task: RunTask, tasks: Sequence[Task], slots: threading.BoundedSemaphore | None
    ) -> None:
        self._run_task, self._tasks, self._slots = run_task, tasks, slots
        self._started = [_held() for _ in range(len(tasks) - 1)]
        self._lock = threading.Lock()
        self._next = 0
        """The first task no thread has taken yet."""
        self._left = len(tasks)
        """Tasks not over yet."""
        self._done = _held()
        """Held until every task is over."""
        self._escaped: BaseException | None = None
        """What a task let through in a pool thread (``run_task`` keeps a node's errors)."""

    def take_turns(self) -> None:
        """In a pool thread: run the next task not taken yet, until none is left."""
        while (index := self._take()) is not None:
            try:
                self._run(index)
            except BaseException as error:  # (raised in the calling thread: run_here)
                self._escaped = self._escaped or error
            finally:
                self._over()

    def run_here(self) -> None:
        """In the calling thread: take turns, then wait for the tasks pool threads took;
        raise what one of them let through."""
        while (index := self._take()) is not None:
            try:
                self._run(index)
            finally:
                self._over()
        self._done.acquire()
        if self._escaped is not None:
            raise self._escaped

    def _take(self) -> int | None:
        with self._lock:
            index = self._next
            if index == len(self._tasks):
                return None
            self._next = index + 1
            return index

    def _run(self, index: int) -> None:
        """Run task ``index`` in this thread once the one before it has started (and a slot
        is free, with ``max_concurrency``)."""
        slots = self._slots
        try:
            if index:
                self._started[index - 1].acquire()
            if slots is not None:
                slots.acquire()
        finally:  # (interrupted while waiting, it still lets the next task start)
            if index < len(self._started):
                self._started[index].release()
        try:
            _timed(self._run_task, self._tasks[index])
        finally:
            if slots is not None:
                slots.release()

    def _over(self) -> None:
        with self._lock:
            self._left -= 1
            last = not self._left
        if last:
            self._done.release()


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
