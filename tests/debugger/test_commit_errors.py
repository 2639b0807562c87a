"""Errors outside a node's body are a failed step, on both engines: a reducer that raises at
commit, two writes to a plain key, a state schema rejecting a task's input. The session
stands before the step (status ``error``), names the channel and the nodes that wrote it,
every view shows the state before the step, and an edit then ``retry`` runs it again; a
session file holding such a step reopens at it.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel

from sgdebug.debugger import ErrorInfo, Outcome, Session, SessionOptions, Target, run_line
from sgdebug.debugger.channel_layout import channel_layout, layout_notes
from sgdebug.debugger.results import EngineName
from sgdebug.debugger.session_file import SessionFile, SessionFileError, SessionRecord
from sgdebug.sample_graphs import api

from .engine_scenarios import BUILT_WITH, EDIT_STEP, on_both, run, session_on, stopped, values
from .helpers import ok, refused


class Modes(TypedDict, total=False):
    mode: str
    log: Annotated[list[str], operator.add]


def writers(engine: EngineName) -> Any:
    """``START -> a -> {b, c}``: ``b`` and ``c`` write a bare string to the list ``log``
    (which ``operator.add`` rejects) while ``mode`` is ``"bad"``."""
    lg = api(BUILT_WITH[engine])

    def writer(name: str) -> Callable[[Modes], dict[str, Any]]:
        def node(state: Modes) -> dict[str, Any]:
            return {"log": name if state.get("mode") == "bad" else [name]}

        return node

    builder = lg.StateGraph(Modes)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", writer("b"))
    builder.add_node("c", writer("c"))
    builder.add_edge(lg.START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    return builder.compile()


class Pair(TypedDict, total=False):
    x: int
    solo: bool


def both_write_x(engine: EngineName) -> Any:
    """``START -> {p, q}``: both write the plain key ``x`` unless ``solo`` is set."""
    lg = api(BUILT_WITH[engine])
    builder = lg.StateGraph(Pair)
    builder.add_node("p", lambda state: {"x": 1})
    builder.add_node("q", lambda state: {} if state.get("solo") else {"x": 2})
    builder.add_edge(lg.START, "p")
    builder.add_edge(lg.START, "q")
    return builder.compile()


class Strict(BaseModel):
    x: int
    log: Annotated[list[str], operator.add] = []


def strict(engine: EngineName) -> Any:
    """A pydantic state, ``START -> a -> b``."""
    lg = api(BUILT_WITH[engine])
    builder = lg.StateGraph(Strict)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": ["b"]})
    builder.add_edge(lg.START, "a")
    builder.add_edge("a", "b")
    return builder.compile()


def error_of(outcome: Outcome) -> ErrorInfo:
    assert outcome.stop is not None and outcome.stop.error is not None
    return outcome.stop.error


# -- at commit --------------------------------------------------------------------------------


@on_both
def test_a_reducer_that_raises_is_a_failed_step_naming_the_channel_and_writers(
    engine: EngineName,
) -> None:
    session = session_on(writers(engine), engine, {"mode": "bad"})
    failed = run(session, "restart", "continue")
    assert stopped(failed) == ("error", "exception", 2)
    assert failed.message.startswith(
        "Step 2 could not commit: the reducer of 'log' (operator.add) raised TypeError on "
        'the writes of b, c: can only concatenate list (not "str") to list'
    )
    error = error_of(failed)
    assert (error.phase, error.channel, error.writers, error.node) == (
        "commit", "log", ("b", "c"), None
    )  # fmt: skip
    assert failed.stop is not None
    assert [h.breakpoint.number for h in failed.stop.hits] == [0]  # the on-exception stop
    assert values(session) == {"mode": "bad", "log": ["a"]}  # the state before the step
    assert error.state == {"mode": "bad", "log": ["a"]}
    tasks = session.view().tasks
    assert [(t.name, t.state) for t in tasks] == [("b", "done"), ("c", "done")]
    refused(session, "step")
    ok(session, "set mode = 'good'")
    assert stopped(ok(session, "retry")) == ("done", "done", 3 + EDIT_STEP[engine])
    assert values(session) == {"mode": "good", "log": ["a", "b", "c"]}


@on_both
def test_two_writes_to_a_plain_key_fail_the_step_and_an_edit_fixes_it(engine: EngineName) -> None:
    session = session_on(both_write_x(engine), engine, {"x": 0})
    failed = run(session, "restart", "continue")
    assert stopped(failed) == ("error", "exception", 1)
    assert failed.message.startswith(
        "Step 1 could not commit: the channel 'x' (LastValue) raised InvalidUpdateError on "
        "the writes of p, q: At key 'x': Can receive only one value per step."
    )
    assert error_of(failed).error_type == "InvalidUpdateError"
    assert values(session) == {"x": 0}
    again = ok(session, "retry")  # the same writes fail the same way
    assert stopped(again) == ("error", "exception", 1) and again.message == failed.message
    ok(session, "set solo = True")
    assert stopped(ok(session, "retry")) == ("done", "done", 2 + EDIT_STEP[engine])
    assert values(session) == {"x": 1, "solo": True}


@on_both
def test_a_value_set_that_the_reducer_rejects_fails_the_next_commit(engine: EngineName) -> None:
    session = session_on(writers(engine), engine, {"mode": "good"})
    run(session, "restart", "step 2")
    ok(session, "set log = 5")  # replaces the list (no reducer): ``5 + [...]`` fails later
    failed = ok(session, "continue")
    assert stopped(failed)[:2] == ("error", "exception")
    assert "the reducer of 'log' (operator.add) raised TypeError on the writes of b, c" in (
        failed.message
    )
    assert values(session) == {"mode": "good", "log": 5}
    ok(session, "set log = []")
    ok(session, "retry")
    assert values(session) == {"mode": "good", "log": ["b", "c"]}


@on_both
def test_an_update_the_reducer_rejects_is_refused_and_changes_nothing(engine: EngineName) -> None:
    session = session_on(writers(engine), engine, {"mode": "good"})
    run(session, "restart", "step 2")
    before, count = values(session), len(session.history().value)
    outcome = refused(session, "update {'log': 5}")
    assert outcome.message.startswith(
        "state not changed: the reducer of 'log' (operator.add) rejects it: TypeError:"
    )
    assert values(session) == before and len(session.history().value) == count
    assert stopped(ok(session, "continue")) == ("done", "done", 3)


# -- the state schema rejecting a task's input ---------------------------------------------


@on_both
def test_a_schema_rejecting_the_input_fails_the_first_step_and_set_then_retry_runs_it(
    engine: EngineName,
) -> None:
    session = session_on(strict(engine), engine, {"x": "abc"})
    failed = run(session, "restart", "continue")
    assert stopped(failed) == ("error", "exception", 1)
    assert failed.message.startswith(
        "Step 1 could not start: the input of node 'a' failed (the state schema rejects 'x'): "
        "ValidationError: 1 validation error for Strict"
    )
    error = error_of(failed)
    assert (error.phase, error.node, error.channel) == ("plan", "a", "x")
    assert values(session) == {"x": "abc", "log": []}
    ok(session, "set x = 1")
    assert stopped(ok(session, "retry")) == ("paused", "step", 2)  # ``a`` ran
    ok(session, "continue")
    assert values(session) == {"x": 1, "log": ["a", "b"]}


# -- no view raises it again ----------------------------------------------------------------


def look_everywhere(session: Session) -> None:
    """Every query a front end makes; none may raise."""
    view = session.view()
    assert view.status in ("error", "failed")
    for line in ("state", "tasks", "history", "show", "show 1", "diff", "graph", "breaks",
                 "print state", "print snapshot.values", "print tasks", "print error"):  # fmt: skip
        outcome = run_line(session, line)
        assert outcome is not None and outcome.ok, (line, outcome)
    session.engine.channel_rows(())
    session.engine.snapshot()
    session.engine.failure()


@on_both
@pytest.mark.parametrize("catch", [True, False])
def test_every_view_shows_the_state_before_the_failed_step(engine: EngineName, catch: bool) -> None:
    session = session_on(writers(engine), engine, {"mode": "bad"})
    if not catch:
        ok(session, "disable 0")  # the run fails: no post-mortem stop
    failed = run(session, "restart", "continue")
    assert failed.status == ("error" if catch else "failed")
    look_everywhere(session)
    assert values(session) == {"mode": "bad", "log": ["a"]}
    assert session.show().value.values == {"mode": "bad", "log": ["a"]}
    assert stopped(ok(session, "restart")) == ("paused", "start", 0)
    assert session.thread_id == "thread-2"


# -- session files ----------------------------------------------------------------------------


def file_session(
    path: Path,
    graph: Any,
    engine: EngineName,
    *,
    first: int = 1,
    input: Any = None,
    **options: Any,
) -> Session:
    """A session keeping its history in the session file at ``path`` (as ``--session``);
    its runs are threads ``t<first>``, ``t<first + 1>``..."""
    input = {"mode": "bad"} if input is None else input
    store = SessionFile.open(path)
    if store.record is None:
        store.save(SessionRecord("app:graph", str(path.parent), input))
    saver = store.saver if engine == "native" else store.langgraph_saver()
    counter = itertools.count(first)
    opts = SessionOptions(thread_ids=lambda: f"t{next(counter)}", **options)
    return Session(Target(graph, {}, "g"), input=input, saver=saver, store=store, options=opts)


def close(session: Session) -> None:
    assert isinstance(session.store, SessionFile)
    session.store.close()


@on_both
def test_a_session_file_holding_a_failed_commit_reopens_at_it(
    engine: EngineName, tmp_path: Path
) -> None:
    path = tmp_path / "debug.sgdb"
    first = file_session(path, writers(engine), engine)
    failed = run(first, "restart", "continue")
    close(first)
    again = file_session(path, writers(engine), engine)
    reopened = again.attach("t1")
    assert reopened.status == "error"
    assert failed.message.split("\n")[0] in reopened.message
    error = error_of(reopened)
    assert (error.channel, error.writers) == ("log", ("b", "c"))
    look_everywhere(again)
    assert values(again) == {"mode": "bad", "log": ["a"]}
    ok(again, "set mode = 'good'")
    assert stopped(ok(again, "retry"))[:2] == ("done", "done")
    assert values(again) == {"mode": "good", "log": ["a", "b", "c"]}
    close(again)


@on_both
def test_a_session_file_holding_a_step_whose_input_fails_reopens_at_it(
    engine: EngineName, tmp_path: Path
) -> None:
    path = tmp_path / "debug.sgdb"
    first = file_session(path, strict(engine), engine, input={"x": "abc"})
    run(first, "restart", "continue")
    close(first)
    again = file_session(path, strict(engine), engine, input={"x": "abc"})
    reopened = again.attach("t1")
    assert reopened.status == "error"
    assert (error_of(reopened).phase, error_of(reopened).node) == ("plan", "a")
    look_everywhere(again)
    assert values(again) == {"x": "abc", "log": []}
    run(again, "set x = 1", "retry", "continue")
    assert values(again) == {"x": 1, "log": ["a", "b"]}
    close(again)


class Changed(TypedDict, total=False):
    mood: str
    log: Annotated[list[str], lambda old, new: old + new]


def changed(engine: EngineName) -> Any:
    """:func:`writers`' graph after the user changed it: ``mode`` became ``mood``, and
    ``log`` has a reducer of its own."""
    lg = api(BUILT_WITH[engine])
    builder = lg.StateGraph(Changed)
    builder.add_node("a", lambda state: {"log": ["a2"]})
    builder.add_edge(lg.START, "a")
    return builder.compile()


@on_both
def test_a_session_reopened_with_a_changed_graph_says_which_keys_differ(
    engine: EngineName, tmp_path: Path
) -> None:
    path = tmp_path / "debug.sgdb"
    first = file_session(path, writers(engine), engine)
    run(first, "restart", "continue")
    close(first)
    store = SessionFile.open(path)
    saved = store.record.channels if store.record is not None else None
    store.close()
    assert saved == {"mode": "LastValue", "log": "BinaryOperatorAggregate(operator.add)"}
    again = file_session(path, changed(engine), engine, first=2, saved_channels=saved)
    assert again.attach("t1").ok
    (note,) = again.view().notes
    assert note.startswith(
        "note: the graph's state changed since this session was saved: added 'mood'; "
        "removed 'mode' (stored values ignored); changed 'log' "
        "(BinaryOperatorAggregate(operator.add) -> BinaryOperatorAggregate(<lambda>))"
    )
    assert values(again)["log"] == ["a"]  # what the old graph stored, where it still fits
    assert stopped(ok(again, "restart"))[0] == "paused"
    ok(again, "continue")
    assert values(again) == {"log": ["a2"]}
    close(again)
    with SessionFile.open(path) as reopened:  # the new thread's graph is the one saved now
        assert reopened.record is not None and reopened.record.channels == {
            "mood": "LastValue", "log": "BinaryOperatorAggregate(<lambda>)"
        }  # fmt: skip


def test_a_crafted_layout_row_is_refused_as_damaged(tmp_path: Path) -> None:
    path = tmp_path / "debug.sgdb"
    with SessionFile.open(path) as store:
        store.save(SessionRecord("app:graph", str(tmp_path), {}, channels={"log": "LastValue"}))
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("UPDATE session SET value = '{\"log\": 5}' WHERE key = 'channels'")
    with (
        pytest.raises(SessionFileError, match="row 'channels' of its session table"),
        SessionFile.open(path) as store,
    ):
        assert store.record is not None


def test_the_same_layout_says_nothing() -> None:
    session = session_on(writers("native"), "native", {})
    layout = channel_layout(session.model)
    assert layout_notes(layout, layout) == ()
