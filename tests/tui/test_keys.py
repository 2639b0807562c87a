"""Every key of the TUI, pressed in a running app on the sample graphs."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from sgdebug.debugger import Session
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.confirm_screen import ConfirmScreen
from sgdebug.tui.screens.edit_screen import EditScreen
from sgdebug.tui.screens.help_screen import HelpScreen
from sgdebug.tui.screens.node_screen import NodeScreen
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine
from sgdebug.tui.widgets.graph_pane import GraphPane

from .graphs import flaky_graph, lap_graph, slow_graph
from .harness import (
    SMALL,
    drive,
    graph_session,
    log_of,
    press,
    sample_session,
    select_node,
    settle,
    status_of,
    status_text,
)


def test_s_steps_one_superstep() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert app.frame is not None and app.frame.view.step == 0
        await press(app, pilot, "s")
        assert app.frame.view.step == 1
        assert log_of(app)[-2:] == [": step", "Paused before step 1."]

    drive(sample_session("linear"), scenario)


def test_t_runs_one_task_of_the_step() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")  # fanout: b and c are pending
        await press(app, pilot, "t")
        assert app.frame is not None
        states = {t.name: t.status for t in app.frame.tasks}
        assert states == {"b": "done", "c": "pending"}
        assert app.frame.node("b").status == "done"
        assert ": task" in log_of(app)

    drive(sample_session("fanout"), scenario)


def test_c_continues_to_the_end() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert app.frame is not None and app.frame.view.status == "done"
        assert "✓ DONE" in status_text(app)
        assert app.frame.node("__end__").status == "finished"

    drive(sample_session("loop"), scenario)


def test_u_runs_until_the_selected_node() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "report")
        await press(app, pilot, "u")
        assert ": until report" in log_of(app)
        assert app.frame is not None
        assert [t.name for t in app.frame.tasks] == ["report"]

    drive(sample_session("loop"), scenario)


def test_b_toggles_a_breakpoint_before_the_selected_node_and_it_pauses() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "d")
        await press(app, pilot, "b")
        assert app.frame is not None and app.frame.node("d").before
        await press(app, pilot, "c")
        view = app.frame.view
        assert view.status == "paused" and view.stop is not None
        assert view.stop.kind == "breakpoint"
        assert "breakpoint 1 (before d)" in status_text(app)
        assert [t.name for t in app.frame.tasks] == ["d"]
        await press(app, pilot, "b")  # again: the breakpoint goes away
        assert log_of(app)[-2:] == [": delete 1", "Deleted breakpoint 1: before d"]
        assert not app.frame.node("d").before

    drive(sample_session("fanout"), scenario)


def test_capital_b_breaks_after_the_selected_node() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "b_2")
        await press(app, pilot, "B")
        assert app.frame is not None and app.frame.node("b_2").after
        await press(app, pilot, "c")
        stop = app.frame.view.stop
        assert stop is not None and stop.kind == "breakpoint"
        assert app.frame.step_diff is not None and app.frame.step_diff.tasks == ("b_2",)

    drive(sample_session("fanout"), scenario)


def test_w_watches_the_selected_channel() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "down")  # status
        await press(app, pilot, "w")
        assert ": watch status" in log_of(app)
        await press(app, pilot, "c")
        stop = app.frame.view.stop if app.frame else None
        assert stop is not None and stop.kind == "breakpoint"
        assert stop.hits[0].breakpoint.kind == "watch"

    drive(sample_session("loop"), scenario)


def test_r_asks_before_leaving_the_history_then_restarts_the_run() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        await press(app, pilot, "r")
        assert isinstance(app.screen, ConfirmScreen)
        assert "This run's history (4 snapshots) leaves the screen" in app.screen.question
        await press(app, pilot, "n")  # no: the finished run stays
        assert status_of(app) == "done"
        assert app.frame is not None and app.frame.view.thread_id == "thread-1"

        await press(app, pilot, "r", "y")
        assert app.frame is not None and app.frame.view.step == 0
        assert app.frame.view.thread_id == "thread-2"
        assert app.frame.view.status == "paused"

    drive(sample_session("linear"), scenario)


def test_capital_r_retries_and_x_aborts_after_an_exception() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert app.frame is not None and app.frame.view.status == "error"
        await press(app, pilot, "R")  # still raises: the state was not fixed
        assert status_of(app) == "error"
        assert ": retry" in log_of(app)
        await press(app, pilot, "x")
        assert status_of(app) == "aborted"

    drive(graph_session(flaky_graph(), "flaky", {"divisor": 0}), scenario)


def test_e_edits_the_selected_channel() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, EditScreen)
        assert editor.query_one(TextArea).text == "0"
        editor.query_one(TextArea).text = "41"
        await press(app, pilot, "ctrl+s")
        assert not isinstance(app.screen, EditScreen)
        assert app.frame is not None and app.frame.view.values["count"] == 41

    drive(sample_session("loop"), scenario)


def test_colon_focuses_the_command_line_and_escape_gives_focus_back() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "colon")
        assert isinstance(app.focused, CommandLine)
        await press(app, pilot, "s", "t")  # typed, not run
        assert app.query_one(CommandLine).value == "st"
        await press(app, pilot, "escape")
        assert isinstance(app.focused, ChannelsPane)
        assert app.frame is not None and app.frame.view.step == 0

    drive(sample_session("linear"), scenario)


def test_exclamation_mark_suspends_into_the_repl_and_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[Session] = []
    suspended: list[bool] = []

    def repl(session: Session) -> None:
        seen.append(session)
        session.step()

    @contextlib.contextmanager
    def suspend() -> Iterator[None]:  # the headless test driver cannot suspend
        suspended.append(True)
        yield

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        monkeypatch.setattr(app, "suspend", suspend)
        await press(app, pilot, "exclamation_mark")
        assert suspended == [True]
        assert seen == [app.session]
        assert app.frame is not None and app.frame.view.step == 1  # redrawn on return

    session = sample_session("linear")
    drive(session, scenario, repl=repl)


def test_exclamation_mark_without_a_repl_says_so() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "exclamation_mark")
        assert "The REPL is not available" in log_of(app)[-1]

    drive(sample_session("linear"), scenario)


def test_question_mark_and_f1_open_the_help_screen() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        for key in ("question_mark", "f1"):
            await press(app, pilot, key)
            assert isinstance(app.screen, HelpScreen)
            await press(app, pilot, "escape")
            assert not isinstance(app.screen, HelpScreen)

    drive(sample_session("linear"), scenario)


def test_q_asks_before_discarding_an_unsaved_session() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "q")
        assert isinstance(app.screen, ConfirmScreen)
        await press(app, pilot, "n")
        assert app.is_running and app.session.status != "closed"
        await press(app, pilot, "q")
        await press(app, pilot, "y")

    app = drive(sample_session("linear"), scenario)
    assert app.session.status == "closed"
    assert app.return_code == 0


def test_tab_and_shift_tab_move_between_panes() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        seen = []
        for _ in range(7):
            seen.append(app.focused.id if app.focused else None)
            await press(app, pilot, "tab")
        assert seen == ["graph", "channels", "tasks", "inspector", "history", "diff", "log"]
        assert app.focused is not None and app.focused.id == "graph"
        await press(app, pilot, "shift+tab")
        assert app.focused is not None and app.focused.id == "log"

    drive(sample_session("linear"), scenario)


def test_tab_in_the_compact_layout_shows_each_detail_pane() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert app.screen.has_class("-compact")
        await press(app, pilot, "tab", "tab", "tab")
        inspector = app.query_one("#inspector")
        assert app.focused is inspector and inspector.display
        assert not app.query_one("#tasks").display

    drive(sample_session("linear"), scenario, size=SMALL)


def test_pane_keys_show_their_pane() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        for key, pane in (("T", "tasks"), ("h", "history"), ("G", "graph")):
            await press(app, pilot, key)
            assert app.focused is not None and app.focused.id == pane

    drive(sample_session("linear"), scenario, size=SMALL)


def test_capital_d_diffs_the_snapshot_with_its_parent() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s")
        await press(app, pilot, "D")
        assert log_of(app)[-1].startswith("diff 1 -> 2")

    drive(sample_session("linear"), scenario)


def test_arrows_select_nodes_and_enter_opens_the_details() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        graph = app.query_one(GraphPane)
        assert graph.selected == "attempt"
        await press(app, pilot, "down")
        assert graph.selected == "report"
        await press(app, pilot, "up", "up")
        assert graph.selected == "__start__"
        await press(app, pilot, "down", "enter")
        screen = app.screen
        assert isinstance(screen, NodeScreen)
        assert screen.details.name == "attempt"
        assert "loop.py" in screen.details.source
        assert any("┄┄▶ report" in line for line in screen.details.outgoing)

    drive(sample_session("loop"), scenario)


def test_ctrl_c_pauses_a_long_continue_and_the_screen_stays_responsive() -> None:
    gate = threading.Event()

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")  # the input step; `slow` is pending now
        await pilot.press("c")
        await pilot.pause()
        assert app.busy
        assert "▶ RUNNING" in status_text(app)
        assert app.query_one(GraphPane).states["slow"].status == "running"
        await pilot.press("tab")  # the UI answers while the node waits
        assert app.focused is not None and app.focused.id == "channels"
        await pilot.press("ctrl+c")
        gate.set()
        await settle(app)
        assert app.frame is not None and app.frame.view.stop is not None
        assert app.frame.view.stop.kind == "pause"
        assert app.frame.view.status == "paused"

    try:
        drive(graph_session(slow_graph(gate), "slow", {"laps": []}), scenario)
    finally:
        gate.set()


def test_a_long_continue_shows_the_node_running_in_each_later_step() -> None:
    gate = threading.Event()

    def before(done: int) -> None:
        if done:  # the first lap is quick, the second waits for the test
            gate.wait(10)

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")  # the input step; `lap` is pending at step 1
        await pilot.press("c")
        for _ in range(200):  # until the continue has committed step 1 and planned step 2
            await pilot.pause(0.02)
            if "step 2" in status_text(app):
                break
        assert "running lap" in status_text(app), status_text(app)
        assert "step 2" in status_text(app)
        assert app.query_one(GraphPane).states["lap"].status == "running"
        gate.set()
        await settle(app)
        assert app.frame is not None and app.frame.view.status == "done"

    try:
        drive(graph_session(lap_graph(before, 2), "laps", {"laps": []}), scenario)
    finally:
        gate.set()
