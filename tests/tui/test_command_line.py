"""The command line: the whole command language, completion, history, refusals."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sgdebug.sample_graphs import SAMPLES
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine

from .graphs import ask_graph
from .harness import (
    drive,
    enter_command,
    graph_session,
    log_of,
    press,
    sample_session,
    status_of,
    status_text,
)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_continue_runs_every_sample_to_its_end(name: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "continue")
        assert app.frame is not None
        view = app.frame.view
        assert view.status in ("done", "interrupted"), log_of(app)[-1]
        assert app.frame.history is not None and len(app.frame.history.nodes) > 2

    drive(sample_session(name), scenario)


def test_enter_runs_the_line_logs_it_and_gives_focus_back() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        app.query_one(ChannelsPane).focus()
        await pilot.pause()
        await enter_command(app, pilot, "step 2")
        assert log_of(app)[-2:] == [": step 2", "Paused before step 2."]
        assert isinstance(app.focused, ChannelsPane)
        assert app.frame is not None and app.frame.view.step == 2

    drive(sample_session("overwrite"), scenario)


def test_print_evaluates_against_the_state() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "step 2")
        await enter_command(app, pilot, "print len(state['trail'])")
        assert log_of(app)[-1] == "3"

    drive(sample_session("fanout"), scenario)


def test_a_bad_command_is_explained_and_changes_nothing() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "stpe")
        assert (
            log_of(app)[-1]
            == "*** unknown command 'stpe'; did you mean 'step'? (type `help` for the list)"
        )
        await enter_command(app, pilot, "set nope = 1")
        assert log_of(app)[-1].startswith("*** nope not changed")
        assert app.frame is not None and app.frame.view.step == 0

    drive(sample_session("linear"), scenario)


def test_tab_completes_commands_and_names() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        line = app.query_one(CommandLine)
        await press(app, pilot, "colon")
        line.value = "unt"
        await press(app, pilot, "tab")
        assert line.value == "until "
        await press(app, pilot, "tab")  # several nodes: they are listed
        assert log_of(app)[-1] == "attempt  report"
        await press(app, pilot, "r", "tab")
        assert line.value == "until report "
        assert isinstance(app.focused, CommandLine)  # Tab did not leave the line

    drive(sample_session("loop"), scenario)


def test_up_and_down_recall_earlier_lines() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "step")
        await enter_command(app, pilot, "print 1 + 1")
        line = app.query_one(CommandLine)
        await press(app, pilot, "colon", "up")
        assert line.value == "print 1 + 1"
        await press(app, pilot, "up")
        assert line.value == "step"
        await press(app, pilot, "down", "down")
        assert line.value == ""

    drive(sample_session("linear"), scenario)


def test_update_goes_through_the_reducer_and_makes_a_snapshot() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "step 2")
        assert app.frame is not None and app.frame.history is not None
        before = len(app.frame.history.nodes)
        await enter_command(app, pilot, "update {'trail': ['x']}")
        assert app.frame.view.values["trail"] == ["a", "b", "c", "x"]
        assert len(app.frame.history.nodes) == before + 1
        assert app.frame.history.nodes[-1].source == "update"

    drive(sample_session("fanout"), scenario)


def test_resume_answers_an_interrupt() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "continue")
        assert app.frame is not None and app.frame.view.status == "interrupted"
        assert "⚑ INTERRUPTED" in status_text(app)
        assert [t.status for t in app.frame.tasks] == ["interrupted"]
        await enter_command(app, pilot, "resume 'Ada'")
        assert status_of(app) == "done"
        assert app.frame.view.values["answer"] == "Ada"

    drive(graph_session(ask_graph(), "ask", {"answer": ""}), scenario)


def test_a_answers_an_interrupt_from_the_command_line() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "a")  # nothing to answer yet: the key does nothing
        assert not app.query_one(CommandLine).has_focus
        await press(app, pilot, "c")
        assert status_of(app) == "interrupted"
        await press(app, pilot, "a")
        line = app.query_one(CommandLine)
        assert line.has_focus and line.value == "resume "
        line.value += "'Ada'"
        await press(app, pilot, "enter")
        assert status_of(app) == "done"
        assert app.frame is not None and app.frame.view.values["answer"] == "Ada"

    drive(graph_session(ask_graph(), "ask", {"answer": ""}), scenario)


def test_help_shows_a_command_in_the_help_screen_not_the_log() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "help step")
        assert app.screen.id == "help"
        assert str(app.screen.query_one("#help-topic").render()).startswith("usage: step [N]")
        assert log_of(app)[-1] == "Help is shown in its own screen (Esc closes it)."

    drive(sample_session("linear"), scenario)


def test_typed_quit_asks_first_like_q() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "quit")
        await press(app, pilot, "y")

    app = drive(sample_session("linear"), scenario)
    assert app.session.status == "closed"


def test_the_log_says_when_the_run_started_on_an_empty_input() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert any("empty input {}" in line for line in log_of(app))

    drive(graph_session(ask_graph(), "ask", {}), scenario)


def test_the_log_keeps_quiet_about_a_given_input() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert not any("empty input" in line for line in log_of(app))

    drive(sample_session("linear"), scenario)


def test_the_approval_sample_loops_until_the_answer_is_yes() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert status_of(app) == "interrupted"
        assert "Send this reply?" in status_text(app)
        for answer in ("'shorter'", "'yes'"):
            await press(app, pilot, "a")
            app.query_one(CommandLine).value += answer
            await press(app, pilot, "enter")
        assert status_of(app) == "done"
        assert app.frame is not None
        assert app.frame.view.values["feedback"] == ["shorter"]
        assert app.frame.view.values["status"].startswith("sent: ")

    drive(sample_session("approval"), scenario)


def test_a_with_two_interrupts_types_a_dict_of_their_ids_to_fill_in() -> None:
    from sgdebug.runtime import END, START, Send, StateGraph, interrupt

    from .graphs import AskState

    def ask(state: AskState) -> dict[str, str]:
        return {"answer": f"{state['answer']}={interrupt(state['answer'])}"}

    builder = StateGraph(AskState).add_node("ask", ask)
    builder.add_conditional_edges(START, lambda s: [Send("ask", {"answer": w}) for w in "xy"])
    builder.add_edge("ask", END)

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert status_of(app) == "interrupted" and app.frame is not None
        ids = {i.value: i.id for i in app.frame.view.interrupts}
        await press(app, pilot, "a")
        line = app.query_one(CommandLine)
        assert line.has_focus
        assert line.value == f"resume {{'{ids['x']}': , '{ids['y']}': }}"
        await pilot.press("1")  # typed where the first answer goes
        assert line.value == f"resume {{'{ids['x']}': 1, '{ids['y']}': }}"

    drive(graph_session(builder.compile(), "ask", {"answer": ""}), scenario)
