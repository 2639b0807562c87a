"""The README's keys on a program built with LangGraph and run by LangGraph itself.

Each key does what it does on the native engine, or says in the log why it cannot (``t``:
LangGraph runs a superstep's tasks together); nothing is a silent no-op.
"""

from __future__ import annotations

import re

from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from sgdebug.sample_graphs import load
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.edit_screen import EditScreen
from sgdebug.tui.screens.help_screen import HelpScreen
from sgdebug.tui.screens.node_screen import NodeScreen
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine

from .harness import (
    drive,
    log_of,
    press,
    sample_session,
    select_node,
    status_of,
    status_text,
)


def test_the_status_line_names_the_engine() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert "[langgraph]" in status_text(app)

    drive(sample_session("linear", engine="langgraph"), scenario)


def test_s_steps_and_c_continues_to_langgraphs_own_result() -> None:
    module = load("fanout")

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        assert app.frame is not None and app.frame.view.step == 1
        assert log_of(app)[-2:] == [": step", "Paused before step 1."]
        await press(app, pilot, "c")
        assert status_of(app) == "done"
        assert app.frame.view.values == module.langgraph_graph.invoke(module.EXAMPLE_INPUT)

    drive(sample_session("fanout", engine="langgraph"), scenario)


def test_t_says_why_it_cannot_run_one_task_and_changes_nothing() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        assert app.frame is not None
        before = app.frame.view
        await press(app, pilot, "t")
        assert log_of(app)[-1].startswith("task: not available on the langgraph engine")
        assert app.frame.view.step == before.step
        assert [t.name for t in app.frame.tasks] == [t.name for t in before.tasks]

    drive(sample_session("fanout", engine="langgraph"), scenario)


def test_b_and_capital_b_break_around_the_selected_node() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "d")
        await press(app, pilot, "b")
        await press(app, pilot, "c")
        assert app.frame is not None and app.frame.view.stop is not None
        assert app.frame.view.stop.kind == "breakpoint"
        assert [t.name for t in app.frame.tasks] == ["d"]
        await select_node(app, pilot, "d")
        await press(app, pilot, "B")
        await press(app, pilot, "c")
        assert app.frame.view.stop is not None
        assert "after d" in status_text(app)

    drive(sample_session("fanout", engine="langgraph"), scenario)


def test_e_edits_the_selected_channel_through_update_state() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, EditScreen)
        editor.query_one(TextArea).text = "41"
        await press(app, pilot, "ctrl+s")
        assert app.frame is not None and app.frame.view.values["count"] == 41
        assert [e.source for e in app.frame.entries][-1] == "update"

    drive(sample_session("loop", engine="langgraph"), scenario)


def test_a_answers_the_interrupt() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert status_of(app) == "interrupted"
        await press(app, pilot, "a")
        line = app.query_one(CommandLine)
        assert line.value == "resume "
        line.value = "resume 'yes'"
        await press(app, pilot, "enter")
        assert status_of(app) == "done"

    drive(sample_session("approval", engine="langgraph"), scenario)


def test_r_restarts_and_question_mark_marks_what_this_engine_cannot_do() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        await press(app, pilot, "r", "y")  # y: leave the finished run's history
        assert app.frame is not None and app.frame.view.step == 0
        assert status_of(app) == "paused"
        await press(app, pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        rows = dict(app.keys_help())
        assert "not on the langgraph engine" in rows["t"]
        assert "not on the" not in rows["s"]

    drive(sample_session("linear", engine="langgraph"), scenario)


def test_enter_on_a_node_shows_how_long_its_last_task_ran() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s")  # __start__, then b and c ran
        await select_node(app, pilot, "b")
        await press(app, pilot, "enter")
        screen = app.screen
        assert isinstance(screen, NodeScreen)
        assert re.fullmatch(r"[\d.]+ (ms|µs)", screen.details.timing)  # (its own time)
        assert re.fullmatch(r".*fanout\.py:\d+ \(.*\)", screen.details.source)  # (its function)
        assert "last run: " in str(screen.query_one(Static).render())

    drive(sample_session("fanout", engine="langgraph"), scenario)
