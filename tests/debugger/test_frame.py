"""The frame: one view of the session at the position the user is at, on both engines."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from sgdebug.debugger.frame import Frame, FrameBuilder, current_frame
from sgdebug.debugger.results import EngineName
from sgdebug.runtime.channels import MISSING

from .engine_scenarios import on_both, run, sample, session_on


def _statuses(frame: Frame) -> dict[str, str]:
    return {n.name: n.status for n in frame.nodes}


@on_both
def test_going_back_rebuilds_every_part_of_the_frame(engine: EngineName) -> None:
    session = sample("linear", engine)
    builder = FrameBuilder(session)
    run(session, "restart", "step", "step")
    later = builder.build()
    assert [t.name for t in later.tasks] == ["node_2"]
    assert later.step_diff is not None and later.step_diff.tasks == ("node_1",)

    run(session, "goto 1")  # before step 1: node_1 pending, only __start__ has run
    frame = builder.build()

    assert [t.name for t in frame.tasks] == ["node_1"]
    assert _statuses(frame) == {
        "__start__": "ran", "node_1": "pending", "node_2": "idle", "__end__": "idle"
    }  # fmt: skip
    # The diff shown is the step that made snapshot 1 (step 0: __start__ took the input),
    # read back from the snapshots; step 1's belongs to a later one.
    assert frame.step_diff is not None and frame.step_diff.tasks == ("__start__",)
    assert frame.step_diff.step == 0
    rows = {r.name: r for r in frame.channels}
    assert rows["cur_id"].value == "request-7"
    assert rows["cur_id"].writers == ("__start__",) and rows["cur_id"].last_step == 0
    assert frame.current is not None and frame.current.index == 1


@on_both
def test_going_to_the_input_snapshot_shows_its_own_tasks_and_values(engine: EngineName) -> None:
    session = sample("linear", engine)
    builder = FrameBuilder(session)
    run(session, "restart", "step", "step", "goto 1")
    builder.build()

    run(session, "goto 0")  # straight from one stored snapshot to another
    frame = builder.build()

    assert frame.view.step == 0
    assert [t.name for t in frame.tasks] == ["__start__"]
    assert _statuses(frame)["__start__"] == "pending"
    assert all(s == "idle" for n, s in _statuses(frame).items() if n != "__start__")
    assert {r.name: r.value for r in frame.channels} == {"cur_id": MISSING, "logs": []}


@on_both
def test_back_at_the_snapshot_the_last_step_made_its_diff_returns(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "step", "step", "goto 1")

    run(session, "goto 2")

    frame = current_frame(session)
    assert frame.step_diff is not None and frame.step_diff.tasks == ("node_1",)
    assert _statuses(frame)["node_1"] == "ran"


def _shown(frame: Frame) -> Any:
    """What the diff pane shows of a frame's step diff (all but channel versions)."""
    diff = frame.step_diff
    assert diff is not None
    rows = [(c.channel, c.applied, c.old_preview, [(w.task_name, w.preview, w.overwrite)
             for w in c.writes], c.new_preview) for c in diff.channels]  # fmt: skip
    return diff.step, diff.tasks, rows


@on_both
@pytest.mark.parametrize("name", ["fanout", "loop", "chatbot"])
def test_a_snapshot_gone_back_to_shows_the_diff_its_step_showed_when_it_ran(
    engine: EngineName, name: str
) -> None:
    """Browsing the history, each step's reducer diff is there (it said: press D)."""
    session = sample(name, engine)
    run(session, "restart")
    live = {}
    while session.status == "paused":
        run(session, "step")
        frame = current_frame(session)
        if frame.step_diff is not None and frame.current is not None:
            live[frame.current.index] = _shown(frame)
    assert len(live) >= 3
    for index, shown in live.items():
        run(session, f"goto {index}")
        assert _shown(current_frame(session)) == shown, index


@on_both
def test_stepping_from_an_old_snapshot_says_it_branched_and_how_steps_are_numbered(
    engine: EngineName,
) -> None:
    session = sample("linear", engine)
    moved = run(session, "restart", "step", "step", "goto 1")
    assert moved.message.endswith("Stepping or editing from here starts a new branch.")

    stepped = run(session, "step")

    # LangGraph itself records a fork (step 1) before running node_1 again (step 2).
    entries = session.history().value
    fork, after = entries[-2:]
    assert (fork.source, fork.parent_index, fork.step) == ("fork", 1, 1)
    assert (after.source, after.step, after.ran) == ("loop", 2, ("node_1",))
    assert stepped.message == "Paused before step 3."
    assert stepped.notes[0] == (
        f"New branch from snapshot 1: LangGraph first records a fork of it (snapshot "
        f"{fork.index}, step 1), so this branch counts steps from 2."
    )
    assert not run(session, "step").notes  # said once


def test_each_step_and_node_is_timed_by_the_runtimes_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgdebug.runtime.engine import _calling

    ticks = iter(range(10_000))  # every reading one second on: each task takes one second
    monkeypatch.setattr(_calling, "time", SimpleNamespace(perf_counter=lambda: float(next(ticks))))
    session = sample("loop", "native")
    builder = FrameBuilder(session)

    run(session, "restart", "continue")
    frame = builder.build()

    loops = [e for e in frame.entries if e.source == "loop"]
    ran = [("__start__",), ("attempt",), ("attempt",), ("attempt",), ("report",)]
    assert [e.ran for e in loops] == ran
    timed = [frame.step_times[e.checkpoint_id] for e in loops]
    assert [[name for name, _ in t.tasks] for t in timed] == [[*e.ran] for e in loops]
    assert all(seconds == 1.0 for t in timed for _, seconds in t.tasks)
    assert frame.totals["attempt"] == (3.0, 3)
    assert frame.durations["attempt"] == 1.0


def test_a_task_its_engine_did_not_time_is_timed_by_the_drivers_clock() -> None:
    from sgdebug.debugger.breakpoints import BreakpointTable
    from sgdebug.debugger.driver import Driver
    from sgdebug.debugger.events import Event, EventBus, TaskRan
    from sgdebug.debugger.results import TaskInfo

    readings = iter([10.0, 12.5, 12.5])  # made at 10 s; the task reported at 12.5 s
    bus, seen = EventBus(), list[Event]()
    bus.subscribe(seen.append)
    driver = Driver(BreakpointTable(), bus, lambda text, scope: True, clock=lambda: next(readings))
    task = TaskInfo(id="t", name="n", path=(), input=None, triggers=(), send=False, done=True)

    driver.task_ran(task)

    assert [e.task.duration for e in seen if isinstance(e, TaskRan)] == [2.5]


@on_both
def test_each_task_of_a_parallel_step_shows_the_time_its_node_took(
    engine: EngineName, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two nodes side by side: each shows its own time, not the first the whole step's and
    the other none. Each engine times a task where it runs (the runtime in the task's
    thread; the LangGraph engine by a callback on the task's run, not between the step's
    events as the stream's reader sees them): a clock per thread here."""
    from sgdebug.debugger.engines import _lg_clock
    from sgdebug.runtime.engine import _calling
    from tests.task_clock import TOOK, ThreadClock, side_by_side

    clock = ThreadClock()
    timer = _lg_clock if engine == "langgraph" else _calling
    monkeypatch.setattr(timer, "time", SimpleNamespace(perf_counter=clock))
    graph = side_by_side(clock, langgraph=engine == "langgraph")
    session = session_on(graph, engine, {"ran": []})
    builder = FrameBuilder(session)

    run(session, "restart", "continue")
    frame = builder.build()

    assert {name: frame.durations[name] for name in TOOK} == TOOK
    (step,) = [e for e in frame.entries if set(e.ran) == set(TOOK)]
    assert sorted(frame.step_times[step.checkpoint_id].tasks) == sorted(TOOK.items())


def test_langgraphs_own_task_times_fill_the_steps() -> None:
    session = sample("loop", "langgraph")
    builder = FrameBuilder(session)

    run(session, "restart", "continue")
    frame = builder.build()

    loops = [e for e in frame.entries if e.source == "loop" and e.ran != ("__start__",)]
    assert all(e.checkpoint_id in frame.step_times for e in loops)
    assert frame.totals["attempt"][1] == 3 and frame.totals["report"][1] == 1
