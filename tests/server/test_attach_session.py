"""A session attached to a real LangGraph server: the commands a user types, and what they show.

Each test drives sgdebug's session (as the REPL and ``run`` do, through the command
language) on a graph served by ``langgraph dev`` (the ``server`` fixture).
"""

from __future__ import annotations

from typing import Any

import pytest

from sgdebug.debugger import Outcome, Session, Target, execute, format_outcome, parse
from sgdebug.debugger.engines import Server
from tests.server.conftest import DevServer

pytestmark = pytest.mark.server


def attached(server: DevServer, graph: str, input: Any = None) -> Session:
    """A session on ``graph`` of the server; with ``input``, a new run started on it."""
    session = Session(Target(Server(server.url, graph), {}, f"{server.url} graph {graph}"))
    if input is not None:
        started = session.restart(input)
        assert started.ok, started.message
    return session


def run(session: Session, line: str) -> Outcome:
    outcome = execute(session, parse(line))
    assert outcome.ok, f"{line}: {outcome.message}"
    return outcome


def text(session: Session, line: str) -> str:
    return format_outcome(run(session, line))


def test_a_new_run_steps_superstep_by_superstep_on_the_server(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 2})
    assert session.view().status == "paused"
    assert [t.name for t in session.engine.tasks()] == ["tick"]
    run(session, "step")
    assert session.engine.values() == {"limit": 2, "count": 1, "log": ["tick 1"]}
    run(session, "step")
    assert "report" in text(session, "tasks")
    assert run(session, "continue").status == "done"
    assert session.engine.values()["log"] == ["tick 1", "tick 2", "done at 2"]
    history = text(session, "history")
    assert "ran report" in history and "ran tick" in history


def test_breakpoints_before_and_after_a_node_stop_the_run(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 5})
    run(session, "break after tick")
    stopped = run(session, "continue")
    assert stopped.stop is not None and stopped.stop.kind == "breakpoint"
    assert session.engine.values()["count"] == 1  # tick ran once, then the run stopped
    run(session, "delete 1")
    run(session, "break before report")
    stopped = run(session, "continue")
    assert stopped.stop is not None and stopped.stop.kind == "breakpoint"
    assert session.pending_tasks == ("report",)
    assert session.engine.values()["count"] == 5


def test_an_edit_as_a_node_and_a_fork_from_an_old_snapshot(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 3})
    run(session, "step")
    run(session, "update {'count': 3} as tick")  # the branch after tick sees count = 3
    assert session.pending_tasks == ("report",)
    assert session.engine.values()["count"] == 3
    # Back to the snapshot before the first tick, and run it again: a new branch.
    run(session, "goto 1")
    assert session.engine.values().get("count") is None
    run(session, "step")
    assert session.engine.values()["count"] == 1
    entries = session.engine.history()
    assert any(e.source == "fork" for e in entries)
    assert sum(e.head for e in entries) == 2  # two branches: the edited one and the fork


def test_set_edits_the_state_where_the_session_stands(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 4})
    run(session, "set count = 3")
    assert session.engine.values()["count"] == 3
    run(session, "step")  # tick runs on the edited state
    assert session.engine.values()["count"] == 4
    assert session.pending_tasks == ("report",)


def test_an_interrupt_is_asked_and_answered(server: DevServer) -> None:
    session = attached(server, "ask", {"topic": "owls"})
    asked = run(session, "continue")
    assert asked.status == "interrupted"
    assert "approve?" in format_outcome(asked)
    assert session.engine.interrupts()[0].value["draft"] == "a note on owls"
    assert run(session, "resume 'yes'").status == "done"  # resume goes on to the end
    assert session.engine.values()["verdict"] == "yes"


def test_a_subgraph_is_drawn_and_runs_inside_one_step(server: DevServer) -> None:
    from sgdebug.inspect.topology import topology

    session = attached(server, "nested", {"text": "hi"})
    shape = topology(session.model)
    inner = next(n for n in shape.nodes if n.name == "inner")
    assert inner.kind == "subgraph" and inner.subgraph is not None
    assert [n.name for n in inner.subgraph.nodes if n.kind == "function"] == ["upper", "exclaim"]
    drawn = run(session, "graph").value
    assert ("prepare", "inner", False) in [(e.source, e.target, e.conditional) for e in drawn.edges]
    assert '["prepare"]' in drawn.mermaid and '["inner"]' in drawn.mermaid
    run(session, "step")
    ran = run(session, "step")  # inner's whole subgraph: its tasks are told as inner/...
    assert session.engine.values()["shouted"] == "HI!"
    assert "inner" in ran.commits[-1].tasks


def test_open_a_stored_thread_and_list_the_threads(server: DevServer) -> None:
    first = attached(server, "loop", {"limit": 1})
    run(first, "continue")
    thread = first.thread_id
    assert thread is not None
    session = attached(server, "loop")
    assert thread in session.engine.threads()
    opened = session.attach(thread)
    assert opened.ok and opened.status == "done"
    assert session.engine.values()["log"] == ["tick 1", "done at 1"]
    run(session, "goto 2")
    assert session.engine.values()["count"] == 1


def test_what_a_server_cannot_do_is_unavailable_with_the_reason(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 2})
    refused = execute(session, parse("task"))
    assert not refused.ok
    assert "remote engine" in refused.message and "whole superstep" in refused.message
    info = text(session, "info")
    assert "mutations" in info and "objects" in info and "JSON" in info
    assert session.engine.collect_mutations() == []


def test_a_node_that_raises_on_the_server_stops_the_run_and_a_retry_runs_it(
    server: DevServer,
) -> None:
    session = attached(server, "flaky", {"fail": True})
    failed = run(session, "step")
    assert failed.status == "error"
    assert "check" in failed.message and "ValueError" in failed.message
    assert "check was told to fail" in failed.message
    run(session, "set fail = False")
    assert run(session, "retry").status == "done"
    assert session.engine.values()["result"] == "ok"


def test_continue_to_a_breakpoint_is_one_server_run_with_every_step_recorded(
    server: DevServer,
) -> None:
    session = attached(server, "loop", {"limit": 6})
    run(session, "break before report")
    stopped = run(session, "continue")
    assert stopped.stop is not None and stopped.stop.kind == "breakpoint"
    assert session.pending_tasks == ("report",)
    assert [c.step for c in stopped.commits] == [1, 2, 3, 4, 5, 6]
    assert [c.tasks for c in stopped.commits] == [("tick",)] * 6
    count = next(c for c in stopped.commits[-1].changes if c.channel == "count")
    assert (count.old, count.new) == (5, 6)
    thread = session.thread_id
    runs = session.engine.link.call("", lambda c: c.runs.list(thread))  # type: ignore[attr-defined]
    assert len(runs) == 2  # the input step, then the whole continue


def test_a_conditional_after_breakpoint_and_until_with_run_time_interrupts(
    server: DevServer,
) -> None:
    session = attached(server, "loop", {"limit": 5})
    run(session, "break after tick if state['count'] >= 3")
    stopped = run(session, "continue")  # the server stops after each tick; the driver decides
    assert stopped.stop is not None and stopped.stop.kind == "breakpoint"
    assert session.engine.values()["count"] == 3
    assert [c.step for c in stopped.commits] == [1, 2, 3]
    run(session, "disable 1")
    reached = run(session, "until report")
    assert session.pending_tasks == ("report",)
    assert session.engine.values()["count"] == 5
    assert [c.step for c in reached.commits] == [4, 5]


def test_a_pause_request_ends_a_long_continue_after_the_step_that_runs(server: DevServer) -> None:
    from sgdebug.debugger.events import Stepped

    session = attached(server, "loop", {"limit": 40, "delay": 0.05})  # 2s: time to pause
    session.subscribe(lambda e: session.request_pause() if isinstance(e, Stepped) else None)
    paused = run(session, "continue")
    assert paused.status == "paused"
    assert 1 <= session.engine.values()["count"] < 40
    assert run(session, "continue").status == "paused"  # goes on, and pauses again


def test_an_interrupt_inside_a_subgraph_shows_where_the_subgraph_stands(
    server: DevServer,
) -> None:
    session = attached(server, "nested", {"text": "hi", "ask": True})
    asked = run(session, "continue")
    assert asked.status == "interrupted"
    assert [i.value for i in session.engine.interrupts()] == ["end with?"]
    (task,) = session.engine.tasks()
    assert task.name == "inner" and task.subgraph is not None
    assert task.subgraph.next == ("exclaim",)
    assert task.subgraph.values["shouted"] == "HI"
    assert run(session, "resume '?!'").status == "done"
    assert session.engine.values()["shouted"] == "HI?!"
