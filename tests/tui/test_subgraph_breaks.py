"""The TUI stopped at a breakpoint on a subgraph's node (native engine, sample ``nested``)."""

from __future__ import annotations

from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.breadcrumb import Breadcrumb
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

from .harness import drive, enter_command, log_of, sample_session, status_of, status_text


def test_break_before_an_inner_node_stops_in_its_frame_and_continue_goes_on() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "break before research/summarize")
        graph = app.query_one(GraphPane)
        assert graph.states["research/summarize"].before  # marked ● once research is drawn open
        await enter_command(app, pilot, "continue")
        assert status_of(app) == "paused"
        assert "breakpoint 1 (before research/summarize)" in status_text(app)
        crumb = app.query_one(Breadcrumb)
        assert crumb.display and crumb.trail == "parent \u203a research"
        channels = app.query_one(ChannelsPane)
        assert [row.name for row in channels.rows_shown] == ["topic", "notes", "summary"]
        assert [row.name for row in app.query_one(TasksPane).rows_shown] == ["summarize"]
        assert graph.opened == {"research"}
        assert graph.states["research/summarize"].status == "pending"
        assert graph.states["research/summarize"].before
        await enter_command(app, pilot, "continue")
        assert status_of(app) == "interrupted"
        assert crumb.trail == "parent \u203a research"
        await enter_command(app, pilot, "resume 'costs'")
        assert status_of(app) == "done"
        assert any("The run finished." in line for line in log_of(app))

    drive(sample_session("nested"), scenario)
