"""Running a superstep's tasks: sync nodes in a thread pool, async nodes on the event loop."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.runtime._run import Run, Task

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


def run_tasks(run: Run, tasks: Sequence[Task]) -> None:
    """Run ``tasks`` in parallel; the last one runs in the calling thread."""
    if not tasks:
        return
    if len(tasks) == 1:
        run.run_task(tasks[0])
        return
    futures = [pool().submit(run.run_task, task) for task in tasks[:-1]]
    run.run_task(tasks[-1])
    wait(futures)


async def arun_tasks(run: Run, tasks: Sequence[Task]) -> None:
    """Run ``tasks`` concurrently on the running loop (sync ones in the pool)."""
    if not tasks:
        return
    import asyncio

    loop = asyncio.get_running_loop()
    awaitables: list[Awaitable[None]] = []
    for task in tasks:
        if task.node.injection.is_async:
            awaitables.append(run.arun_task(task))
        else:
            awaitables.append(loop.run_in_executor(pool(), run.run_task, task))
    await asyncio.gather(*awaitables)
