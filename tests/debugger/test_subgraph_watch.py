"""Conditions and watches inside a subgraph (native engine): ``break before
research/summarize if len(notes) > 1``, ``watch research/notes``."""

from __future__ import annotations

from typing import Any

from sgdebug.debugger import Session
from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.render import describe_hit
from sgdebug.runtime.channels import MISSING

from .engine_scenarios import hits, sample, stopped, tree, values
from .helpers import ok, refused

NOTES = ["gather: how heat pumps work", "gather: what heat pumps cost"]


def _checkpoints(session: Session) -> list[tuple[str, int, str]]:
    """Every checkpoint of the session's thread, root and subgraph ones: (the node of its
    namespace, step, source), newest first as the saver lists them."""
    saver = session.engine.compiled.checkpointer  # type: ignore[attr-defined]
    out = []
    for found in saver.list({"configurable": {"thread_id": session.engine.thread_id}}):
        namespace = found.config["configurable"].get("checkpoint_ns", "")
        out.append((namespace.split(":")[0], found.metadata["step"], found.metadata["source"]))
    return out


def _to_the_question(*lines: str) -> tuple[Session, Any]:
    session = sample("nested", "native")
    for line in lines:
        ok(session, line)
    ok(session, "restart")
    return session, ok(session, "continue")


def test_a_true_condition_on_an_inner_breakpoint_stops_there_reading_the_subgraphs_channels() -> (
    None
):
    session, stop = _to_the_question("break before research/summarize if len(notes) > 1")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.message.startswith(
        "Stopped before step 2 at breakpoint 1 (before research/summarize if len(notes) > 1)"
    )
    assert hits(session)[1] == 1
    assert current_frame(session).breadcrumb == "parent \u203a research"
    # `state` in the condition is the subgraph's state too
    ok(session, "delete 1")
    ok(session, "break before research/summarize if state['notes'] == " + repr(NOTES))
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("paused", "breakpoint", 2)


def test_a_false_condition_lets_the_run_go_on_and_stores_what_a_run_without_it_stores() -> None:
    plain, asked_plain = _to_the_question()
    session, asked = _to_the_question("break before research/summarize if len(notes) > 5")
    # no stop at the breakpoint: on to summarize's interrupt(), as without it
    assert stopped(asked) == ("interrupted", "interrupt", 2) == stopped(asked_plain)
    assert hits(session)[1] == 0
    assert asked.ran == (  # gather ran, once
        "in subgraph research: gather wrote notes",
        "in subgraph research: summarize called interrupt()",
    )
    # the history: the root's three snapshots and the subgraph's three checkpoints, as
    # without the breakpoint (re-entering past it stores nothing new)
    assert tree(session) == tree(plain)
    assert _checkpoints(session) == _checkpoints(plain) == [
        ("", 1, "loop"), ("", 0, "loop"), ("", -1, "input"),
        ("research", 1, "loop"), ("research", 0, "loop"), ("research", -1, "input"),
    ]  # fmt: skip
    assert ok(session, "resume 'costs'").status == "done"
    assert values(session)["report"] == "Report on heat pumps: 2 notes, seen from costs"


def test_a_false_tbreak_is_kept_for_the_next_time() -> None:
    session, asked = _to_the_question("tbreak after research/gather if not notes")
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert [bp.number for bp in session.breakpoints] == [0, 1]


def test_a_condition_that_raises_at_the_stop_stops_and_says_why() -> None:
    _session, stop = _to_the_question("break after research/gather if notes[5] == 'x'")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.stop is not None
    (hit,) = stop.stop.hits
    assert hit.condition_error == "IndexError: list index out of range"
    assert "[condition failed: IndexError: list index out of range]" in stop.message


def test_a_condition_is_checked_against_the_subgraphs_channels_when_set() -> None:
    session = sample("nested", "native")
    message = refused(session, "break before research/summarize if report").message
    assert message.startswith(
        "bad condition: 'report' is not defined in parent \u203a research "
        "(its channels: topic, notes, summary;"
    )
    assert "SyntaxError" in refused(session, "break before research/gather if (").message
    # a root node's condition reads the root's channels, where `notes` is not one
    assert "'notes' is not defined" in refused(session, "break before write if notes").message
    assert [bp.number for bp in session.breakpoints] == [0]
    assert ok(session, "break before research/gather if topic and len(notes) == 0").ok


def test_a_watch_on_a_subgraphs_channel_stops_after_the_step_that_changed_it() -> None:
    session, stop = _to_the_question("watch research/notes")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.stop is not None
    (hit,) = stop.stop.hits
    assert (hit.breakpoint.number, hit.old, hit.new) == (1, [], NOTES)
    assert describe_hit(hit).startswith("breakpoint 1 (watch research/notes): research/notes [")
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert [(t.name, t.status) for t in frame.tasks] == [("summarize", "pending")]
    assert {r.name: r.value for r in frame.channels}["notes"] == NOTES
    # summarize does not change notes: on to its question, then the answer finishes
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)
    assert ok(session, "resume 'costs'").status == "done"
    assert hits(session)[1] == 1


def test_a_watch_sees_the_subgraphs_last_step_and_old_new_in_its_condition() -> None:
    session, asked = _to_the_question("watch research/summary if new.startswith('2 notes')")
    assert stopped(asked) == ("interrupted", "interrupt", 2)  # gather left summary alone
    stop = ok(session, "resume 'costs'")
    assert stopped(stop) == ("paused", "breakpoint", 2)  # still in the parent's step 2
    assert stop.stop is not None
    (hit,) = stop.stop.hits
    assert (hit.old, hit.new) == (MISSING, "2 notes, seen from costs")
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert frame.tasks == ()  # the subgraph's last step: nothing left to run in it
    assert ok(session, "continue").status == "done"
    assert values(session)["report"] == "Report on heat pumps: 2 notes, seen from costs"


def test_a_watch_whose_condition_is_false_does_not_stop() -> None:
    session, asked = _to_the_question("watch research/notes if len(new) > len(old) + 2")
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert hits(session)[1] == 0


def test_a_disabled_watch_no_longer_stops_the_run() -> None:
    session, stop = _to_the_question("watch research/notes")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    ok(session, "disable 1")
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)


def test_a_watch_names_a_channel_of_that_subgraph() -> None:
    session = sample("nested", "native")
    assert refused(session, "watch research/report").message == (
        "no channel named 'report' in research (its channels: topic, notes, summary)"
    )
    message = refused(session, "watch research/notes if len(report) > 1").message
    assert "'report' is not defined in parent \u203a research" in message
    assert [bp.number for bp in session.breakpoints] == [0]


def test_the_langgraph_engine_still_refuses_them_with_its_reason() -> None:
    session = sample("nested", "langgraph")
    for line in ("watch research/notes", "break before research/summarize if notes"):
        assert "not available on the langgraph engine" in refused(session, line).message


def test_going_back_to_a_stop_inside_a_subgraph_shows_that_stop_and_re_enters_it() -> None:
    session, stop = _to_the_question("break before research/summarize if len(notes) > 1")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    ok(session, "goto 0")
    back = ok(session, "goto 2")  # the latest snapshot: where the run stopped inside
    assert back.stop is not None
    assert (back.stop.kind, [h.breakpoint.number for h in back.stop.hits]) == ("breakpoint", [1])
    assert back.message.endswith(
        "\nStopped before step 2 at breakpoint 1 (before research/summarize if len(notes) > 1)."
    )
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert [(t.name, t.status) for t in frame.tasks] == [("summarize", "pending")]
    assert hits(session)[1] == 1  # named again, not hit again
    asked = ok(session, "continue")  # re-enters the subgraph at its checkpoint
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert asked.ran == ("in subgraph research: summarize called interrupt()",)  # not gather


def test_an_older_snapshot_or_a_plain_pause_is_no_subgraph_stop() -> None:
    session, _stop = _to_the_question("break before research/summarize")
    older = ok(session, "goto 1")
    assert older.stop is not None and older.stop.kind == "goto"
    assert "Stopped" not in older.message
    plain = sample("nested", "native")
    ok(plain, "restart")
    ok(plain, "step")
    ok(plain, "step")  # paused before step 2 (research), not inside it
    back = ok(plain, "goto 2")
    assert back.stop is not None and back.stop.kind == "goto"
    assert current_frame(plain).breadcrumb == ""  # the root frame: no breadcrumb


def test_a_breakpoint_the_subgraph_was_compiled_with_stops_even_where_a_condition_is_false() -> (
    None
):
    from sgdebug.runtime import START, StateGraph
    from sgdebug.sample_graphs import nested

    from .engine_scenarios import session_on

    builder = StateGraph(nested.State)
    builder.add_node("plan", nested.plan)
    research = nested.build_research().compile(interrupt_before=["summarize"])
    builder.add_node("research", research)
    builder.add_node("write", nested.write)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "research")
    builder.add_edge("research", "write")
    session = session_on(builder.compile(), "native", nested.EXAMPLE_INPUT)
    ok(session, "break after research/gather if False")  # the same place: summarize next
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.stop is not None and stop.stop.hits == ()
    assert stop.message == "Stopped before step 2 at a breakpoint a subgraph was compiled with."
    assert current_frame(session).breadcrumb == "parent \u203a research"
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)
