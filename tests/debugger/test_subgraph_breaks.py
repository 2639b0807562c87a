"""Breakpoints on a subgraph's nodes (``break before research/summarize``), both engines."""

from __future__ import annotations

from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.results import EngineName
from sgdebug.runtime.channels import MISSING

from .engine_scenarios import hits, on_both, sample, stopped, values
from .helpers import ok

NOTES = ["gather: how heat pumps work", "gather: what heat pumps cost"]


@on_both
def test_break_before_an_inner_node_stops_in_the_subgraphs_frame_and_continue_goes_on(
    engine: EngineName,
) -> None:
    session = sample("nested", engine)
    assert ok(session, "break before research/summarize").message == (
        "Breakpoint 1: before research/summarize"
    )
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.message.startswith(
        "Stopped before step 2 at breakpoint 1 (before research/summarize)"
    )
    assert stop.stop is not None
    assert [(h.breakpoint.number, h.nodes) for h in stop.stop.hits] == [
        (1, ("research/summarize",))
    ]
    assert stop.ran == ("in subgraph research: gather wrote notes",)
    assert hits(session)[1] == 1
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert {r.name: r.value for r in frame.channels} == {
        "topic": "heat pumps", "notes": NOTES, "summary": MISSING,
    }  # fmt: skip
    assert [(t.name, t.status) for t in frame.tasks] == [("summarize", "pending")]
    assert ok(session, "up").message == "Frame: parent"
    assert session.pending_tasks == ("research",)

    asked = ok(session, "continue")  # past the breakpoint: summarize runs and asks
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert asked.ran == ("in subgraph research: summarize called interrupt()",)  # gather: once
    assert current_frame(session).breadcrumb == "parent \u203a research"
    assert ok(session, "resume 'costs'").status == "done"
    assert values(session)["report"] == "Report on heat pumps: 2 notes, seen from costs"
    assert hits(session)[1] == 1


@on_both
def test_break_after_an_inner_node_and_tbreak_fires_once(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "tbreak after research/gather")
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.stop is not None
    assert [h.nodes for h in stop.stop.hits] == [("research/gather",)]
    assert [bp.number for bp in session.breakpoints] == [0]  # the tbreak is gone
    assert {r.name: r.value for r in current_frame(session).channels}["notes"] == NOTES
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)


@on_both
def test_a_disabled_or_deleted_inner_breakpoint_no_longer_stops_the_run(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "break before research/summarize")
    ok(session, "break before research/gather")
    ok(session, "disable 2")
    ok(session, "restart")
    first = ok(session, "continue")
    assert first.stop is not None and [h.breakpoint.number for h in first.stop.hits] == [1]
    ok(session, "delete 1")
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)
