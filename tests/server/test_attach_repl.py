"""The REPL on a thread of a served graph: commands, Python on the JSON values, refusals."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from sgdebug.repl.commands import Dispatcher
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer
from tests.server.conftest import DevServer
from tests.server.test_attach_session import attached

pytestmark = pytest.mark.server


def test_repl_commands_and_python_on_a_served_thread(server: DevServer) -> None:
    session = attached(server, "loop", {"limit": 3})
    out = io.StringIO()
    dispatcher = Dispatcher(session, Printer(session, Console(file=out, width=120)),
                            PythonRunner(session))  # fmt: skip
    dispatcher.handle("step")
    dispatcher.handle("state['count'] * 10")  # Python on the values the server sent
    dispatcher.handle("type(state['log']).__name__")
    dispatcher.handle("task")
    text = out.getvalue()
    assert "Paused before step 2." in text
    assert "10" in text and "'list'" in text
    assert "*** task: not available on the remote engine" in text
    assert session.engine.values()["count"] == 1
