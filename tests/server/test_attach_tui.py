"""The TUI on a thread of a graph on a real LangGraph server (Pilot): the same keys and views
as on a local graph; what the server cannot do, and a server that went away, are said in
the status line and the log, and the app stays up."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.edit_screen import EditScreen
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine
from tests.server.conftest import DevServer
from tests.server.test_attach_session import attached
from tests.tui.harness import drive, log_of, press, select_node, status_of, status_text

pytestmark = pytest.mark.server


def test_keys_step_break_edit_and_answer_on_a_served_graph(server: DevServer) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert "[remote]" in status_text(app)
        await press(app, pilot, "s")  # draft runs on the server
        assert app.frame is not None and app.frame.view.values["draft"] == "a note on owls"
        await press(app, pilot, "t")
        assert log_of(app)[-1].startswith("task: not available on the remote engine")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")  # edit the selected channel (topic) through update_state
        editor = app.screen
        assert isinstance(editor, EditScreen)
        editor.query_one(TextArea).text = "'bats'"
        await press(app, pilot, "ctrl+s")
        assert app.frame.view.values["topic"] == "bats"
        assert [e.source for e in app.frame.entries][-1] == "update"
        await press(app, pilot, "c")
        assert status_of(app) == "interrupted"
        await press(app, pilot, "a")
        line = app.query_one(CommandLine)
        line.value = "resume 'yes'"
        await press(app, pilot, "enter")
        assert status_of(app) == "done"
        assert app.frame.view.values["verdict"] == "yes"

    drive(attached(server, "ask", {"topic": "owls"}), scenario)


def test_a_breakpoint_set_on_the_drawn_graph_stops_the_served_run(server: DevServer) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "report")
        await press(app, pilot, "b")
        await press(app, pilot, "c")
        assert app.frame is not None and app.frame.view.stop is not None
        assert app.frame.view.stop.kind == "breakpoint"
        assert [t.name for t in app.frame.tasks] == ["report"]
        assert app.frame.view.values["count"] == 2

    drive(attached(server, "loop", {"limit": 2}), scenario)


def test_a_server_gone_away_is_said_in_the_status_line(own_server: DevServer) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        own_server.stop()
        await press(app, pilot, "s")
        assert "not reachable" in status_text(app) and "not reachable" in log_of(app)[-1]
        assert status_of(app) == "paused"
        own_server.start()
        await press(app, pilot, "s")
        assert app.frame is not None and app.frame.view.values["count"] == 1

    drive(attached(own_server, "loop", {"limit": 3}), scenario)
