"""Conditions and watches inside a subgraph (both engines): ``break before
research/summarize if len(notes) > 1``, ``watch research/notes``."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.debugger import Session
from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.render import describe_hit
from sgdebug.debugger.results import EngineName
from sgdebug.runtime.channels import MISSING
from sgdebug.sample_graphs._engines import api

from .engine_scenarios import BUILT_WITH, hits, on_both, sample, stopped, tree, values
from .helpers import ok, refused

NOTES = ["gather: how heat pumps work", "gather: what heat pumps cost"]


def _checkpoints(session: Session) -> list[tuple[str, int, str]]:
    """Every checkpoint of the session's thread, root and subgraph ones: (the node of its
    namespace, step, source), newest first as the saver lists them."""
    engine = session.engine
    saver = getattr(engine, "saver", None) or engine.compiled.checkpointer  # type: ignore[attr-defined]
    out = []
    for found in saver.list({"configurable": {"thread_id": session.engine.thread_id}}):
        namespace = found.config["configurable"].get("checkpoint_ns", "")
        out.append((namespace.split(":")[0], found.metadata["step"], found.metadata["source"]))
    return out


def _to_the_question(engine: EngineName, *lines: str) -> tuple[Session, Any]:
    session = sample("nested", engine)
    for line in lines:
        ok(session, line)
    ok(session, "restart")
    return session, ok(session, "continue")


@on_both
def test_a_true_condition_on_an_inner_breakpoint_stops_there_reading_the_subgraphs_channels(
    engine: EngineName,
) -> None:
    session, stop = _to_the_question(engine, "break before research/summarize if len(notes) > 1")
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


@on_both
def test_a_false_condition_lets_the_run_go_on_and_stores_what_a_run_without_it_stores(
    engine: EngineName,
) -> None:
    plain, asked_plain = _to_the_question(engine)
    session, asked = _to_the_question(engine, "break before research/summarize if len(notes) > 5")
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


@on_both
def test_a_false_tbreak_is_kept_for_the_next_time(engine: EngineName) -> None:
    session, asked = _to_the_question(engine, "tbreak after research/gather if not notes")
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert [bp.number for bp in session.breakpoints] == [0, 1]


@on_both
def test_a_condition_that_raises_at_the_stop_stops_and_says_why(engine: EngineName) -> None:
    _session, stop = _to_the_question(engine, "break after research/gather if notes[5] == 'x'")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.stop is not None
    (hit,) = stop.stop.hits
    assert hit.condition_error == "IndexError: list index out of range"
    assert "[condition failed: IndexError: list index out of range]" in stop.message


@on_both
def test_a_condition_is_checked_against_the_subgraphs_channels_when_set(engine: EngineName) -> None:
    session = sample("nested", engine)
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


@on_both
def test_a_watch_on_a_subgraphs_channel_stops_after_the_step_that_changed_it(
    engine: EngineName,
) -> None:
    session, stop = _to_the_question(engine, "watch research/notes")
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


@on_both
def test_a_watch_sees_the_subgraphs_last_step_and_old_new_in_its_condition(
    engine: EngineName,
) -> None:
    session, asked = _to_the_question(engine, "watch research/summary if new.startswith('2 notes')")
    assert stopped(asked) == ("interrupted", "interrupt", 2)  # gather left summary alone
    stop = ok(session, "resume 'costs'")
    assert stopped(stop) == ("paused", "breakpoint", 2)  # still in the parent's step 2
    assert stop.stop is not None
    (hit,) = stop.stop.hits
    assert (hit.old, hit.new) == (MISSING, "2 notes, seen from costs")
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert frame.tasks == ()  # the subgraph's last step: nothing left to run in it
    # the question was answered: no task waits for an answer (LangGraph's parent snapshot
    # still lists it until research finishes)
    assert session.view().interrupts == ()
    assert [(t.name, t.interrupts) for t in session.view().tasks] == [("research", ())]
    assert ok(session, "continue").status == "done"
    assert values(session)["report"] == "Report on heat pumps: 2 notes, seen from costs"


@on_both
def test_a_watch_whose_condition_is_false_does_not_stop(engine: EngineName) -> None:
    session, asked = _to_the_question(engine, "watch research/notes if len(new) > len(old) + 2")
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert hits(session)[1] == 0


@on_both
def test_a_disabled_watch_no_longer_stops_the_run(engine: EngineName) -> None:
    session, stop = _to_the_question(engine, "watch research/notes")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    ok(session, "disable 1")
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)


@on_both
def test_a_watch_names_a_channel_of_that_subgraph(engine: EngineName) -> None:
    session = sample("nested", engine)
    assert refused(session, "watch research/report").message == (
        "no channel named 'report' in research (its channels: topic, notes, summary)"
    )
    message = refused(session, "watch research/notes if len(report) > 1").message
    assert "'report' is not defined in parent \u203a research" in message
    assert [bp.number for bp in session.breakpoints] == [0]


@on_both
def test_going_back_to_a_stop_inside_a_subgraph_shows_that_stop_and_re_enters_it(
    engine: EngineName,
) -> None:
    session, stop = _to_the_question(engine, "break before research/summarize if len(notes) > 1")
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


@on_both
def test_an_older_snapshot_or_a_plain_pause_is_no_subgraph_stop(engine: EngineName) -> None:
    session, _stop = _to_the_question(engine, "break before research/summarize")
    older = ok(session, "goto 1")
    assert older.stop is not None and older.stop.kind == "goto"
    assert "Stopped" not in older.message
    plain = sample("nested", engine)
    ok(plain, "restart")
    ok(plain, "step")
    ok(plain, "step")  # paused before step 2 (research), not inside it
    back = ok(plain, "goto 2")
    assert back.stop is not None and back.stop.kind == "goto"
    assert current_frame(plain).breadcrumb == ""  # the root frame: no breadcrumb


@on_both
def test_a_breakpoint_the_subgraph_was_compiled_with_stops_even_where_a_condition_is_false(
    engine: EngineName,
) -> None:
    from sgdebug.sample_graphs import nested

    from .engine_scenarios import session_on

    lg = api(BUILT_WITH[engine])
    builder = lg.StateGraph(nested.State)
    builder.add_node("plan", nested.plan)
    research = nested.build_research(BUILT_WITH[engine]).compile(interrupt_before=["summarize"])
    builder.add_node("research", research)
    builder.add_node("write", nested.write)
    builder.add_edge(lg.START, "plan")
    builder.add_edge("plan", "research")
    builder.add_edge("research", "write")
    session = session_on(builder.compile(), engine, nested.EXAMPLE_INPUT)
    ok(session, "break after research/gather if False")  # the same place: summarize next
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stopped(stop) == ("paused", "breakpoint", 2)
    assert stop.stop is not None and stop.stop.hits == ()
    assert stop.message == (
        "Stopped in research before summarize (step 2 of research), at a breakpoint the "
        "subgraph was compiled with."
    )
    assert current_frame(session).breadcrumb == "parent \u203a research"
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)


@on_both
def test_a_watch_and_a_condition_two_subgraphs_deep(engine: EngineName) -> None:
    from sgdebug.sample_graphs import nested

    from .engine_scenarios import session_on

    lg = api(BUILT_WITH[engine])
    outer = lg.StateGraph(nested.State)
    outer.add_node("outer", nested.build(BUILT_WITH[engine]).compile())
    outer.add_edge(lg.START, "outer")
    session = session_on(outer.compile(), engine, nested.EXAMPLE_INPUT)
    assert (
        "its channels: topic, notes, summary" in refused(session, "watch outer/research/x").message
    )
    ok(session, "watch outer/research/notes if len(new) == 2")
    ok(session, "break before outer/research/summarize if notes and topic")
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stop.stop is not None
    assert [h.breakpoint.number for h in stop.stop.hits] == [2, 1]
    assert current_frame(session).breadcrumb == "parent \u203a outer \u203a research"
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 1)


class Log(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _beside_a_subgraph(engine: EngineName) -> Any:
    """``a``, then ``sub`` (``i1 -> i2``) and ``side`` in one step, all appending to ``log``."""
    lg = api(BUILT_WITH[engine])
    START, StateGraph = lg.START, lg.StateGraph

    def node(name: str) -> Any:
        return lambda state: {"log": [name]}

    sub = StateGraph(Log)
    sub.add_node("i1", node("i1"))
    sub.add_node("i2", node("i2"))
    sub.add_edge(START, "i1")
    sub.add_edge("i1", "i2")
    top = StateGraph(Log)
    top.add_node("a", node("a"))
    top.add_node("sub", sub.compile())
    top.add_node("side", node("side"))
    top.add_edge(START, "a")
    top.add_edge("a", "sub")
    top.add_edge("a", "side")
    return top.compile()


@on_both
def test_going_on_past_a_stop_applies_a_sibling_tasks_writes_once(engine: EngineName) -> None:
    from .engine_scenarios import session_on

    plain = _beside_a_subgraph(engine).invoke({"log": []})
    assert plain == {"log": ["a", "side", "a", "i1", "i2"]}  # (sub writes back its whole log)
    for line in ("break after sub/i1 if False", "watch sub/log if False"):
        session = session_on(_beside_a_subgraph(engine), engine, {"log": []})
        ok(session, line)
        ok(session, "restart")
        assert ok(session, "continue").status == "done"
        assert values(session) == plain, line
