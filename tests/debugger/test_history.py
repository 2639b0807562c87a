"""History: listing snapshots as a tree, showing and diffing them, forks, in-place mutations."""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import Session, format_outcome, start_notes
from sgdebug.runtime import START, StateGraph
from sgdebug.sample_graphs import RUNS_ALONE

from .helpers import ok, refused
from .helpers import sample_session as session_for


def finished(name: str) -> Session:
    session = session_for(name)
    ok(session, "restart")
    ok(session, "continue")
    return session


def test_history_lists_snapshots_oldest_first_with_parents() -> None:
    session = finished("linear")
    entries = ok(session, "history").value
    assert [(e.index, e.step, e.source, e.ran) for e in entries] == [
        (0, -1, "input", ()),
        (1, 0, "loop", ("__start__",)),
        (2, 1, "loop", ("node_1",)),
        (3, 2, "loop", ("node_2",)),
    ]
    assert [e.parent_index for e in entries] == [None, 0, 1, 2]
    assert [e.current for e in entries] == [False, False, False, True]
    assert [e.head for e in entries] == [False, False, False, True]
    text = format_outcome(ok(session, "history"))
    assert text.splitlines()[-1].startswith("*   3  step 2")


def test_show_gives_the_snapshot_and_defaults_to_the_current_one() -> None:
    session = finished("linear")
    current = ok(session, "show").value
    assert current.values == session.state().value and current.next == ()
    old = ok(session, "show 1").value
    assert old.values == {"cur_id": "request-7", "logs": ["received request-7"]}
    assert old.next == ("node_1",) and old.metadata["source"] == "loop"
    assert "next: node_1" in format_outcome(ok(session, "show 1"))


def test_diff_compares_two_snapshots_key_by_key() -> None:
    session = finished("linear")
    default = ok(session, "diff")  # current vs its parent
    assert default.message == "diff 2 -> 3"
    assert default.value.channels == ("cur_id", "logs")
    first = ok(session, "diff 0 1")
    assert first.value.channels == ("cur_id", "logs")  # added, then changed
    assert format_outcome(first).splitlines() == [
        "diff 0 -> 1",
        "  + logs[0]: 'received request-7'",
        "  + cur_id: 'request-7'",
    ]
    assert ok(session, "diff 1").message == "diff 1 -> 3"
    assert ok(session, "diff 2 2").value.channels == ()
    assert format_outcome(ok(session, "diff 2 2")).splitlines() == ["diff 2 -> 2", "  no change"]
    assert "no snapshot 9" in refused(session, "diff 9").message


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_goto_then_continue_forks_a_new_branch_and_keeps_the_old(name: str) -> None:
    session = finished(name)
    final = session.state().value
    old = ok(session, "history").value
    outcome = ok(session, "goto 2")
    assert outcome.stop is not None and outcome.stop.kind == "goto"
    assert session.status == "paused"
    assert session.state().value == ok(session, "show 2").value.values
    assert all(t.state == "pending" for t in session.view().tasks)
    assert len(ok(session, "history").value) == len(old)  # looking adds nothing
    ok(session, "continue")
    values = session.state().value
    if name == "channels":  # remaining_steps: a fork is a new invocation with its own budget
        values["history"][-1] = re.sub(r"\d+ steps", "N steps", values["history"][-1])
        final["history"][-1] = re.sub(r"\d+ steps", "N steps", final["history"][-1])
    assert values == final  # the same program, run again
    new = ok(session, "history").value
    assert [e.checkpoint_id for e in new[: len(old)]] == [e.checkpoint_id for e in old]
    fork = new[len(old)]
    assert (fork.source, fork.parent_index) == ("fork", 2)
    assert [e.index for e in new if e.head] == [len(old) - 1, len(new) - 1]
    assert new[-1].current


def test_goto_the_latest_snapshot_continues_without_forking() -> None:
    session = session_for("loop")
    ok(session, "restart")
    ok(session, "step 2")
    count = len(ok(session, "history").value)
    ok(session, f"goto {count - 1}")
    ok(session, "step")
    entries = ok(session, "history").value
    assert len(entries) == count + 1 and entries[-1].source == "loop"


def test_goto_takes_a_checkpoint_id_or_a_unique_part_of_it() -> None:
    session = finished("linear")
    entries = ok(session, "history").value
    full = entries[1].checkpoint_id
    ok(session, f"goto {full}")
    assert session.view().checkpoint_id == full
    ok(session, f"goto {full[-16:-8]}{full[-8:]}")  # unique tail
    assert "several snapshots" in refused(session, f"goto {full[:4]}").message
    assert "no snapshot 'zzzz'" in refused(session, "goto zzzz").message
    ok(session, "goto -1")
    assert session.view().snapshot_index == len(entries) - 1


def test_goto_shows_the_pending_tasks_with_their_inputs() -> None:
    session = finished("map_reduce")
    entries = ok(session, "history").value
    after_split = next(e for e in entries if e.ran == ("split",))
    ok(session, f"goto {after_split.index}")
    tasks = ok(session, "tasks").value
    assert [t.name for t in tasks] == ["count_words"] * 3
    assert [t.input["index"] for t in tasks] == [0, 1, 2]
    assert all(t.send for t in tasks)


class Items(TypedDict, total=False):
    items: Annotated[list[str], operator.add]
    note: str


def mutating_graph() -> Any:
    def sneaky(state: Items) -> dict[str, Any]:
        state["items"].append("added in place")
        return {"note": "returned only a note"}

    builder = StateGraph(Items).add_node(sneaky)
    builder.add_edge(START, "sneaky")
    return builder.compile()


def test_an_in_place_mutation_is_reported_with_the_node() -> None:
    session = Session(mutating_graph(), input={"items": ["first"]})
    ok(session, "restart")
    ok(session, "step")
    outcome = ok(session, "step")
    assert any("'items' was changed in place" in n and "sneaky" in n for n in outcome.notes)
    mutations = session.view().mutations
    assert [(m.channel, m.nodes) for m in mutations] == [("items", ("sneaky",))]
    # The snapshot before the step keeps the value the node was given.
    assert ok(session, "show 1").value.values["items"] == ["first"]


def duplicating_graph() -> Any:
    def append_twice(state: Items) -> dict[str, Any]:
        state["items"].append("new")  # the classic bug: append in place, then return it
        return {"items": ["new"]}

    builder = StateGraph(Items).add_node(append_twice)
    builder.add_edge(START, "append_twice")
    return builder.compile()


def test_an_append_in_place_before_a_write_is_reported_as_written() -> None:
    session = Session(duplicating_graph(), input={"items": ["first"]})
    ok(session, "restart")
    ok(session, "step")
    outcome = ok(session, "step")
    assert session.view().values["items"] == ["first", "new", "new"]
    notes = [n for n in outcome.notes if "'items' in place" in n]
    assert notes == [
        "note: append_twice changed 'items' in place in step 1 and also wrote to it: the "
        "reducer added the write to the changed list (an item may appear twice)"
    ]
    mutations = session.view().mutations
    assert [(m.channel, m.nodes, m.written) for m in mutations] == [
        ("items", ("append_twice",), True)
    ]
    # Every snapshot holds what the run had: before the step, the list it was given.
    assert ok(session, "show 1").value.values["items"] == ["first"]
    assert ok(session, "show 2").value.values["items"] == ["first", "new", "new"]


def test_history_needs_a_run() -> None:
    session = session_for("linear")
    assert "no run yet" in refused(session, "history").message
    assert "no run yet" in refused(session, "goto 0").message


def test_start_notes_name_an_empty_input_only() -> None:
    empty = Session(mutating_graph(), input={})
    ok(empty, "restart")
    assert [n for n in start_notes(empty.view()) if "empty input {}" in n]
    given = Session(mutating_graph(), input={"items": ["first"]})
    ok(given, "restart")
    assert start_notes(given.view()) == ()
    assert start_notes(Session(mutating_graph()).view()) == ()  # no run yet: nothing to say


def failing_mutator_graph() -> Any:
    calls: list[int] = []

    def flaky(state: Items) -> dict[str, Any]:
        state["items"].append("leaked")  # changed in place, then the node raises
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first attempt fails")
        return {"note": "second attempt"}

    builder = StateGraph(Items).add_node(flaky)
    builder.add_edge(START, "flaky")
    return builder.compile()


def test_a_change_in_place_by_a_node_that_raised_is_reported_at_the_error() -> None:
    session = Session(failing_mutator_graph(), input={"items": ["first"]})
    ok(session, "restart")
    ok(session, "step")
    outcome = ok(session, "step")
    assert outcome.status == "error"
    assert any("'items' was changed in place" in n and "flaky" in n for n in outcome.notes)
    # Nothing was committed, but the live value holds the change, and the snapshot the
    # step started from does not.
    assert session.view().values["items"] == ["first", "leaked"]
    assert ok(session, "show 1").value.values["items"] == ["first"]
    retried = ok(session, "retry")
    assert session.view().values["items"] == ["first", "leaked", "leaked"]
    assert not any("'items'" in n for n in retried.notes)  # the same change, reported once
