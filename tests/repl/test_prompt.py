"""The interactive REPL driven through prompt-toolkit's pipe input: completion, commands,
Python, history, search, blocks and quitting."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.formatted_text.base import StyleAndTextTuples

from sgdebug.debugger import Session
from sgdebug.repl.app import history_path
from sgdebug.repl.prompt import ReplLexer, message, toolbar
from sgdebug.sample_graphs import load

SessionFactory = Callable[..., Session]
Drive = Callable[[Session], Any]


def test_tab_completes_a_node_after_break_before(
    make_session: SessionFactory, drive: Drive
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.complete("break before att", "break before attempt")
        keys.enter()
        keys.quit()

    drive(session)(script)

    assert [b.describe() for b in session.breakpoints] == ["on exception", "before attempt"]


def test_tab_completes_a_channel_inside_state_brackets(
    make_session: SessionFactory, drive: Drive, screen: Any
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.line("step 2")
        keys.complete('p state["co', 'p state["count"]')
        keys.enter()
        keys.quit()

    drive(session)(script)

    assert screen.text.rstrip().endswith("1")  # count after one pass of ``attempt``


def test_tab_completes_a_snapshot_number_after_goto(
    make_session: SessionFactory, drive: Drive
) -> None:
    session = make_session("loop")
    session.step(3)  # snapshots 0..3; the newest is offered first

    def script(keys: Any) -> None:
        keys.line("goto 1")
        keys.complete("diff 0 ", "diff 0 3")
        keys.enter()
        keys.quit()

    drive(session)(script)

    assert session.view().snapshot_index == 1


def test_commands_and_python_share_the_prompt(
    make_session: SessionFactory, drive: Drive, screen: Any
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.line("break before attempt")
        keys.line("continue")
        keys.line('state["count"] = 2')  # a real edit: attempt sees 2 and makes it 3
        keys.line("continue")
        keys.line('state["status"]')
        keys.quit()

    drive(session)(script)

    out = screen.text
    assert "Stopped before step 1 at breakpoint 1 (before attempt)" in out
    assert "Set count." in out
    assert "'done after 3 attempts'" in out
    assert session.view().values["count"] == 3


def test_history_is_saved_under_the_data_directory(
    make_session: SessionFactory, drive: Drive, data_home: Path
) -> None:
    def script(keys: Any) -> None:
        keys.line("tasks")
        keys.line("x = 41 + 1")
        keys.quit()

    drive(make_session("loop"))(script)

    path = history_path()
    assert path == data_home / "sgdebug" / "repl_history"
    saved = path.read_text()
    assert "+tasks\n" in saved and "+x = 41 + 1\n" in saved


def test_ctrl_r_finds_an_earlier_entry_in_the_history(
    make_session: SessionFactory, drive: Drive, screen: Any
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.line("print 6 * 7")
        keys.line("tasks")
        keys.ready()
        keys.send("\x12")  # Ctrl+R
        keys.send("6 *")
        app = keys.repl.prompt.app
        keys.wait(lambda: app.current_buffer.text == "6 *", "the search text")
        keys.send("\r")  # leave the search with the entry found in the buffer
        keys.wait(lambda: keys.buffer_text == "print 6 * 7", "the entry found")
        keys.enter()
        keys.quit()

    drive(session)(script)

    assert screen.text.count("\n42\n") == 2


def test_a_python_block_runs_after_an_empty_line(
    make_session: SessionFactory, drive: Drive, capsys: pytest.CaptureFixture[str]
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.ready()
        keys.send("for n in range(2):")
        keys.wait(lambda: keys.buffer_text == "for n in range(2):", "the first line")
        keys.send("\r")  # a block: Enter opens an indented line
        keys.wait(lambda: keys.buffer_text == "for n in range(2):\n    ", "the indented line")
        keys.send("print('n', n)\r")
        keys.wait(lambda: keys.buffer_text.endswith("n)\n    "), "the next line")
        keys.enter()  # the empty line ends the block
        keys.quit()

    drive(session)(script)

    assert "n 0\nn 1\n" in capsys.readouterr().out


def test_ctrl_d_asks_before_discarding_an_unsaved_session(
    make_session: SessionFactory, drive: Drive
) -> None:
    session = make_session("loop")
    answers: list[str] = []

    def script(keys: Any) -> None:
        keys.quit()
        keys.wait(lambda: keys.repl.prompt.app.is_running is False, "the question")
        keys.send("n\r")  # no: back at the prompt
        answers.append("n")
        keys.quit()
        keys.send("y\r")
        answers.append("y")

    repl = drive(session)(script, confirm=True)

    assert answers == ["n", "y"]
    assert repl.entries >= 2  # it came back to the prompt after "n"


def test_quit_from_a_suspended_front_end_leaves_the_session_open(
    make_session: SessionFactory, drive: Drive
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.line("quit")

    drive(session)(script)

    assert session.status == "paused"
    assert session.step(1).ok


@pytest.mark.parametrize("nested", [False, True])
def test_the_repl_says_how_to_leave_it_back_to_the_tui_when_opened_from_it(
    make_session: SessionFactory, drive: Drive, screen: Any, nested: bool
) -> None:
    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.line("help")
        keys.line("help quit")
        keys.line("quit")

    drive(session)(script, nested=nested)

    text = screen.text
    bar = _text(toolbar(session, nested=nested)())
    if nested:
        assert "Ctrl+D or `quit` returns to the TUI" in text
        assert "Return to the TUI." in text and "the session stays open" in text
        assert "Quit the debugger" not in text and "Ctrl+D quits" not in text
        assert "Ctrl+D back to the TUI" in bar
    else:
        assert "Tab completes, Ctrl+D quits." in text and "Quit the debugger." in text
        assert "TUI" not in text and "Ctrl+D quit " in bar
    assert session.status == "paused"


def _text(fragments: StyleAndTextTuples) -> str:
    return fragment_list_to_text(fragments)


def test_the_prompt_shows_the_step_and_the_run_state(make_session: SessionFactory) -> None:
    idle = make_session("loop", start=False)
    session = make_session("loop")
    session.step(2)

    assert _text(message(idle)()) == "idle (sgdebug) "
    assert _text(message(session)()) == "step 2 · paused (sgdebug) "
    session.continue_()
    assert _text(message(session)()) == "step 5 · done (sgdebug) "
    assert "The run finished." in _text(toolbar(session, columns=lambda: 160)())


def test_commands_and_python_are_highlighted(make_session: SessionFactory) -> None:
    from prompt_toolkit.document import Document

    lexer = ReplLexer()

    command = lexer.lex_document(Document('break before attempt if state["count"] > 1'))(0)
    python = lexer.lex_document(Document("x = [1, 2]"))(0)

    assert command[0] == ("class:command", "break")
    assert _text(command) == 'break before attempt if state["count"] > 1'
    assert any("number" in style for style, *_ in command)
    assert all(style != "class:command" for style, *_ in python)
    assert any("number" in style for style, *_ in python)


def test_the_repl_runs_inside_a_running_event_loop(
    make_session: SessionFactory, drive: Drive, screen: Any
) -> None:
    import asyncio

    session = make_session("loop")

    def script(keys: Any) -> None:
        keys.line("step")
        keys.quit()

    async def suspended_front_end() -> None:  # as a TUI that suspends into the REPL
        drive(session)(script)

    asyncio.run(suspended_front_end())

    assert "Paused before step 1." in screen.text


def test_the_prompt_follows_the_run(make_session: SessionFactory, drive: Drive) -> None:
    session = make_session("loop")
    seen: list[str] = []

    def script(keys: Any) -> None:
        for line in ("step 2", "continue"):
            keys.ready()
            seen.append(_text(keys.repl.prompt.message))
            keys.line(line)
        keys.ready()
        seen.append(_text(keys.repl.prompt.message))
        keys.quit()

    drive(session)(script)

    assert seen == [
        "step 0 · paused (sgdebug) ",
        "step 2 · paused (sgdebug) ",
        "step 5 · done (sgdebug) ",
    ]


def test_the_repl_debugs_a_langgraph_graph_and_says_what_it_cannot_do(
    make_session: SessionFactory, drive: Drive, screen: Any
) -> None:
    session = make_session("fanout", engine="langgraph")

    def script(keys: Any) -> None:
        keys.line("step 2")
        keys.line("task")
        keys.line("p sorted(state['trail'])")
        keys.line("help task")
        keys.line("continue")
        keys.quit()

    drive(session)(script)

    text = screen.text
    assert "[langgraph]" in _text(toolbar(session)())
    assert "task: not available on the langgraph engine: LangGraph runs the tasks" in text
    assert "['a', 'b', 'c']" in text
    assert "unavailable on the langgraph engine" in text
    assert "The run finished." in text
    module = load("fanout")
    assert session.view().values == module.langgraph_graph.invoke(module.EXAMPLE_INPUT)


def test_the_toolbar_fits_an_80_column_terminal() -> None:
    from sgdebug.repl.prompt import ToolbarParts, fit_toolbar

    parts = ToolbarParts("sgdebug.sample_graphs.chatbot:graph [native]", "step 0 · paused",
                         "Started: paused before step 0.", 0, "Ctrl+D quit")  # fmt: skip

    wide = "".join(fit_toolbar(parts, 160))
    middle = "".join(fit_toolbar(parts, 100))
    narrow = "".join(fit_toolbar(parts, 80))
    tiny = "".join(fit_toolbar(parts, 40))

    assert "sgdebug.sample_graphs.chatbot:graph" in wide and "Ctrl+R search" in wide
    assert middle.startswith(" chatbot:graph [native]  step 0 · paused  Started: paused before")
    assert len(middle) <= 100
    assert len(narrow) <= 80
    assert narrow.startswith(" chatbot:graph [native]  step 0 · paused  breakpoints: 0")
    assert "breakpoints: 0" in narrow and narrow.endswith("│ Ctrl+D quit ")
    assert tiny == " step 0 · paused  breakpoints: 0  │ Ctrl+D quit "
