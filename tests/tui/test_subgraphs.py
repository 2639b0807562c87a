"""The TUI on a graph with a subgraph (sample ``nested``): the graph view opens it."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.breadcrumb import Breadcrumb
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.history_pane import HistoryPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

from .harness import drive, enter_command, press, sample_session, select_node

INNER = ("research/gather", "research/summarize")


def drawn_names(app: DebuggerApp) -> list[str]:
    drawing = app.query_one(GraphPane).drawing
    assert drawing is not None
    return [node.name for node in drawing.nodes]


def test_o_opens_the_selected_subgraph_in_place_and_closes_it_again() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        graph = app.query_one(GraphPane)
        assert not set(INNER) & set(drawn_names(app))  # closed at first
        await select_node(app, pilot, "research")
        await press(app, pilot, "o")
        names = drawn_names(app)
        assert "research" not in names and graph.selected == INNER[0]
        assert names.index("plan") < names.index(INNER[0]) < names.index(INNER[1])
        assert names.index(INNER[1]) < names.index("write")
        assert "research/summarize" in graph.drawing.text if graph.drawing else False
        graph.selected = INNER[1]
        await press(app, pilot, "o")  # on an inner node: closes its subgraph
        assert "research" in drawn_names(app) and graph.selected == "research"
        await select_node(app, pilot, "plan")
        await press(app, pilot, "o")
        assert "research" in drawn_names(app)  # plan runs no subgraph: nothing opened

    drive(sample_session("nested"), scenario)


def test_the_o_key_is_a_registry_key_on_the_help_screen_and_works_from_any_pane() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert ("o", "Draw the selected subgraph node open in the graph (again: close it)") in (
            list(app.keys_help())
        )
        await select_node(app, pilot, "research")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "o")  # the app's binding: the graph's selection opens
        assert set(INNER) <= set(drawn_names(app))
        app.set_keymap({"open": "O"})
        await press(app, pilot, "O")  # remapped like every key (the binding id is "open")
        assert "research" in drawn_names(app)

    drive(sample_session("nested"), scenario)


def test_a_run_stopped_inside_the_subgraph_opens_it_with_the_inner_node_marked() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "continue")
        assert app.frame is not None and app.frame.view.status == "interrupted"
        graph = app.query_one(GraphPane)
        assert graph.opened == {"research"}
        assert set(INNER) <= set(drawn_names(app))
        assert graph.states["research/summarize"].status == "pending"
        assert "research/gather" not in graph.states  # it ran; only what waits is marked
        lines = str(graph.query_one("#graph-canvas").render()).splitlines()
        row = next(i for i, line in enumerate(lines) if "│ research/summarize" in line)
        assert "┌»─" in lines[row - 1]  # its status glyph, on its box's top border
        assert "»" not in lines[row - 4]  # research/gather's box: no mark

    drive(sample_session("nested", engine="langgraph"), scenario)


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_inside_the_subgraph_the_panes_show_its_frame_and_keys_move_up_and_down(
    engine: str,
) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        crumb = app.query_one(Breadcrumb)
        assert not crumb.display  # not inside a subgraph yet
        await enter_command(app, pilot, "continue")
        assert crumb.display and crumb.trail == "parent \u203a research"
        channels = app.query_one(ChannelsPane)
        assert [row.name for row in channels.rows_shown] == ["topic", "notes", "summary"]
        assert [row.name for row in app.query_one(TasksPane).rows_shown] == ["summarize"]
        await press(app, pilot, "less_than_sign")
        assert crumb.trail == "parent"
        assert [row.name for row in channels.rows_shown] == ["topic", "summary", "report"]
        assert [row.name for row in app.query_one(TasksPane).rows_shown] == ["research"]
        await press(app, pilot, "greater_than_sign")
        assert crumb.trail == "parent \u203a research"
        await enter_command(app, pilot, "resume 'costs'")
        assert not crumb.display and app.frame is not None and app.frame.view.status == "done"

    drive(sample_session("nested", engine=engine), scenario)


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_the_history_shows_the_subgraphs_checkpoints_under_the_step_that_ran_them(
    engine: str,
) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "continue")
        history = app.query_one(HistoryPane)
        lines = [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]
        at = next(i for i, line in enumerate(lines) if line.startswith("#2 step 1 loop"))
        assert lines[at + 1].strip() == "\u2514 research step 1 loop ran gather \u2192 summarize"
        assert history.get_option_at_index(at + 1).disabled  # not a snapshot to go to
        assert history.selected_index == 2  # the cursor stays on the parent's snapshot
        await enter_command(app, pilot, "set notes = ['one']")  # an edit in research's frame
        await enter_command(app, pilot, "resume 'costs'")
        lines = [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]
        assert [line.strip() for line in lines[at + 1 : at + 4]] == [
            "\u2514 research step 1 loop ran gather \u2192 summarize",
            "\u2514 research step 2 update \u2192 summarize",
            "\u2514 research step 3 loop ran summarize",
        ]
        assert lines[at + 4].startswith("#3 step 2 loop  ran research")

    drive(sample_session("nested", engine=engine), scenario)


def test_open_on_the_command_line_draws_the_subgraph_open_as_o_does() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        graph = app.query_one(GraphPane)
        await select_node(app, pilot, "plan")
        await enter_command(app, pilot, "open research")
        names = drawn_names(app)
        assert "research" not in names and set(INNER) <= set(names)
        assert graph.opened == {"research"} and graph.selected == INNER[0]
        await press(app, pilot, "o")  # on its inner node, `o` closes it again
        assert "research" in drawn_names(app) and graph.selected == "research"
        await enter_command(app, pilot, "open plan")  # refused, and nothing changes
        assert "research" in drawn_names(app) and graph.opened == frozenset()

    drive(sample_session("nested"), scenario)
