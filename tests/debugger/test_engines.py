"""The same debugger scenarios on both engines: sgdebug's runtime and LangGraph itself.

Every test runs one program, built for each engine from the same factory, and asserts what
a user sees: outcomes, stops, state values, pending tasks, breakpoint hits, the history tree
and the reducer diff. Where the engines legitimately differ the test says which way, and
why, for each engine (LANGGRAPH_SEMANTICS.md is the reference for LangGraph's side).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import Event, Session, TaskRan
from sgdebug.debugger.results import EngineName
from sgdebug.sample_graphs._engines import api

from .engine_scenarios import (
    BUILT_WITH,
    EDIT_STEP,
    LINEAR,
    hits,
    last_changes,
    on_both,
    run,
    sample,
    session_on,
    state_writes,
    stopped,
    tree,
    values,
)
from .helpers import ok, refused

# -- stepping ---------------------------------------------------------------------------------


@on_both
def test_step_commits_one_superstep_and_shows_the_reducer_diff(engine: EngineName) -> None:
    session = sample("linear", engine)
    events: list[Event] = []
    session.subscribe(events.append)
    assert stopped(ok(session, "restart")) == ("paused", "start", 0)
    assert session.pending_tasks == ("__start__",)
    assert stopped(ok(session, "step")) == ("paused", "step", 1)
    assert values(session) == {"cur_id": "request-7", "logs": ["received request-7"]}
    assert session.pending_tasks == ("node_1",)
    outcome = ok(session, "step")
    assert stopped(outcome) == ("paused", "step", 2)
    assert [c.step for c in outcome.commits] == [1]
    assert session.pending_tasks == ("node_2",)
    validated = "request-7:validated"
    assert last_changes(session) == {
        "cur_id": ("request-7", [("node_1", validated)], validated),
        "logs": (
            ["received request-7"],
            [("node_1", ["node_1 validated request-7"])],
            ["received request-7", "node_1 validated request-7"],
        ),
    }
    ran = [e.task for e in events if isinstance(e, TaskRan)]
    assert [(t.name, state_writes(t.writes, session)) for t in ran][-1] == (
        "node_1",
        {"cur_id": validated, "logs": ["node_1 validated request-7"]},
    )


@on_both
def test_step_n_then_continue_runs_to_the_end_with_one_snapshot_per_step(
    engine: EngineName,
) -> None:
    session = sample("linear", engine)
    outcome = run(session, "restart", "step 2")
    assert [c.step for c in outcome.commits] == [0, 1]
    assert stopped(outcome) == ("paused", "step", 2)
    finished = ok(session, "continue")
    assert stopped(finished) == ("done", "done", 3)
    assert values(session)["cur_id"] == "request-7:validated:done"
    assert values(session)["logs"][-1] == "node_2 finished request-7:validated after 2 log lines"
    assert session.pending_tasks == ()
    assert tree(session) == LINEAR
    refused(session, "step")


# -- breakpoints ------------------------------------------------------------------------------


@on_both
def test_conditional_break_watch_and_tbreak_stop_where_they_match(engine: EngineName) -> None:
    session = sample("loop", engine)
    ok(session, "break before attempt if state['count'] >= 2")
    ok(session, "watch status if new == 'attempt 3'")
    ok(session, "tbreak after *")
    ok(session, "restart")
    first = ok(session, "continue")  # the tbreak: after the first step of a node (not START)
    assert stopped(first) == ("paused", "breakpoint", 2)
    assert first.stop is not None and [h.breakpoint.number for h in first.stop.hits] == [3]
    assert [bp.number for bp in session.breakpoints] == [0, 1, 2]  # deleted once fired
    second = ok(session, "continue")
    assert stopped(second) == ("paused", "breakpoint", 3)
    assert values(session) == {"count": 2, "status": "attempt 2"}
    assert session.pending_tasks == ("attempt",)
    watch = ok(session, "continue")
    assert stopped(watch) == ("paused", "breakpoint", 4)
    assert watch.stop is not None
    assert [(h.old, h.new) for h in watch.stop.hits] == [("attempt 2", "attempt 3")]
    assert session.pending_tasks == ("report",)
    assert stopped(ok(session, "continue")) == ("done", "done", 5)
    assert values(session) == {"count": 3, "status": "done after 3 attempts"}
    assert hits(session) == {0: 0, 1: 1, 2: 1}


@on_both
def test_break_before_every_node_skips_start_and_a_disabled_one_never_fires(
    engine: EngineName,
) -> None:
    session = sample("linear", engine)
    run(session, "break before *", "break after node_1", "disable 2", "restart")
    assert stopped(ok(session, "continue")) == ("paused", "breakpoint", 1)
    assert session.pending_tasks == ("node_1",)
    assert stopped(ok(session, "continue")) == ("paused", "breakpoint", 2)
    assert session.pending_tasks == ("node_2",)
    assert stopped(ok(session, "continue")) == ("done", "done", 3)
    assert hits(session) == {0: 0, 1: 2, 2: 0}


@on_both
def test_compile_time_interrupts_are_breakpoints_and_stop_the_run(engine: EngineName) -> None:
    compile = {"interrupt_before": ["node_2"], "interrupt_after": ["node_1"]}
    session = sample("linear", engine, compile=compile)
    shown = [(bp.kind, bp.target, bp.origin) for bp in session.breakpoints[1:]]
    assert shown == [("before", "node_2", "compile"), ("after", "node_1", "compile")]
    outcome = run(session, "restart", "continue")
    assert stopped(outcome) == ("paused", "breakpoint", 2)
    assert outcome.stop is not None
    assert sorted(h.breakpoint.number for h in outcome.stop.hits) == [1, 2]
    assert values(session)["cur_id"] == "request-7:validated"
    assert stopped(ok(session, "continue")) == ("done", "done", 3)


# -- edits ------------------------------------------------------------------------------------


@on_both
def test_set_bypasses_the_reducer_and_update_goes_through_it(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "step 2")
    before = len(session.history().value)
    edited = ok(session, "set logs = ['x']")
    assert stopped(edited) == ("paused", "edit", 2 + EDIT_STEP[engine])
    assert values(session)["logs"] == ["x"]
    ok(session, "update {'logs': ['y']}")
    assert values(session)["logs"] == ["x", "y"]
    assert session.pending_tasks == ("node_2",)  # the pending step keeps its nodes
    assert [e.source for e in session.history().value[before:]] == ["update", "update"]
    ok(session, "continue")
    assert values(session)["logs"][:2] == ["x", "y"]
    assert values(session)["logs"][2].startswith("node_2 finished")


def plan(session: Session) -> list[tuple[str, str, Any]]:
    """The pending tasks: node, state, and a Send's argument (others read the state)."""
    return [(t.name, t.state, t.input if t.send else None) for t in session.view().tasks]


KEPT = [
    # Send tasks keep their arguments (the conditional edge is not run again on new chunks).
    ("map_reduce", "step 2", "set chunks = ['x y', 'z']", "total_words", 28),
    # ``should_retry`` chose ``attempt`` on count 1: it runs, whatever the new count says.
    ("loop", "step 2", "set count = 5", "status", "done after 6 attempts"),
    # Before the input step: the input is still to be applied, through the reducer.
    ("fanout", "tasks", "set trail = ['q']", "trail", ["q", "a", "b", "c", "b_2", "d"]),
]


@on_both
@pytest.mark.parametrize(("name", "before", "edit", "key", "end"), KEPT)
def test_set_keeps_the_pending_tasks_and_their_inputs(
    engine: EngineName, name: str, before: str, edit: str, key: str, end: Any
) -> None:
    session = sample(name, engine)
    run(session, "restart", before)
    planned = plan(session)
    ok(session, edit)
    assert plan(session) == planned
    ok(session, "continue")
    assert values(session)[key] == end


@on_both
def test_update_as_a_node_runs_that_nodes_edges(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "step 2")
    as_first = ok(session, "update {'logs': ['z']} as node_1")
    # ``update_state`` is a step on both engines: the next one is numbered after it.
    assert stopped(as_first) == ("paused", "edit", 3)
    assert session.pending_tasks == ("node_2",)
    as_last = ok(session, "update {'logs': ['end']} as node_2")
    assert stopped(as_last) == ("done", "edit", 4)
    assert values(session)["logs"][-2:] == ["z", "end"]
    assert [(e.source, e.step) for e in session.history().value[-2:]] == [
        ("update", 2),
        ("update", 3),
    ]


@on_both
def test_a_refused_edit_changes_nothing(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "step 2")
    state, history = values(session), tree(session)
    assert "unknown key 'nope'" in refused(session, "set nope = 1").message
    assert "unknown key 'nope'" in refused(session, "update {'nope': 1}").message
    assert values(session) == state and tree(session) == history
    assert session.status == "paused" and session.pending_tasks == ("node_2",)


# -- history ----------------------------------------------------------------------------------


@on_both
def test_continuing_from_an_old_snapshot_forks_a_second_branch(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "continue")
    ended = values(session)
    assert stopped(ok(session, "goto 1")) == ("paused", "goto", 1)
    assert values(session) == {"cur_id": "request-7", "logs": ["received request-7"]}
    assert session.pending_tasks == ("node_1",)
    ok(session, "continue")
    assert values(session) == ended
    assert tree(session) == [
        *LINEAR,
        (1, "fork", 1, ()),
        (4, "loop", 2, ("node_1",)),
        (5, "loop", 3, ("node_2",)),
    ]
    assert [e.index for e in session.history().value if e.head] == [3, 6]


@on_both
def test_the_channel_table_shows_versions_live_and_at_a_snapshot_gone_back_to(
    engine: EngineName,
) -> None:
    """The ``ver`` column: what a step moved is seen there on both engines, live and on
    a stored snapshot (LangGraph's ``"000…03.0.52…"`` shown as 3)."""
    session = sample("linear", engine)

    def versions() -> dict[str, int | None]:
        return {row.name: row.version for row in session.engine.channel_rows(())}

    run(session, "restart", "step")
    after_input = versions()
    run(session, "step")
    after_node_1 = versions()
    assert set(after_input) == {"cur_id", "logs"}
    assert all(isinstance(v, int) for v in after_input.values())
    assert all((after_node_1[k] or 0) > (after_input[k] or 0) for k in after_input)  # (both moved)
    run(session, "continue", "goto 2")
    assert versions() == after_node_1


@on_both
def test_editing_an_old_snapshot_starts_a_branch(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "continue", "goto 2")
    # What node_2 did on the first branch is undone: it runs again.
    assert ok(session, "set cur_id = 'other'").message == "Set cur_id."
    assert session.pending_tasks == ("node_2",)
    ok(session, "continue")
    assert values(session)["cur_id"] == "other:done"
    # The native engine forks the old snapshot into a live run, then edits the run; LangGraph
    # writes the update right under the old snapshot (LANGGRAPH_SEMANTICS.md 5.7).
    branch = {
        "native": [(2, "fork", 2, ()), (4, "update", 2, ()), (5, "loop", 3, ("node_2",))],
        "langgraph": [(2, "update", 2, ()), (4, "loop", 3, ("node_2",))],
    }
    assert tree(session)[:4] == LINEAR
    assert tree(session)[4:] == branch[engine]
    assert session.history().value[3].head  # the first branch is still there


class _Joined(TypedDict):
    log: Annotated[list[str], operator.add]


@on_both
def test_a_joins_task_says_it_was_triggered_by_the_nodes_it_waited_for(
    engine: EngineName,
) -> None:
    """The tasks pane's "triggered by": LangGraph names a join's task trigger
    ``branch:to:NODE`` while the nodes wrote the join's own channel; both engines show the
    nodes."""
    from sgdebug.debugger.frame import current_frame

    lg = api(BUILT_WITH[engine])
    builder = lg.StateGraph(_Joined)
    for name in ("fetch", "parse", "done"):
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    builder.add_edge(lg.START, "fetch")
    builder.add_edge(lg.START, "parse")
    builder.add_edge(["fetch", "parse"], "done")
    session = session_on(builder.compile(), engine, {"log": []})
    run(session, "restart", "step", "step")
    (join,) = current_frame(session).tasks
    assert (join.name, join.sources) == ("done", ("fetch", "parse"))
