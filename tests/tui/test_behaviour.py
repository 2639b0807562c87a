"""What the panes show as the run moves: status, channels, diffs, history, errors, layout."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import TextArea

from sgdebug.debugger import COMMANDS, Session
from sgdebug.repl.python import PythonRunner
from sgdebug.runtime import END, START, StateGraph
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.edit_screen import EditScreen
from sgdebug.tui.screens.node_screen import NodeScreen
from sgdebug.tui.widgets.channels_pane import CHANGED_MARK, IN_PLACE_MARK, ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine
from sgdebug.tui.widgets.diff_pane import DiffPane
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.history_pane import CURSOR_MARK, HistoryPane
from sgdebug.tui.widgets.inspector_pane import InspectorPane
from sgdebug.tui.widgets.log_pane import LogPane
from sgdebug.tui.widgets.too_small import TooSmall
from sgdebug.tui.widgets.traceback_pane import TracebackPane

from .graphs import duplicating_graph, flaky_graph
from .harness import (
    SMALL,
    drive,
    enter_command,
    graph_session,
    log_of,
    press,
    sample_session,
    settle,
    status_of,
    status_text,
)


def cell_texts(table: ChannelsPane, row: int) -> list[str]:
    return [str(cell) for cell in table.get_row_at(row)]


def diff_text(app: DebuggerApp) -> str:
    return str(app.query_one(DiffPane).query_one("Static").render())


def history_lines(app: DebuggerApp) -> list[str]:
    pane = app.query_one(HistoryPane)
    return [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]


def test_a_step_updates_the_status_line_the_channel_table_and_the_diff() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert "‖ PAUSED" in status_text(app) and "step 0" in status_text(app)
        assert "No superstep committed yet" in diff_text(app)
        await press(app, pilot, "s", "s")
        assert "step 2" in status_text(app) and "Paused before step 2." in status_text(app)
        table = app.query_one(ChannelsPane)
        trail = cell_texts(table, 0)
        assert trail[0] == CHANGED_MARK and trail[1] == "trail"
        assert trail[-1] == "['a', 'b', 'c']"
        assert cell_texts(table, 1)[0] == " "  # `joined` did not change
        text = diff_text(app)
        assert "Step 1 committed the writes of b, c" in text
        assert "b → ['b']" in text and "c → ['c']" in text
        assert "+ [1:3] 'b', 'c'" in text or "+ [1] 'b'" in text

    drive(sample_session("fanout"), scenario)


def test_the_diff_of_an_overwrite_step_shows_the_superseded_writes() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "until publish")
        assert app.frame is not None and app.frame.step_diff is not None
        text = diff_text(app)
        assert f"Step {app.frame.step_diff.step} committed" in text
        assert "(Overwrite)" in text or "overwrite" in text

    drive(sample_session("overwrite"), scenario)


def test_a_breakpoint_from_the_command_line_pauses_the_run() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "break before attempt if state['count'] >= 2")
        await press(app, pilot, "c")
        assert app.frame is not None
        assert app.frame.view.values["count"] == 2
        assert "breakpoint 1 (before attempt if state['count'] >= 2)" in status_text(app)
        assert app.frame.node("attempt").before

    drive(sample_session("loop"), scenario)


def test_editing_a_value_changes_the_state_and_adds_a_snapshot() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        assert app.frame is not None and app.frame.history is not None
        before = len(app.frame.history.nodes)
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, EditScreen)
        editor.query_one(TextArea).text = "'not a number"
        await press(app, pilot, "ctrl+s")
        assert app.screen is editor  # refused: the editor stays, with the reason
        assert "Not changed" in str(editor.query_one("#edit-message").render())
        assert app.frame.view.values["count"] == 0
        editor.query_one(TextArea).text = "7"
        await press(app, pilot, "ctrl+s")
        assert app.frame.view.values["count"] == 7
        assert len(app.frame.history.nodes) == before + 1
        assert cell_texts(app.query_one(ChannelsPane), 0)[-1] == "7"

    drive(sample_session("loop"), scenario)


@pytest.mark.parametrize("how", ["command line", "repl"])
def test_after_an_edit_the_last_write_names_the_edit(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def repl(session: Session) -> None:  # the user types a state edit at the REPL
        result = PythonRunner(session).run('state["count"] = 7')
        assert result.edit is not None and result.edit.ok, result.edit

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
        await press(app, pilot, "s", "s")  # ``attempt`` wrote count and status in step 1
        table = app.query_one(ChannelsPane)
        assert cell_texts(table, 0)[:2] == [CHANGED_MARK, "count"]
        assert cell_texts(table, 0)[4] == "attempt @1"
        if how == "repl":
            await press(app, pilot, "exclamation_mark")
        else:
            await enter_command(app, pilot, "set count = 7")
        count, status = cell_texts(table, 0), cell_texts(table, 1)
        assert [count[0], count[1], count[4], count[-1]] == [
            CHANGED_MARK,
            "count",
            "(update) @1",
            "7",
        ]
        assert [status[0], status[1], status[4]] == [" ", "status", "attempt @1"]
        assert history_lines(app)[-1].startswith("#3 step 1 update")  # the same word

    drive(sample_session("loop"), scenario, repl=repl)


def test_a_value_changed_in_place_is_marked_in_the_channel_table() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        table = app.query_one(ChannelsPane)
        await press(app, pilot, "s", "s")  # __start__, then append_twice
        items = cell_texts(table, 0)
        assert [items[0], items[1], items[4], items[-1]] == [
            IN_PLACE_MARK,
            "items",
            "in place: append_twice @1",
            "['first', 'new', 'new']",
        ]
        assert any("changed 'items' in place" in line for line in log_of(app))
        inspector = app.query_one(InspectorPane)
        assert inspector.subject == "channel items · changed in place by append_twice @1"
        await press(app, pilot, "s")  # noted writes only the note: the mark stays
        assert cell_texts(table, 0)[0] == IN_PLACE_MARK
        assert cell_texts(table, 1)[:2] == [CHANGED_MARK, "note"]

    drive(graph_session(duplicating_graph(), "dup", {"items": ["first"]}), scenario)


def test_forking_from_the_history_starts_a_branch() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s", "s")
        history = app.query_one(HistoryPane)
        history.focus()
        history.highlighted = 2  # snapshot #2: after the first attempt
        await pilot.pause()
        inspector = app.query_one(InspectorPane)
        assert inspector.subject == "snapshot #2 (read-only)"
        await press(app, pilot, "enter")
        assert app.frame is not None and app.frame.view.snapshot_index == 2
        await press(app, pilot, "s")
        lines = history_lines(app)
        assert any(line.startswith("├─") for line in lines)
        assert any(line.startswith("└─") for line in lines)
        assert CURSOR_MARK in lines[-1]
        assert app.frame.history is not None
        assert app.frame.history.node(app.frame.view.checkpoint_id or "").source == "loop"
        assert sum(node.is_branch_point for node in app.frame.history.nodes) == 1

    drive(sample_session("loop"), scenario)


def test_an_exception_shows_the_traceback_and_retry_after_a_fix_works() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert app.frame is not None and app.frame.view.status == "error"
        assert "✗ ERROR" in status_text(app)
        pane = app.query_one(TracebackPane)
        assert pane.display and not app.query_one(DiffPane).display
        shown = pane.text
        assert "Node 'divide' raised ZeroDivisionError: division by zero" in shown
        assert "in divide" in shown and "Traceback" in shown
        assert app.frame.node("divide").status == "error"
        await enter_command(app, pilot, "set divisor = 4")
        await press(app, pilot, "R")
        assert status_of(app) == "done"
        assert app.frame.view.values["result"] == 2.5
        assert not pane.display and app.query_one(DiffPane).display

    drive(graph_session(flaky_graph(), "flaky", {"divisor": 0}), scenario)


def test_keys_that_cannot_run_now_are_hidden() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert app.check_action("command", ("step",))
        assert not app.check_action("command", ("retry",))
        await press(app, pilot, "c")
        assert not app.check_action("command", ("step",))  # a node raised
        assert app.check_action("command", ("retry",))
        assert app.check_action("command", ("abort",))
        footer = {b.binding.id for b in app.screen.active_bindings.values() if b.enabled}
        assert "retry" in footer and "step" not in footer

    drive(graph_session(flaky_graph(), "flaky", {"divisor": 0}), scenario)


def test_the_palette_lists_every_command() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "ctrl+p")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        await pilot.pause(0.2)
        commands = palette.query_one(CommandList)
        found = [
            str(commands.get_option_at_index(i).prompt).splitlines()[0]
            for i in range(commands.option_count)
        ]
        for spec in COMMANDS:
            assert spec.name in found

    drive(sample_session("linear"), scenario)


def test_below_80x24_the_screen_says_it_is_too_small() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert app.screen.has_class("-too-small")
        message = app.query_one(TooSmall)
        assert message.display
        assert "too small: 79x30" in str(message.render())
        assert not app.query_one("#panes").display
        await press(app, pilot, "s")  # nothing runs on a screen nobody can see
        assert app.frame is not None and app.frame.view.step == 0

    drive(sample_session("linear"), scenario, size=(79, 30))


def test_the_compact_layout_keeps_graph_channels_and_one_detail_pane() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert app.screen.has_class("-compact")
        shown = {w.id for w in app.query(".pane") if w.display}
        assert shown == {"graph", "channels", "tasks", "log"}

    drive(sample_session("linear"), scenario, size=SMALL)


def test_a_huge_value_stays_responsive_in_the_inspector() -> None:
    def grow(state: dict[str, Any]) -> dict[str, Any]:
        return {"items": list(range(100_000))}

    from typing import TypedDict

    class State(TypedDict):
        items: list[int]

    builder = StateGraph(State)
    builder.add_node("grow", grow)
    builder.add_edge(START, "grow")
    builder.add_edge("grow", END)

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s")
        inspector = app.query_one(InspectorPane)
        inspector.root.expand()
        await pilot.pause()
        assert len(inspector.root.children) == 101  # a page of 100 and "… more", not 100,000
        assert "more" in str(inspector.root.children[-1].label)

    drive(graph_session(builder.compile(), "big", {"items": []}), scenario)


def test_log_shows_each_command_and_its_answer() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "tasks")
        log = app.query_one(LogPane).lines_written
        assert log[-2] == ": tasks"
        assert "[pending] __start__" in log[-1]

    drive(sample_session("linear"), scenario)


def test_a_theme_change_redraws_with_its_colours() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        shown = app.frames_shown
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        assert app.frames_shown > shown
        assert "‖ PAUSED" in status_text(app)  # the symbols do not depend on colours

    drive(sample_session("loop"), scenario)


def test_a_click_on_a_node_selects_it_and_opens_its_details() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        graph = app.query_one(GraphPane)
        assert graph.drawing is not None
        box = graph.drawing.node("report").box
        canvas = graph.query_one("#graph-canvas")
        await pilot.click(canvas, offset=(box.x + box.w // 2, box.y + box.h // 2))
        await settle(app)
        assert graph.selected == "report"
        screen = app.screen
        assert isinstance(screen, NodeScreen)
        assert screen.details.name == "report"
        assert any("attempt ┄┄▶ report" in line for line in screen.details.incoming)

    drive(sample_session("loop"), scenario)


def test_choosing_a_command_in_the_palette_runs_it() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        app.choose_command("step")
        await settle(app)
        assert app.frame is not None and app.frame.view.step == 1
        app.choose_command("until")  # needs a node: typed on the command line
        await pilot.pause()
        line = app.query_one(CommandLine)
        assert app.focused is line and line.value == "until "

    drive(sample_session("loop"), scenario)


def test_escape_leaves_the_editor_without_changing_anything() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")
        assert isinstance(app.screen, EditScreen)
        app.screen.query_one(TextArea).text = "99"
        await press(app, pilot, "escape")
        assert not isinstance(app.screen, EditScreen)
        assert app.frame is not None and app.frame.view.values["count"] == 0

    drive(sample_session("loop"), scenario)


def test_a_long_value_is_summarised_for_the_room_in_the_table() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        value = cell_texts(app.query_one(ChannelsPane), 0)[-1]
        assert value.startswith("[human:") and value.endswith("more]")
        assert "… …" not in value  # summarised, not cut after the summary

    drive(sample_session("chatbot"), scenario)


@pytest.mark.parametrize("name", ["approval", "loop"])
def test_the_graph_pane_fits_its_caption_at_80x24(name: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        pane = app.query_one(GraphPane)
        for key in ("s", "c"):
            await press(app, pilot, key)
            assert pane.max_scroll_y == 0  # the legend pushes nothing out of sight

    drive(sample_session(name), scenario, size=SMALL)
