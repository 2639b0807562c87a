"""A subgraph a node's function invokes (``sub.invoke(...)`` in the node), on both engines:
its tasks in the log, the stop at its ``interrupt()`` in its frame, ``up``/``down``,
``state``/``tasks`` and edits there, and ``resume``."""

from __future__ import annotations

import re

from sgdebug.debugger import Session
from sgdebug.debugger.engines._native_subgraphs import SubgraphUse
from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.results import EngineName

from .engine_scenarios import calls_review, on_both, run, stopped, values
from .helpers import ok, refused

SCRIPT = (
    "restart", "continue", "where", "state", "tasks", "up", "state", "tasks", "where", "down",
    "set verdict = 'edited'", "update {'draft': 'shorter'}", "state", "resume 'yes'", "state",
)  # fmt: skip
"""A user's walk through the stop inside the subgraph and past it."""


def _said(session: Session, lines: tuple[str, ...]) -> list[tuple[str, object, tuple[str, ...]]]:
    """What each line answered (message without interrupt ids, value of `state` and
    `where`, task reports)."""
    out = []
    for line in lines:
        outcome = ok(session, line)
        message = re.sub(r"id [0-9a-f]+", "id ?", outcome.message)
        out.append((message, outcome.value if line in ("state", "where") else None, outcome.ran))
    return out


def test_both_engines_answer_a_walk_through_the_called_subgraph_alike() -> None:
    native, langgraph = (_said(calls_review(e), SCRIPT) for e in ("native", "langgraph"))
    assert native == langgraph
    assert native[1][2] == (
        "in subgraph call_sub: write wrote draft",
        "in subgraph call_sub: review called interrupt()",
    )
    assert native[-1][1] == {"topic": "t", "result": "yes!"}


@on_both
def test_the_run_stops_in_the_frame_of_the_subgraph_the_node_invokes(engine: EngineName) -> None:
    session = calls_review(engine)
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 1)
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a call_sub"
    assert frame.subgraph is not None and frame.subgraph.path == ("call_sub",)
    assert frame.subgraph.graph is not None and frame.subgraph.note == ""
    assert [(r.name, r.value, r.kind) for r in frame.channels] == [
        ("draft", "t (written)", "LastValue"), ("verdict", "", "LastValue")
    ]  # fmt: skip
    assert [(t.name, t.status) for t in frame.tasks] == [("review", "interrupted")]
    state = ok(session, "state")
    assert state.message == "In frame parent \u203a call_sub (`up` shows the parent's)."
    assert state.value == {"draft": "t (written)", "verdict": ""}
    assert ok(session, "up").message == "Frame: parent"
    assert ok(session, "state").value == {"topic": "t"}
    assert [t.name for t in current_frame(session).tasks] == ["call_sub"]
    assert ok(session, "down").message == "Frame: parent \u203a call_sub"
    assert refused(session, "down").message.startswith("down: already at the innermost frame")


@on_both
def test_an_edit_in_the_called_subgraphs_frame_is_what_the_run_resumes_with(
    engine: EngineName,
) -> None:
    session = calls_review(engine)
    run(session, "restart", "continue")
    parent = session.view().values
    ok(session, "set draft = 'mine'")
    assert ok(session, "state").value == {"draft": "mine", "verdict": ""}
    assert session.view().values == parent  # (the parent's checkpoint is untouched)
    assert "unknown key 'topic'" in refused(session, "set topic = 'x'").message
    resumed = ok(session, "resume 'fine'")
    assert resumed.ran == ("in subgraph call_sub: review wrote verdict",)
    assert values(session) == {"topic": "t", "result": "fine!"}
    assert current_frame(session).breadcrumb == ""


@on_both
def test_a_subgraph_out_of_detections_reach_stops_the_run_at_its_parents_task(
    engine: EngineName,
) -> None:
    session = calls_review(engine, hidden=True)
    assert stopped(run(session, "restart", "continue")) == ("interrupted", "interrupt", 1)
    # get_state(subgraphs=True) finds a task's subgraph by LangGraph's detection, which
    # cannot see a graph taken from a dict: no frame on either engine
    assert current_frame(session).breadcrumb == ""
    assert refused(session, "down").message == "down: the run is not inside a subgraph"
    assert ok(session, "state").value == {"topic": "t"}
    resumed = ok(session, "resume 'yes'")
    assert resumed.ran == ("in subgraph call_sub: review wrote verdict",)
    assert values(session) == {"topic": "t", "result": "yes!"}


def test_both_engines_report_a_hidden_subgraphs_tasks_from_the_first_run() -> None:
    native, langgraph = (calls_review(e, hidden=True) for e in ("native", "langgraph"))
    # no lookup finds the subgraph (taken from a dict): its run tells the native engine's
    # parent run it started, as LangGraph streams every nested run's events
    first = [run(s, "restart", "continue").ran for s in (native, langgraph)]
    assert first[0] == first[1]
    assert first[0] == (
        "in subgraph call_sub: write wrote draft",
        "in subgraph call_sub: review called interrupt()",
    )
    resumed = [ok(s, "resume 'yes'").ran for s in (native, langgraph)]
    assert resumed[0] == resumed[1] == ("in subgraph call_sub: review wrote verdict",)


def test_a_graph_that_calls_no_subgraph_gets_no_emitter_and_one_that_calls_one_does() -> None:
    from sgdebug.sample_graphs import load

    loop = SubgraphUse(load("loop").graph).streams()
    assert loop["emit"] is None and loop["inner_emit"] is not None
    known = SubgraphUse(calls_review("native").engine.graph).streams()
    assert known["emit"] is not None and known["inner_emit"] is None
    hidden = SubgraphUse(calls_review("native", hidden=True).engine.graph)
    assert not hidden.runs and hidden.streams()["emit"] is None


def test_only_the_runs_of_subgraphs_send_to_the_inner_emitter() -> None:
    from sgdebug.sample_graphs import load

    loop = load("loop").graph
    streams = SubgraphUse(loop).streams()
    run = loop.start({"count": 0}, {"recursion_limit": 50}, **streams)
    assert run.advance() == "done" and run.read_values("count") == 3
    assert streams["inner_emit"] is not None and streams["inner_emit"].events == []


@on_both
def test_a_path_into_a_called_subgraph_is_refused_saying_what_the_node_does(
    engine: EngineName,
) -> None:
    session = calls_review(engine)
    ok(session, "restart")
    said = (
        "(call_sub is a plain node whose function invokes compiled graph 'review_sub': the run "
        "stops in that graph's frame at an interrupt() inside it, but a path names only the "
        "nodes and channels of a subgraph added as a node)"
    )
    for line in ("break before call_sub/review", "until call_sub/write", "watch call_sub/draft",
                 "open call_sub"):  # fmt: skip
        assert refused(session, line).message.endswith(said), line
    assert refused(session, "until finish/x").message.endswith("names no node (the graph has none)")
    assert [bp.number for bp in session.breakpoints] == [0]  # nothing was added
