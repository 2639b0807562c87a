"""A watched run times each task on its own (``Task.seconds``), whichever way its step runs
(pool threads, one after the other in the calling thread, on the event loop, one task at a
time); an unwatched run times nothing.

The time is read where the task runs, so a clock per thread, which a node moves on as it
runs, gives every task exactly the time its node took, however the pool schedules them.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pytest

from sgdebug.runtime import BaseHook, RunView, Task
from sgdebug.runtime.engine import _calling
from tests.task_clock import TOOK, ThreadClock, side_by_side


class Times(BaseHook):
    """Keeps each task's time as the hook sees it after the task."""

    def __init__(self) -> None:
        self.seen: dict[str, float | None] = {}

    def after_task(self, run: RunView, task: Task) -> bool:
        self.seen[task.name] = task.seconds
        return False


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ThreadClock:
    fake = ThreadClock()
    monkeypatch.setattr(_calling, "time", SimpleNamespace(perf_counter=fake))
    return fake


def _timed(graph: Any, hooks: Sequence[BaseHook]) -> None:
    run = graph.start({"ran": []}, hooks=hooks)
    assert run.advance() == "done"
    for hook in hooks:
        assert isinstance(hook, Times) and hook.seen["__start__"] == 0.0  # (a lone task)


def test_each_task_of_a_parallel_step_has_its_own_time_in_pool_threads(
    clock: ThreadClock,
) -> None:
    times = Times()
    _timed(side_by_side(clock), [times])  # (nodes not proven fast yet: in pool threads)
    assert {k: times.seen[k] for k in TOOK} == TOOK


def test_tasks_run_one_after_the_other_in_the_calling_thread_are_timed_each(
    clock: ThreadClock,
) -> None:
    graph = side_by_side(clock)
    for _ in range(20):  # (proven fast: the step runs in the calling thread)
        graph.invoke({"ran": []})
    times = Times()
    _timed(graph, [times])
    assert {k: times.seen[k] for k in TOOK} == TOOK


def test_async_tasks_are_timed_each_on_the_event_loop(clock: ThreadClock) -> None:
    import asyncio

    times = Times()
    run = side_by_side(clock, asynchronous=True).start({"ran": []}, hooks=[times])
    assert asyncio.run(run.aadvance()) == "done"
    assert {k: times.seen[k] for k in TOOK} == TOOK


def test_sync_tasks_of_an_async_run_are_timed_in_the_pool(clock: ThreadClock) -> None:
    import asyncio

    times = Times()
    run = side_by_side(clock).start({"ran": []}, hooks=[times])
    assert asyncio.run(run.aadvance()) == "done"
    assert {k: times.seen[k] for k in TOOK} == TOOK


def test_a_task_run_on_its_own_is_timed(clock: ThreadClock) -> None:
    class PauseAtPlan(Times):
        def after_plan(self, run: RunView, tasks: Sequence[Task]) -> bool:
            return any(task.name == "slow" for task in tasks)

    times = PauseAtPlan()
    run = side_by_side(clock).start({"ran": []}, hooks=[times])
    assert run.advance() == "paused"
    (slow,) = [task for task in run.tasks if task.name == "slow"]
    run.run_one(slow)
    assert times.seen == {"__start__": 0.0, "slow": 2.0}  # (the input step moves no clock)


def test_an_unwatched_run_times_no_task(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[float] = []

    def counted() -> float:
        read.append(0.0)
        return 0.0

    graph = side_by_side(ThreadClock())
    for _ in range(20):  # pooled at first, then proven fast
        graph.invoke({"ran": []})
    monkeypatch.setattr(_calling, "time", SimpleNamespace(perf_counter=counted))
    assert graph.invoke({"ran": []}) == {"ran": ["quick", "slow"]}
    assert read == []  # (the plain path pays nothing for the debugger's times)
