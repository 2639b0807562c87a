"""``where`` (pdb's): the frames the run stands in, each with its step and marked tasks, the
stop and the snapshot, on both engines."""

from __future__ import annotations

from typing import Any, TypedDict

from sgdebug.debugger.results import EngineName
from sgdebug.debugger.subframes import breadcrumb
from sgdebug.debugger.where import WhereFrame
from sgdebug.sample_graphs._engines import api

from .engine_scenarios import BUILT_WITH, on_both, sample, session_on
from .helpers import ok, refused


@on_both
def test_where_at_the_start_is_the_root_frame_before_its_first_task(engine: EngineName) -> None:
    session = sample("nested", engine)
    assert "no run yet" in refused(session, "where").message
    ok(session, "restart")
    outcome = ok(session, "where")
    assert outcome.value == (WhereFrame("parent", 0, ("__start__",), True),)
    lines = outcome.message.splitlines()
    assert lines[0] == "> parent  step 0   __start__"
    assert lines[-1] == f"Snapshot #0 of thread {session.thread_id} (its latest)."


@on_both
def test_where_inside_a_subgraph_lists_each_frame_and_marks_the_one_shown(
    engine: EngineName,
) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    ok(session, "continue")  # to the interrupt() in the research subgraph's summarize
    frames = ok(session, "where").value
    assert [(f.label, f.shown) for f in frames] == [
        ("parent", False),
        (breadcrumb(("research",)), True),
    ]
    assert frames[0].tasks == ("research ⚑ (asked inside its subgraph, below)",)
    (asked,) = frames[1].tasks
    assert asked.startswith("summarize ⚑ interrupt({'question': 'Which angle")
    ok(session, "up")
    after_up = ok(session, "bt")
    assert [f.shown for f in after_up.value] == [True, False]
    assert after_up.message.splitlines()[0].startswith("> parent ")
    assert "Interrupted at step 2: the graph asks" in after_up.message


@on_both
def test_where_at_an_older_snapshot_says_running_from_it_forks(engine: EngineName) -> None:
    session = sample("linear", engine)
    ok(session, "restart")
    ok(session, "continue")
    ok(session, "goto 1")
    message = ok(session, "where").message
    assert message.endswith(f"Snapshot #1 of thread {session.thread_id} "
                            "(not its latest: running from it forks).")  # fmt: skip


class _Two(TypedDict):
    n: int


@on_both
def test_where_marks_a_task_that_raised_and_one_that_ran(engine: EngineName) -> None:
    lg = api(BUILT_WITH[engine])

    def fine(state: _Two) -> dict[str, Any]:
        return {"n": 1}

    def broken(state: _Two) -> dict[str, Any]:
        raise ValueError("no")

    builder = lg.StateGraph(_Two)
    builder.add_node("fine", fine)
    builder.add_node("broken", broken)
    builder.add_edge(lg.START, "fine")
    builder.add_edge(lg.START, "broken")
    session = session_on(builder.compile(), engine, {"n": 0})
    ok(session, "restart")
    ok(session, "continue")
    (root,) = ok(session, "where").value
    assert sorted(root.tasks) == ["broken ✗ ValueError: no", "fine ✓"]
