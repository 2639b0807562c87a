"""Running a superstep's sync tasks in the calling thread and a thread pool (an async
step's: ``_aexecutor``).

Threads are for nodes that wait (a model call, I/O). A node whose every run so far finished
in under :data:`FAST_NS` gains nothing from a thread and loses the hand-off cost (several
microseconds, more than the node itself), so a step of proven-fast tasks runs in the
calling thread; otherwise the calling thread and a pool thread for each other task, at most
:data:`WORKERS`, take the tasks in turn: while one thread waits in a task, the others go on
with the next ones, so tasks that wait for each other all run at once. Results do not
depend on this: writes are applied in task-path order whatever order tasks finish in. A
node that runs slow counts as slow until it has run fast :data:`FAST_AGAIN` times in a row:
a node that waits seldom runs fast again, one that waits often stays in a thread. A node
with more than FAST_AGAIN fast runs in a row stays fast after one slow run, and counts as
slow at the next one within FAST_AGAIN runs: on a busy machine a trivial node is now and
then preempted mid-run, and one such run among a fan-out's fifty nodes used to send the
whole step to the pool, about twice as slow, for the next FAST_AGAIN runs.

A node that was always fast may, one day, wait for a later sibling (an Event, a Barrier, a
queue the sibling fills): in the calling thread it would wait forever. A watchdog thread
(``_watchdog``, asleep while no step runs) looks at running steps every
``HANDOFF_S``: a fast step whose calling thread is still in the same task gets the rest
of its tasks handed to pool threads (:class:`_Fast`), and a step whose pool jobs wait behind
a full pool (its threads in tasks of outer steps: nested subgraphs) gets a thread of its own
standing in for them (:meth:`_Crew.look`), so tasks that wait for each other never wait for
a pool thread that will not come (LangGraph gives each run a pool of its own).

Tasks START in the step's order, as in LangGraph (a node with side effects sees it): each
one waits until the one before it has started (:class:`_Crew`), whichever thread runs it.
The gates are plain locks: no threading object per task.

The run's ``config["max_concurrency"]``, when set, bounds how many of a step's tasks run at
once, as in LangGraph (sync and async alike). Under the graph's ``step_timeout`` a step's
sync tasks are run the same way, by a crew with a deadline (:class:`_Timed`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from operator import length_hint
from typing import TYPE_CHECKING

from sgdebug.runtime.engine._watchdog import running_watchdog

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._watchdog import Watchdog

RunTask = Callable[["Task"], None]
"""Runs one task in the calling thread (``Run.run_task``)."""
ARunTask = Callable[["Task"], Awaitable[None]]
"""Runs one async task on the running event loop (``Run.arun_task``, see ``_aexecutor``)."""

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
    elif node.speed > FAST_AGAIN:  # proven fast: one slow run may be a preemption
        node.speed = 1  # (slow again before FAST_AGAIN more fast runs: it waits)
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
    ``timeout`` (the graph's ``step_timeout``), see :class:`_Timed`; returns the tasks
    not over in time. ``here``, when given, runs the tasks of a step run wholly in
    the calling thread, one after the other, in place of ``run_task`` (the run's reused
    task scope: see ``Run.advance``)."""
    if not tasks:
        return []
    slots = None
    if limit is not None and limit < len(tasks):
        slots = threading.BoundedSemaphore(limit)
    if timeout:
        timed = _Timed(run_task, tasks, slots, timeout)
        _run_crew(timed, len(tasks))
        return timed.late()
    if here is None:
        here = run_task
    if len(tasks) == 1:
        here(tasks[0])
        return []
    if all(task.node.speed > 0 for task in tasks):  # all fast: one after the other, no thread
        _run_fast(_Fast(run_task, tasks, slots), here)
        return []
    _run_crew(_Crew(run_task, tasks, slots), len(tasks))
    return []


def _run_crew(crew: _Crew, count: int) -> None:
    """Run the ``count`` tasks of ``crew`` here and in the pool, watched by the watchdog
    (should its pool jobs wait behind a full pool: see :meth:`_Crew.look`)."""
    # A thread for every task (up to the pool's size), not one per slow task: a node that
    # was fast may wait for a sibling this time (the last to reach a barrier passes it at
    # once, so it counts as fast; next time it is among those waiting), and the thread
    # that took it must not be the one its sibling is queued behind. The calling thread
    # takes turns too, so fast tasks still mostly run there.
    watchdog = running_watchdog()
    watchdog.arm(crew)
    try:
        crew.call(min(count - 1, WORKERS))
        crew.run_here()
    finally:
        watchdog.watched.remove(crew)


class _Crew:
    """Runs a step's tasks in the calling thread and pool threads, which take them in turn,
    in the step's order; task ``i`` starts once task ``i - 1`` has (with ``slots``, once it
    also holds one of them: ``max_concurrency``).

    A pool thread loops over the tasks left (:meth:`take_turns`) instead of taking one
    Future per task (a Future costs as much as a trivial task); the calling thread takes
    turns too (:meth:`run_here`), so a step never waits for pool threads busy elsewhere: a
    nested subgraph's step in a pooled task used to wait forever for a full pool. While
    the calling thread is in a task (one waiting for a sibling, say), the watchdog starts
    threads standing in for the crew's jobs a full pool has not started (:meth:`look`).

    Task ``i``'s gate is a plain lock held until it starts: the one task waiting for it
    (task ``i + 1``) takes it. A lock is a single C object; an Event (a Condition, a lock and
    three caught AttributeErrors to make) cost a 50-wide step a fifth of its instructions."""

    __slots__ = ("_done", "_escaped", "_left", "_lock", "_next", "_queued", "_run_task",
                 "_seen", "_slots", "_started", "_tasks")  # fmt: skip

    def __init__(
        self,
        run_task: RunTask,
        tasks: Sequence[Task],
        slots: threading.BoundedSemaphore | None,
        first: int = 0,
    ) -> None:
        self._run_task, self._tasks, self._slots = run_task, tasks, slots
        self._started = [_held() for _ in range(len(tasks) - 1)]
        if first:  # (the tasks before it were run elsewhere: see _Fast.hand_off)
            self._started[first - 1].release()
        self._lock = threading.Lock()
        self._next = first
        """The first task no thread has taken yet."""
        self._left = len(tasks) - first
        """Tasks not over yet."""
        self._done = _held()
        """Held until every task is over."""
        self._escaped: BaseException | None = None
        """What a task let through in a pool thread (``run_task`` keeps a node's errors)."""
        self._queued = 0
        """Pool jobs of this crew not started yet (see :meth:`look`)."""
        self._seen = -1
        """:attr:`_next` when the watchdog last looked."""

    def call(self, count: int) -> None:
        """Submit ``count`` pool jobs taking turns (one the pool refuses counts as queued
        for good: a stand-in takes its place, see :meth:`look`)."""
        self._queued = count  # (before any job starts: each takes one off, holding the lock)
        for _ in range(count):
            pool().submit(self.take_turns)

    def look(self, watchdog: Watchdog) -> None:
        """For the watchdog: when tasks are left that no thread has taken since it last
        looked, while pool jobs of this crew wait in the pool's queue, the pool is full
        (its threads are in tasks of outer steps): a thread of its own stands in for them.
        (LangGraph gives each graph's run a pool of its own.)"""
        taken = self._next
        if taken == self._seen and taken < len(self._tasks) and self._queued > 0:
            with self._lock:
                self._queued -= 1  # (it stands in for one of them)
            name = "sgdebug-stand-in"
            threading.Thread(target=self._turns, name=name, daemon=True).start()
        self._seen = taken

    def take_turns(self) -> None:
        """In a pool thread: run the next task not taken yet, until none is left."""
        with self._lock:
            self._queued -= 1
        self._turns()

    def _turns(self) -> None:
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
            self._start(index)
        finally:
            if slots is not None:
                slots.release()

    def _start(self, index: int) -> None:
        _timed(self._run_task, self._tasks[index])

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


class _Timed(_Crew):
    """A crew under the graph's ``step_timeout``: past the deadline, a task whose turn
    comes does not start, and a task that ends is late (:meth:`late`). As in LangGraph, a
    sync node past the limit cannot be stopped: the step waits for those already running
    (what they write is kept) and does not start the ones still queued (behind
    ``max_concurrency``, or behind the pool's threads). No Future per task: a nested step
    in a full pool waited forever for Futures that no pool thread would ever take off its
    queue, not even cancelled."""

    __slots__ = ("_deadline", "_late")

    def __init__(
        self,
        run_task: RunTask,
        tasks: Sequence[Task],
        slots: threading.BoundedSemaphore | None,
        timeout: float,
    ) -> None:
        super().__init__(run_task, tasks, slots)
        self._deadline = time.monotonic() + timeout
        self._late: list[int] = []
        """Tasks not started in time, or over past it."""

    def late(self) -> list[Task]:
        """The tasks not over in time, in the step's order."""
        return [self._tasks[index] for index in sorted(self._late)]

    def _start(self, index: int) -> None:
        if time.monotonic() < self._deadline:
            _timed(self._run_task, self._tasks[index])
            if time.monotonic() < self._deadline:
                return
        self._late.append(index)


class _Fast:
    """A step of proven-fast tasks the calling thread runs one after the other, watched by
    the watchdog (``_watchdog``): past its ``HANDOFF_S`` in one task, the tasks it has not
    started yet go to a :class:`_Crew` (:meth:`hand_off`).

    The calling thread takes its tasks from :attr:`left`, an iterator (of the step's list)
    which the watchdog only reads the length of (:meth:`look`) and the hand-off empties in
    one C call (``list``): under the GIL each task is taken by one side only, and the
    calling thread's loop is the plain loop it was before (no lock, no store per task)."""

    __slots__ = ("crew", "handing", "left", "run_task", "seen", "slots", "tasks")

    def __init__(
        self, run_task: RunTask, tasks: Sequence[Task], slots: threading.BoundedSemaphore | None
    ) -> None:
        self.run_task, self.tasks, self.slots = run_task, tasks, slots
        self.left = iter(tasks)
        self.seen = -1
        """How many tasks were left when the watchdog last looked."""
        self.handing = False
        """Set by the watchdog before it takes the tasks left: the calling thread then
        waits for its lock, after which :attr:`crew` is set if any were."""
        self.crew: _Crew | None = None
        """Who runs the tasks handed off."""

    def look(self, watchdog: Watchdog) -> None:
        """For the watchdog: hand off when the calling thread is in the task it was in
        last time (as many left as then); once handed off, see :meth:`_Crew.look`."""
        crew = self.crew
        if crew is not None:
            crew.look(watchdog)
            return
        left = length_hint(self.left)
        if left == self.seen and left:
            with watchdog.lock:
                self.hand_off()
        self.seen = left

    def hand_off(self) -> None:
        """In the watchdog's thread (holding its lock), while the calling thread is in a
        task: give the tasks it has not taken to a crew of pool threads, which start them
        in order once their turn comes. The task the calling thread is in counts as
        started (taken: the GIL lets it enter its node well before a pool thread wakes, as
        in :class:`_Crew`), and holds one of the ``slots`` (``max_concurrency``) until it
        ends."""
        self.handing = True
        rest = list(self.left)
        if not rest:  # (the calling thread took the last one meanwhile)
            return
        if self.slots is not None:
            self.slots.acquire()  # (free: the calling thread runs one task, holding none)
        first = len(self.tasks) - len(rest)
        self.crew = crew = _Crew(self.run_task, self.tasks, self.slots, first)
        with suppress(RuntimeError):  # (a pool shutting down: stand-ins run them, see look)
            crew.call(min(len(rest), WORKERS))

    def join(self, watchdog: Watchdog) -> None:
        """In the calling thread, after its loop, when the watchdog took the tasks left:
        release its slot and take turns with the crew until every task is over."""
        with watchdog.lock:  # (held while it hands off: the crew is set once it is free)
            crew = self.crew
        if crew is None:
            return
        if self.slots is not None:
            self.slots.release()
        crew.run_here()


def _run_fast(fast: _Fast, here: RunTask) -> None:
    """Run ``fast``'s tasks in the calling thread, one after the other, unless the
    watchdog hands the rest of them off (see :class:`_Fast`)."""
    watchdog = running_watchdog()
    watchdog.arm(fast)
    try:
        try:
            for task in fast.left:
                _timed(here, task)
        except BaseException:
            list(fast.left)  # (the watchdog hands nothing of an abandoned step off)
            raise
        if fast.handing:
            fast.join(watchdog)
    finally:
        watchdog.watched.remove(fast)
