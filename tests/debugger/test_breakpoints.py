"""Breakpoints on every sample graph: before/after, conditional, watch, temporary, toggles."""

from __future__ import annotations

from typing import Any

import pytest

from sgdebug.debugger import Breakpoint, BreakpointError, Session
from sgdebug.debugger.breakpoints import BreakpointTable
from sgdebug.runtime.channels import MISSING
from sgdebug.sample_graphs import RUNS_ALONE

from .helpers import ok, refused, sample_session

# A node of each sample that runs after at least one other node.
NODE = {
    "linear": "node_2",
    "overwrite": "compact",
    "multi_schema": "think",
    "channels": "react",
    "fanout": "b_2",
    "map_reduce": "count_words",
    "loop": "attempt",
    "chatbot": "tools",
}
# A channel of each sample that some step changes, and a condition on its new value.
WATCH = {
    "linear": ("logs", "len(new) == 3"),
    "overwrite": ("notes", "len(new) == 1"),
    "multi_schema": ("scratchpad", "new.startswith('reducers')"),
    "channels": ("signal", "new is MISSING"),
    "fanout": ("joined", "'+' in new"),
    "map_reduce": ("total_words", "new > 0"),
    "loop": ("count", "new == 2"),
    "chatbot": ("messages", "len(new) == 4"),
}


def final_values(name: str) -> Any:
    session = session_for(name)
    ok(session, "restart")
    ok(session, "continue")
    return session.state().value


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_break_before_stops_before_the_whole_superstep(name: str) -> None:
    session = session_for(name)
    node = NODE[name]
    set_ = ok(session, f"break before {node}")
    assert isinstance(set_.value, Breakpoint) and set_.value.number == 1
    ok(session, "restart")
    outcome = ok(session, "continue")
    stop = outcome.stop
    assert stop is not None and stop.kind == "breakpoint"
    assert [h.breakpoint.number for h in stop.hits] == [1]
    assert stop.hits[0].nodes == (node,)
    assert node in session.pending_tasks
    assert all(t.state == "pending" for t in session.view().tasks)  # nothing of it ran
    assert session.breakpoints[1].hits == 1
    ok(session, "delete 1")
    ok(session, "continue")
    assert session.state().value == final_values(name)


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_break_after_stops_once_the_superstep_committed(name: str) -> None:
    session = session_for(name)
    node = NODE[name]
    ok(session, f"b after {node}")
    ok(session, "restart")
    outcome = ok(session, "continue")
    stop = outcome.stop
    assert stop is not None and stop.hits[0].nodes == (node,)
    # After the last node the run has also finished: the stop says so, with the hit.
    assert stop.kind == ("done" if outcome.status == "done" else "breakpoint")
    assert outcome.status == ("done" if name == "linear" else "paused")
    assert f"after {node}" in outcome.message
    commit = session.view().last_commit
    assert commit is not None and node in commit.tasks
    history = ok(session, "history").value
    assert node in history[-1].ran


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_watch_stops_after_a_step_that_changed_the_channel_as_asked(name: str) -> None:
    channel, condition = WATCH[name]
    session = session_for(name)
    ok(session, f"watch {channel} if {condition}")
    ok(session, "restart")
    outcome = ok(session, "continue")
    stop = outcome.stop
    assert stop is not None and stop.hits, outcome.message
    hit = stop.hits[0]
    assert hit.breakpoint.kind == "watch" and hit.breakpoint.target == channel
    assert hit.old != hit.new
    assert hit.condition_error is None
    commit = session.view().last_commit
    assert commit is not None
    assert channel in {c.channel for c in commit.changes}
    assert f"watch {channel}" in outcome.message


def test_watch_without_condition_fires_on_every_change() -> None:
    session = session_for("loop")
    ok(session, "watch count")
    ok(session, "restart")
    seen = []
    while (outcome := ok(session, "continue")).status == "paused":
        assert outcome.stop is not None
        seen.append((outcome.stop.hits[0].old, outcome.stop.hits[0].new))
    assert seen == [(MISSING, 0), (0, 1), (1, 2), (2, 3)]


def test_conditional_break_fires_only_when_the_condition_holds() -> None:
    session = session_for("loop")
    ok(session, "break before attempt if state['count'] == 2")
    ok(session, "restart")
    ok(session, "continue")
    assert session.state().value["count"] == 2
    assert ok(session, "continue").status == "done"
    assert session.breakpoints[1].hits == 1


def test_tbreak_fires_once_then_is_gone() -> None:
    session = session_for("loop")
    outcome = ok(session, "tbreak before attempt")
    assert outcome.value.temporary
    ok(session, "restart")
    first = ok(session, "continue")
    assert first.stop is not None and first.stop.hits[0].breakpoint.temporary
    assert [b.number for b in session.breakpoints] == [0]
    assert ok(session, "continue").status == "done"


def test_disabled_breakpoints_do_not_fire_until_enabled() -> None:
    session = session_for("loop")
    ok(session, "break before attempt")
    ok(session, "disable 1")
    assert not session.breakpoints[1].enabled
    ok(session, "restart")
    ok(session, "step 2")  # __start__, then the first attempt: the next one is pending
    ok(session, "enable 1")
    outcome = ok(session, "continue")  # runs the pending attempt, stops before the next
    assert outcome.stop is not None and outcome.stop.kind == "breakpoint"
    assert session.state().value["count"] == 2


def test_delete_all_keeps_the_exception_breakpoint() -> None:
    session = session_for("linear")
    ok(session, "break before node_1")
    ok(session, "watch logs")
    ok(session, "delete all")
    assert [b.number for b in session.breakpoints] == [0]
    assert "cannot be deleted" in refused(session, "delete 0").message
    assert "no breakpoint number 7" in refused(session, "disable 7").message
    ok(session, "break before node_2")
    assert session.breakpoints[-1].number == 3  # numbers are never reused


def test_star_breaks_before_every_node() -> None:
    session = session_for("linear")
    ok(session, "break before *")
    ok(session, "restart")
    stops = []
    while ok(session, "continue").status == "paused":
        stops.append(session.pending_tasks)
    assert stops == [("node_1",), ("node_2",)]


def test_several_breakpoints_in_one_step_are_all_reported() -> None:
    session = session_for("fanout")
    ok(session, "break before b")
    ok(session, "break before c")
    ok(session, "restart")
    outcome = ok(session, "continue")
    assert outcome.stop is not None
    assert [(h.breakpoint.number, h.nodes) for h in outcome.stop.hits] == [
        (1, ("b",)),
        (2, ("c",)),
    ]


def test_a_condition_that_raises_stops_and_says_why() -> None:
    session = session_for("linear")
    ok(session, "break before node_2 if state['missing'] > 1")
    ok(session, "restart")
    outcome = ok(session, "continue")
    assert outcome.stop is not None
    hit = outcome.stop.hits[0]
    assert hit.condition_error == "KeyError: 'missing'"
    assert "condition failed" in outcome.message


def test_bad_breakpoints_are_refused() -> None:
    session = session_for("linear")
    assert "no node named 'nope'" in refused(session, "break before nope").message
    assert "no channel named 'nope'" in refused(session, "watch nope").message
    assert "bad condition" in refused(session, "break after node_1 if state[").message
    assert [b.number for b in session.breakpoints] == [0]


def test_graph_marks_breakpoints_and_pending_nodes() -> None:
    session = session_for("linear")
    ok(session, "break before node_1")
    ok(session, "break after node_2")
    ok(session, "restart")
    ok(session, "step")
    marks = {n.name: n for n in ok(session, "graph").value.nodes}
    assert marks["node_1"].before and marks["node_1"].pending and not marks["node_1"].after
    assert marks["node_2"].after and not marks["node_2"].pending
    ok(session, "disable 1")
    marks = {n.name: n for n in ok(session, "graph").value.nodes}
    assert not marks["node_1"].before


# -- the table ------------------------------------------------------------------------------


def test_table_numbers_like_pdb_and_round_trips_through_dicts() -> None:
    table = BreakpointTable()
    first = table.add("before", "a", "x > 1")
    second = table.add("watch", "log", temporary=True)
    assert (first.number, second.number) == (1, 2)
    assert first.describe() == "before a if x > 1"
    assert second.describe() == "watch log"
    restored = BreakpointTable([Breakpoint.from_dict(b.to_dict()) for b in table.all])
    assert restored.all == table.all
    assert restored.add("after", "b").number == 3
    assert table.record_hit(second) is not None
    assert 2 not in table.numbers()  # temporary: gone after its hit
    with pytest.raises(BreakpointError):
        table.add("exception", "")
    with pytest.raises(BreakpointError):
        table.get(99)


def session_for(name: str) -> Session:
    return sample_session(name, extra={"MISSING": MISSING})
