"""Running an async superstep's tasks (``ainvoke``/``astream``): async nodes on the running
event loop, sync nodes in the executor's pool (:func:`~sgdebug.runtime.engine._executor.pool`).

Each sync task is a job (:class:`_Job`) the pool runs and the loop awaits. The pool is
shared by every run of the process: when its threads are all in tasks of outer steps (a
sync node running an async graph with ``asyncio.run``), a job could wait in its queue for
good, so the watchdog (``_watchdog``) starts a thread standing in for the jobs of a step the
pool has not started since it last looked (:class:`_Jobs`), as many as the pool's size
allows. LangGraph runs them in the loop's own default executor.

As in LangGraph, once a task fails (for good: a failure its error handler took over does
not count, see :func:`_failed`), the tasks still running are cancelled: the step fails at
once (a sync job not started yet never starts; one running cannot be stopped). Cancelling
the run cancels them all. Past the graph's ``step_timeout`` the tasks still running are
cancelled and returned. ``config["max_concurrency"]`` bounds how many run at once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING

from sgdebug.runtime.engine import _executor
from sgdebug.runtime.engine._watchdog import running_watchdog

if TYPE_CHECKING:
    import asyncio

    from sgdebug.runtime.engine._executor import ARunTask, RunTask
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._watchdog import Watchdog

__all__ = ["arun_tasks"]


async def arun_tasks(
    run_task: RunTask,
    arun_task: ARunTask,
    tasks: Sequence[Task],
    limit: int | None = None,
    timeout: float | None = None,
) -> list[Task]:
    """Run ``tasks`` concurrently on the running loop (sync ones in the pool), at most
    ``limit`` at once when it is given; return the tasks still running past ``timeout``
    seconds (see the module's docstring)."""
    if not tasks:
        return []
    import asyncio

    loop = asyncio.get_running_loop()
    slots = asyncio.Semaphore(limit) if limit is not None and limit < len(tasks) else None
    jobs = _Jobs(loop, run_task)

    async def one(task: Task) -> None:
        assert slots is not None
        async with slots:
            if task.node.injection.is_async:
                await arun_task(task)
            else:
                await jobs.start(task)

    owners: dict[asyncio.Future[None], Task] = {}
    for task in tasks:
        if slots is not None:
            owners[asyncio.ensure_future(one(task))] = task
        elif task.node.injection.is_async:
            owners[asyncio.ensure_future(arun_task(task))] = task
        else:
            owners[jobs.start(task)] = task
    if all(task.node.injection.is_async for task in tasks):
        return await _settled(owners, timeout)
    watchdog = running_watchdog()
    watchdog.arm(jobs)
    try:
        return await _settled(owners, timeout)
    finally:
        watchdog.watched.remove(jobs)


async def _settled(owners: dict[asyncio.Future[None], Task], timeout: float | None) -> list[Task]:
    """Wait for the tasks of ``owners`` (see :func:`arun_tasks`); return those late."""
    import asyncio

    loop = asyncio.get_running_loop()
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


class _Job:
    """One sync task of an async step: run by a pool thread, or by a thread standing in
    for the pool (whichever takes :attr:`taken` first), unless cancelled before it starts;
    its result is set on :attr:`future`, on the loop."""

    __slots__ = ("future", "loop", "over", "run_task", "taken", "task")

    def __init__(self, loop: asyncio.AbstractEventLoop, run_task: RunTask, task: Task) -> None:
        self.loop, self.run_task, self.task = loop, run_task, task
        self.future: asyncio.Future[None] = loop.create_future()
        self.taken = threading.Lock()
        self.over = False

    def __call__(self) -> None:
        if not self.taken.acquire(blocking=False) or self.future.cancelled():
            return
        error: BaseException | None = None
        try:
            self.run_task(self.task)
        except BaseException as exc:  # (set on the future: raised where it is awaited)
            error = exc
        finally:
            self.over = True
        with suppress(RuntimeError):  # (the loop is closed: nobody awaits it any more)
            self.loop.call_soon_threadsafe(_settle, self.future, error)


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():  # (cancelled meanwhile)
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


class _Jobs:
    """The sync jobs of one async step, for the watchdog: a job not taken at two looks in
    a row waits behind a full pool; a thread stands in for it, while fewer than the pool's
    :data:`~sgdebug.runtime.engine._executor.WORKERS` of the step's jobs run (the bound a
    pool of its own would keep)."""

    __slots__ = ("jobs", "loop", "run_task", "waiting")

    def __init__(self, loop: asyncio.AbstractEventLoop, run_task: RunTask) -> None:
        self.loop, self.run_task = loop, run_task
        self.jobs: list[_Job] = []
        self.waiting: list[_Job] = []
        """The jobs not taken when the watchdog last looked."""

    def start(self, task: Task) -> asyncio.Future[None]:
        """Give ``task`` to the pool; its future, to await."""
        job = _Job(self.loop, self.run_task, task)
        self.jobs.append(job)
        _executor.pool().submit(job)
        return job.future

    def look(self, watchdog: Watchdog) -> None:
        running = sum(1 for job in self.jobs if job.taken.locked() and not job.over)
        for job in self.waiting:
            if running >= _executor.WORKERS:
                break
            if not job.taken.locked() and not job.future.done():
                name = "sgdebug-stand-in"
                threading.Thread(target=job, name=name, daemon=True).start()
                running += 1
        self.waiting = [job for job in self.jobs if not job.taken.locked()]


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
