"""The async path of a run (``Run.aadvance``, ``Run.aexecute``): the loop of
:meth:`Run.advance` with the step's tasks run on the event loop.

What only the async path has to do, as LangGraph's async loop does:

* a saver with its own ``aput``/``aput_writes`` stores through them: the run awaits the
  stores it made (``Journal.astore``) between phases and when it ends, and when it is
  cancelled, shielded, so a cancelled run still makes its exit save;
* a step cancelled mid-way (its stream closed, its caller cancelled) keeps what its
  finished tasks wrote, so a resume does not run them again; closing the stream records
  the tasks it cut off as failed with ``CancelledError``, as LangGraph.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from sgdebug.runtime.engine._aexecutor import arun_tasks
from sgdebug.runtime.engine._cached import aremember, areplay
from sgdebug.runtime.engine._calling import task_runner
from sgdebug.runtime.engine._finish_order import finish_order
from sgdebug.runtime.engine._forward import CLOSED

if TYPE_CHECKING:
    from sgdebug.runtime.engine._run import Run
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import Status

__all__ = ["aadvance", "aexecute"]


async def aadvance(run: Run, one_step: bool) -> Status:
    """:meth:`Run.advance` on the event loop (see the module docstring)."""
    run.status = "running"
    run.breakpoint = None
    astore = None if run.persist is None else run.persist.astore
    try:
        while True:
            status = run._settle(one_step, inline=False)
            if status is None:
                if astore is not None:
                    await _stored(run, astore)
                status = run._after_execute(await aexecute(run))
            if status is not None:
                status = run._ended(status)
                if astore is not None:
                    await _stored(run, astore)
                return status
    except BaseException:
        run._ended("error")
        if astore is not None:  # (as LangGraph: a cancelled run still stores where it is)
            await asyncio.shield(astore())
        raise


async def _stored(run: Run, astore: Callable[[], Awaitable[None]]) -> None:
    """Await the stores held so far. A subgraph's run whose store failed goes on, as
    LangGraph stores in the background while the next step runs: its saver's face keeps
    the failure, raised at the run's next checkpoint or when it ends, unless it stops at
    an interrupt (which wins: ``AsyncFace.raise_failed``)."""
    try:
        await astore()
    except Exception:
        if run.options.parent is None:
            raise


async def aexecute(run: Run) -> bool:
    """:meth:`Run.execute` on the event loop: whether a hook asked to pause."""
    pending, keyed = run._pending(), None
    if run.graph.cache is not None:
        pending, keyed = await areplay(run, pending)
    limit, timeout = run.options.config.get("max_concurrency"), run.graph.step_timeout
    order = finish_order(run, pending)
    here = order.wrap(partial(task_runner(run.observer.watched), run))
    arun = order.awrap(run.arun_task)
    try:
        late = await arun_tasks(here, arun, pending, limit, timeout)
    except BaseException as exc:
        closed = isinstance(exc, asyncio.CancelledError) and CLOSED in exc.args
        _keep_finished(run, pending, closed)
        raise
    if late:
        # (LangGraph's async message is empty)
        ran = order.unstreamed(pending)
        run._step_timed_out(ran, late, TimeoutError(), asyncio.CancelledError())
    if keyed:
        await aremember(run, keyed)
    return run.finish_execute(pending, order.close())


def _keep_finished(run: Run, tasks: Sequence[Task], closed: bool) -> None:
    """The step was cancelled (or a task let a ``BaseException`` through): as LangGraph,
    what its finished tasks wrote stays recorded against the step's checkpoint; when its
    stream was ``closed``, the tasks cut off are recorded as failed with ``CancelledError``
    (a cancelled caller records nothing for them)."""
    persist = run.persist
    if persist is None:
        return
    for task in tasks:
        if closed and not task.done and task.error is None:
            task.error = asyncio.CancelledError()
        if task.done or (closed and task.error is not None):
            persist.task_done(task)
    persist.flush()
