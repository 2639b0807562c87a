"""Network faults while attached: a clear refusal, the session kept, and a retry that works."""

from __future__ import annotations

import uuid

import pytest

from sgdebug.debugger import execute, format_outcome, parse
from tests.server.conftest import DevServer
from tests.server.test_attach_session import attached, run

pytestmark = pytest.mark.server


def test_the_server_killed_mid_session_is_reported_and_the_session_recovers(
    own_server: DevServer,
) -> None:
    session = attached(own_server, "loop", {"limit": 3})
    run(session, "step")
    own_server.stop()  # SIGTERM: the server goes away mid-session

    refused = execute(session, parse("step"))
    assert not refused.ok
    assert "not reachable" in refused.message and own_server.url in refused.message
    assert "try again" in refused.message
    assert session.view().status == "paused"  # nothing moved
    assert "count = 1" in format_outcome(run(session, "state"))  # what was read stays shown
    assert not execute(session, parse("set count = 2")).ok

    own_server.start()  # the same port: the server is back, with its threads
    run(session, "step")  # the same command again: it runs now
    assert session.engine.values()["count"] == 2
    assert run(session, "continue").status == "done"


def test_a_thread_deleted_meanwhile_is_said_and_the_session_stays_open(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 3})
    thread = session.thread_id
    assert thread is not None
    session.engine.link.call("deleting", lambda c: c.threads.delete(thread))  # type: ignore[attr-defined]
    refused = execute(session, parse("step"))
    assert not refused.ok
    assert "HTTP 404" in refused.message and "deleted" in refused.message
    assert "Traceback" not in refused.message
    assert run(session, "restart {'limit': 1}").status == "paused"  # a new thread works


def test_a_thread_that_does_not_exist_is_refused_by_name(server: DevServer) -> None:
    session = attached(server, "loop")
    missing = str(uuid.uuid4())
    outcome = session.attach(missing)
    assert not outcome.ok
    assert missing in outcome.message and "no snapshot" in outcome.message
