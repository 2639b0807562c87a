"""The TUI stepping inside subgraphs with the keys s (step into), n (next) and f (finish),
on both engines (s/n/f: the same stops and panes)."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.breadcrumb import Breadcrumb
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.inspector_pane import InspectorPane
from sgdebug.tui.widgets.tasks_pane import TasksPane
from tests.debugger import deep_graph

from .harness import drive, enter_command, graph_session, press, sample_session, status_text

ENGINES = pytest.mark.parametrize("engine", ["native", "langgraph"])


@ENGINES
def test_s_steps_into_research_n_steps_in_it_and_the_panes_follow(engine: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s")
        assert "Paused before step 2." in status_text(app)
        await press(app, pilot, "s")  # research is next: into it, before gather
        assert "Paused in research before gather (step 1 of research)." in status_text(app)
        crumb = app.query_one(Breadcrumb)
        assert crumb.display and crumb.trail == "parent \u203a research"
        graph = app.query_one(GraphPane)
        assert graph.opened == {"research"}
        assert graph.states["research/gather"].status == "pending"
        assert [row.name for row in app.query_one(TasksPane).rows_shown] == ["gather"]
        await press(app, pilot, "n")
        assert "Paused in research before summarize (step 2 of research)." in status_text(app)
        assert graph.states["research/summarize"].status == "pending"
        notes = {r.name: r.value for r in app.query_one(ChannelsPane).rows_shown}["notes"]
        assert notes == ["gather: how heat pumps work", "gather: what heat pumps cost"]
        await press(app, pilot, "f")  # out of research: summarize asks first
        assert app.frame is not None and app.frame.view.status == "interrupted"
        await enter_command(app, pilot, "resume 'costs'")
        assert app.frame.view.values["report"] == "Report on heat pumps: 2 notes, seen from costs"

    drive(sample_session("nested", engine=engine), scenario)


@ENGINES
def test_f_finishes_the_inner_subgraph_and_shows_the_frame_above(engine: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s", "s", "s")
        crumb = app.query_one(Breadcrumb)
        assert crumb.trail == "parent \u203a a \u203a b"
        await press(app, pilot, "f")
        assert "Finished a/b: paused in a before q (step 3 of a)." in status_text(app)
        assert crumb.trail == "parent \u203a a"
        assert app.query_one(GraphPane).states["a/q"].status == "pending"
        await press(app, pilot, "f")
        assert "Finished a: paused before step 2." in status_text(app)
        assert not crumb.display

    graph = deep_graph.build("langgraph" if engine == "langgraph" else "sgdebug").compile()
    drive(graph_session(graph, "deep", deep_graph.EXAMPLE_INPUT), scenario)


def test_at_80_columns_the_status_line_keeps_where_the_run_stopped() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s", "s")
        shown = status_text(app)[: app.size.width]  # what the terminal has room for
        assert "Paused in research before gather (step 1 of research)." in shown
        assert "sample_graphs" not in shown  # the target gave way to the message
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        assert "nested [native]  Paused in research" in status_text(app)  # room again

    drive(sample_session("nested"), scenario, size=(80, 24))


def test_the_value_pane_follows_into_a_frame_without_the_channel_it_showed() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        inspector = app.query_one(InspectorPane)
        await press(app, pilot, "s", "s")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "down", "down")  # topic, summary, report: the parent's own
        assert inspector.subject == "channel report"
        await press(app, pilot, "s")  # into research, which has no report
        names = [r.name for r in app.query_one(ChannelsPane).rows_shown]
        assert "report" not in names
        assert inspector.subject.removeprefix("channel ") in names  # not "No channel ..."

    drive(sample_session("nested"), scenario)
