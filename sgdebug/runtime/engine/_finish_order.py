"""A streamed step's parallel tasks reported in the order they finish, as in LangGraph.

LangGraph streams each task's result (its ``updates``, its ``tasks`` / ``debug`` result,
an ``__interrupt__`` it raised) as the task finishes: a slow first task's update comes after
a fast second one's. Its tasks that finish at about the same time (trivial nodes) come in
scheduling order, since each finishes before the next one starts; a re-implementation whose
tasks truly run at once would report those in whatever order its threads happen to end.

:class:`FinishOrder` keeps both: a finished task is reported at once when every task before
it (in scheduling order) has been reported; otherwise it waits for them, for at most
:data:`GRACE_S`, and is then reported ahead of those still running. So tasks that finish
within the grace of each other keep scheduling order (deterministic), and a task still
running after it is passed over. Only a streamed step of several tasks comes here (see
``Run.execute``); a run nobody streams, or a step of one task, pays nothing.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.runtime.engine._executor import ARunTask, RunTask
    from sgdebug.runtime.engine._stream import Emitter
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView

__all__ = ["GRACE_S", "NONE", "FinishOrder", "finish_order"]

GRACE_S = 0.05
"""How long a finished task waits for the tasks scheduled before it (seconds)."""
NONE: frozenset[int] = frozenset()
"""No task reported (ids of tasks)."""


class _Unordered:
    """The step's tasks are reported when it ends (not streamed, or one task): no-op."""

    __slots__ = ()

    def wrap(self, run_task: RunTask) -> RunTask:
        return run_task

    def awrap(self, arun_task: ARunTask) -> ARunTask:
        return arun_task

    def unstreamed(self, tasks: Sequence[Task]) -> Sequence[Task]:
        return tasks

    def close(self) -> frozenset[int]:
        return NONE


_UNORDERED = _Unordered()


def finish_order(run: RunView, tasks: Sequence[Task]) -> FinishOrder | _Unordered:
    """How the results of a step's ``tasks`` are streamed: as they finish when the run is
    streamed and they are several, else (a no-op, nothing made) when the step ends. Under
    a ``step_timeout`` (tasks that finish past it are not streamed) they are reported when
    the step ends, in scheduling order (not yet LangGraph's finish order)."""
    emit = run.emit
    if emit is None or len(tasks) < 2 or run.graph.step_timeout:
        return _UNORDERED
    return FinishOrder(run, emit, tasks)


class FinishOrder:
    """Reports the results of one step's ``tasks`` to the stream as they finish.

    The tasks waiting for those before them share one timer (a thread), set for the
    earliest of their graces: a wide step whose tasks end out of order starts one thread,
    not one per task, and none when they end in order."""

    __slots__ = ("_emit", "_finished", "_front", "_index", "_lock", "_open", "_reported",
                 "_run", "_tasks", "_timer", "_waiting")  # fmt: skip

    def __init__(self, run: RunView, emit: Emitter, tasks: Sequence[Task]) -> None:
        self._run, self._emit, self._tasks = run, emit, tuple(tasks)
        self._index = {id(task): i for i, task in enumerate(self._tasks)}
        self._finished: set[int] = set()
        self._reported: set[int] = set()
        self._front = 0
        """The first task (scheduling order) not reported yet."""
        self._lock = threading.Lock()
        self._waiting: deque[tuple[float, int]] = deque()
        """Finished tasks waiting for those before them: (end of grace, task), by grace."""
        self._timer: threading.Timer | None = None
        """Set for the first grace of :attr:`_waiting` to end."""
        self._open = True
        """Until :meth:`close`: waiting tasks are reported when their grace ends."""

    def wrap(self, run_task: RunTask) -> RunTask:
        """``run_task``, reporting each task once it has run."""

        def run_and_report(task: Task) -> None:
            run_task(task)
            self.finished(task)

        return run_and_report

    def awrap(self, arun_task: ARunTask) -> ARunTask:
        """:meth:`wrap` for an async task (a cancelled one reports nothing)."""

        async def arun_and_report(task: Task) -> None:
            await arun_task(task)
            self.finished(task)

        return arun_and_report

    def finished(self, task: Task) -> None:
        """``task`` has run: report it (and those it held up), or wait for the ones before."""
        with self._lock:
            if not self._open:
                return  # (a task that ran past the step's time limit is not streamed)
            i = self._index[id(task)]
            self._finished.add(i)
            if i == self._front:
                self._report_front()
                return
            self._waiting.append((time.monotonic() + GRACE_S, i))
            if self._timer is None:
                self._start_timer(GRACE_S)

    def _start_timer(self, delay: float) -> None:
        timer = self._timer = threading.Timer(delay, self._graces_over)
        timer.daemon = True
        timer.start()

    def _graces_over(self) -> None:
        """The first grace of the waiting tasks is over: report each task whose grace is,
        ahead of those still running, and wait for the next grace to end."""
        with self._lock:
            if not self._open:
                return
            waiting, now = self._waiting, time.monotonic()
            while waiting and waiting[0][0] <= now:
                i = waiting.popleft()[1]
                if i not in self._reported:
                    self._report(i)
            self._timer = None
            if waiting:
                self._start_timer(waiting[0][0] - now)

    def _report_front(self) -> None:
        """Report the front task and every finished one after it, in scheduling order."""
        while self._front < len(self._tasks):
            i = self._front
            if i not in self._reported:
                if i not in self._finished:
                    return
                self._report(i)
            self._front += 1

    def _report(self, i: int) -> None:
        self._reported.add(i)
        task = self._tasks[i]
        if not (task.done or task.error is not None or task.interrupts):
            return  # cancelled when a sibling failed: nothing to report
        if task.interrupts:
            self._emit.interrupted(self._run, task)
        self._emit.task_result(self._run, task)

    def unstreamed(self, tasks: Sequence[Task]) -> list[Task]:
        """:meth:`close`; the tasks of ``tasks`` not reported."""
        reported = self.close()
        return [task for task in tasks if id(task) not in reported]

    def close(self) -> frozenset[int]:
        """The step's tasks are over: report those still waiting, in scheduling order;
        return the ids (``id(task)``) of the tasks reported. Tasks that finish later are
        not reported."""
        with self._lock:
            self._open = False
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            for i in sorted(self._finished - self._reported):
                self._report(i)
            return frozenset(id(self._tasks[i]) for i in self._reported)
