"""What a new user hits first in the TUI: editing a message list, answering an interrupt in
plain words, conditions over channels by bare name, the log's room, help in its own screen."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import TextArea

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.edit_screen import EditScreen
from sgdebug.tui.widgets.channels_pane import ChannelsPane

from .harness import drive, enter_command, log_of, press, sample_session, status_of


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
