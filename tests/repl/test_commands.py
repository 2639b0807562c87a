"""Dispatch: commands or Python, help, quitting, and Ctrl+C pausing a running ``continue``."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from sgdebug.debugger import Session
from sgdebug.repl.commands import Dispatcher, classify, is_complete
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer

SessionFactory = Callable[..., Session]


@pytest.mark.parametrize(
    ("line", "kind", "text"),
    [
        ("continue", "command", "continue"),
        ("  c  ", "command", "c"),
        ('p state["count"]', "command", 'p state["count"]'),
        ("set count = 3", "command", "set count = 3"),
        ("state", "command", "state"),
        ("p = 3", "python", "p = 3"),  # an assignment to a name that is also a command
        ("c += 1", "python", "c += 1"),
        ("s: int = 1", "python", "s: int = 1"),
        ("!c", "python", "c"),  # ``!`` forces Python
        ("!state", "python", "state"),
        ('state["count"] = 1', "python", 'state["count"] = 1'),
        ("graph.name", "python", "graph.name"),
        ("help(len)", "python", "help(len)"),
        ("for x in y:\n    pass\n", "python", "for x in y:\n    pass"),
        ("", "empty", ""),
        ("   # a comment", "empty", ""),
    ],
)
def test_a_line_is_a_command_python_or_nothing(line: str, kind: str, text: str) -> None:
    found = classify(line)

    assert (found.kind, found.text) == (kind, text)


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        ("step", True),
        ("x = 1", True),
        ("for x in y:", False),
        ("for x in y:\n    print(x)", False),
        ("for x in y:\n    print(x)\n", True),  # the empty line ends the block
        ("f(1,", False),
        ("1 +* 2", True),  # run it, so the syntax error shows
    ],
)
def test_enter_runs_complete_entries_and_continues_blocks(text: str, complete: bool) -> None:
    assert is_complete(text) is complete


@pytest.fixture
def dispatch(screen: Any) -> Callable[[Session], Dispatcher]:
    def make(session: Session) -> Dispatcher:
        return Dispatcher(session, Printer(session, screen.console), PythonRunner(session))

    return make


def test_quit_is_for_the_loop_to_decide(
    make_session: SessionFactory, dispatch: Callable[[Session], Dispatcher]
) -> None:
    session = make_session("loop")
    dispatcher = dispatch(session)

    assert dispatcher.handle("quit") is True
    assert dispatcher.handle("exit()") is True
    assert dispatcher.handle("step") is False
    assert session.status == "paused"  # ``quit`` did not close the session


def test_help_adds_what_the_repl_does(
    make_session: SessionFactory, dispatch: Callable[[Session], Dispatcher], screen: Any
) -> None:
    dispatcher = dispatch(make_session("loop"))

    dispatcher.handle("help")
    dispatcher.handle("help goto")

    assert "break before|after NODE [if EXPR]" in screen.text
    assert "`!` forces" in screen.text and "Ctrl+R" in screen.text
    assert "usage: goto SNAP" in screen.text


def test_errors_say_what_was_expected(
    make_session: SessionFactory, dispatch: Callable[[Session], Dispatcher], screen: Any
) -> None:
    dispatcher = dispatch(make_session("loop"))

    dispatcher.handle("break during attempt")
    dispatcher.handle("contnue")
    dispatcher.handle("resume 1")

    out = screen.text
    assert "*** break: expected 'before' or 'after', got 'during'" in out
    assert "NameError: name 'contnue' is not defined" in out
    assert "did you mean 'continue'?" in out
    assert "*** resume: nothing to resume" in out


def _interrupt_after(seconds: float) -> threading.Timer:
    def fire() -> None:
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(seconds, fire)
    timer.start()
    return timer


def test_ctrl_c_pauses_a_running_continue_at_the_next_superstep(
    endless: Session, dispatch: Callable[[Session], Dispatcher], screen: Any
) -> None:
    handler = signal.getsignal(signal.SIGINT)
    timer = _interrupt_after(0.2)

    dispatch(endless).handle("continue")
    timer.join()

    assert endless.status == "paused"
    assert endless.stop is not None and endless.stop.kind == "pause"
    assert "Paused on request before step" in screen.text
    assert 0 < endless.view().values["ticks"] < 1000  # it ran, and stopped before the limit
    assert signal.getsignal(signal.SIGINT) is handler  # put back once the command ended


def test_a_second_ctrl_c_interrupts_the_node(
    endless: Session, dispatch: Callable[[Session], Dispatcher], screen: Any
) -> None:
    pauses: list[int] = []
    original = endless.request_pause

    def ignore_pause() -> None:  # a node that never lets the step end
        pauses.append(1)

    endless.request_pause = ignore_pause  # type: ignore[method-assign]
    timer = threading.Timer(0.1, lambda: os.kill(os.getpid(), signal.SIGINT))
    second = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    second.start()

    dispatch(endless).handle("continue")
    second.join()
    endless.request_pause = original  # type: ignore[method-assign]

    assert pauses == [1]  # (without the interrupt, the run would end at its recursion limit)
    assert "Interrupted (Ctrl-C)" in screen.text
    assert endless.status == "paused"
