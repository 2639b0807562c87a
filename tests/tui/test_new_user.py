"""What a new user hits first in the TUI: editing a message list, answering an interrupt in
plain words, conditions over channels by bare name, the log's room, help in its own screen."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.edit_screen import EditScreen
from sgdebug.tui.screens.help_screen import HelpScreen
from sgdebug.tui.screens.log_screen import LogScreen
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.log_pane import LogPane

from .harness import SMALL, drive, enter_command, log_of, press, sample_session, status_of


def test_the_prefilled_text_of_a_message_list_saves() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s")  # the agent asked for a tool: two messages
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, EditScreen)
        text = editor.query_one(TextArea).text
        assert text.startswith("[HumanMessage(content=")
        editor.query_one(TextArea).text = text.replace("Calling get_weather", "Checking")
        await press(app, pilot, "ctrl+s")
        assert app.screen is not editor, str(editor.query_one("#edit-message").render())
        assert app.frame is not None
        messages = app.frame.view.values["messages"]
        assert [type(m).__name__ for m in messages] == ["HumanMessage", "AIMessage"]
        assert messages[1].content == "Checking."

    drive(sample_session("chatbot"), scenario)


def test_an_unquoted_answer_is_taken_as_text() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert status_of(app) == "interrupted"
        await enter_command(app, pilot, "resume make it shorter")
        assert app.frame is not None
        assert app.frame.view.values["feedback"] == ["make it shorter"]
        assert any("answered with the text 'make it shorter'" in line for line in log_of(app))
        assert not any("SyntaxError" in line for line in log_of(app))

    drive(sample_session("approval"), scenario)


def test_a_condition_with_an_unknown_name_is_refused_at_once() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "break before agent if len(mesages) > 6")
        assert any("'mesages' is not defined" in line for line in log_of(app))
        await enter_command(app, pilot, "break before agent if len(messages) > 2")
        await press(app, pilot, "c")
        assert app.frame is not None and len(app.frame.view.values["messages"]) == 3
        assert not any("NameError" in line for line in log_of(app))

    drive(sample_session("chatbot"), scenario)


def _log_rows(app: DebuggerApp) -> int:
    return app.query_one(LogPane).scrollable_content_region.height


def test_the_log_has_room_for_several_lines_wide_and_compact() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        assert _log_rows(app) > 4
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert _log_rows(app) > 1

    drive(sample_session("chatbot"), scenario, size=(160, 48))


def test_the_latest_message_is_shown_from_its_first_line() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, 'print "start " + "x" * 2000')
        await pilot.pause()
        log = app.query_one(LogPane)
        first_shown = log.lines[int(log.scroll_y)].text
        assert "'start " in first_shown, first_shown
        assert log.max_scroll_y > log.scroll_y  # the rest is below, not cut off above

    drive(sample_session("linear"), scenario, size=SMALL)


def test_log_lines_are_wrapped_again_when_the_terminal_is_resized() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        log = app.query_one(LogPane)
        log.write_note("word " * 60)
        await pilot.pause()
        assert len(log.lines) == 1 + 2  # the welcome, and the note on two lines
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        width = log.scrollable_content_region.width
        assert max(line.cell_length for line in log.lines) <= width
        assert any(line.text.startswith("word") for line in log.lines)  # rewrapped text
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        assert len(log.lines) == 3

    drive(sample_session("linear"), scenario, size=(160, 48))


def test_help_typed_on_the_command_line_opens_its_own_screen() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await enter_command(app, pilot, "help resume")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        topic = str(app.screen.query_one("#help-topic", Static).render())
        assert topic.startswith("usage: resume [EXPR]")
        assert not any("usage: resume" in line for line in log_of(app))
        await press(app, pilot, "escape")
        await enter_command(app, pilot, "help")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen) and not app.screen.query("#help-topic")

    drive(sample_session("linear"), scenario)


def test_enter_on_the_log_opens_the_whole_log() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        for number in range(12):
            await enter_command(app, pilot, f"print {number} * 1000")
        app.query_one(LogPane).focus()
        await press(app, pilot, "enter")
        assert isinstance(app.screen, LogScreen)
        text = str(app.screen.query_one("#log-text", Static).render())
        assert text.startswith("Debugging linear") and text.count(": print") == 12
        assert "\n0\n" in text and text.endswith("\n11000")
        await press(app, pilot, "escape")
        assert not isinstance(app.screen, LogScreen)

    drive(sample_session("linear"), scenario, size=SMALL)


def test_a_refused_edit_says_not_changed_once() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")
        app.query_one(ChannelsPane).focus()
        await press(app, pilot, "e")
        editor = app.screen
        assert isinstance(editor, EditScreen)
        editor.query_one(TextArea).text = "'not a number"
        await press(app, pilot, "ctrl+s")
        message = str(editor.query_one("#edit-message", Static).render())
        assert message.startswith("Not changed: SyntaxError"), message
        assert message.lower().count("not changed") == 1

    drive(sample_session("loop"), scenario)


def test_node_details_count_breakpoint_hits_in_words() -> None:
    from sgdebug.debugger.render import hit_count

    assert [hit_count(n) for n in (0, 1, 3)] == ["never hit", "hit once", "hit 3 times"]
