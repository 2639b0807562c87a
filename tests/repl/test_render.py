"""Output: rich tables, trees and coloured diffs on a terminal; ``sgdebug run``'s text otherwise."""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import Session, Target, format_outcome, run_line
from sgdebug.repl.commands import Dispatcher
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer
from sgdebug.runtime import START, StateGraph

SessionFactory = Callable[..., Session]
RED, GREEN = "\x1b[31m", "\x1b[32m"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """The REPL's output on a colour terminal 120 columns wide."""

    def __init__(self, session: Session) -> None:
        import io

        from rich.console import Console

        self.file = io.StringIO()
        console = Console(file=self.file, width=120, force_terminal=True, color_system="standard")
        self.printer = Printer(session, console)
        self.dispatcher = Dispatcher(session, self.printer, PythonRunner(session))

    def run(self, *lines: str) -> str:
        start = len(self.file.getvalue())
        for line in lines:
            self.dispatcher.handle(line)
        return self.file.getvalue()[start:]


def plain(text: str) -> str:
    return _ANSI.sub("", text)


@pytest.fixture
def loop(make_session: SessionFactory) -> Session:
    session = make_session("loop")
    session.break_("before", "attempt")
    session.continue_()
    return session


def test_motion_shows_why_it_stopped_what_changed_and_what_is_next(loop: Session) -> None:
    out = Terminal(loop).run("step")

    text = plain(out)
    assert "Stopped before step 2 at breakpoint 1 (before attempt)." in text
    assert "step 1 ran attempt" in text
    assert "count: 0 -> 1" in text
    assert "status: <empty> -> 'attempt 1'" in text
    assert "next: attempt (step 2)" in text
    assert "\x1b[1;33mStopped" in out  # a breakpoint stop stands out in yellow


def test_state_is_a_table_of_keys_kinds_and_values(loop: Session) -> None:
    loop.step(1)

    text = plain(Terminal(loop).run("state"))

    rows = [line.split() for line in text.splitlines()]
    assert rows[0] == ["key", "kind", "value"]
    assert rows[1] == ["count", "LastValue", "1"]
    assert rows[2] == ["status", "LastValue", "'attempt", "1'"]


def test_a_diff_shows_old_values_in_red_and_new_ones_in_green(loop: Session) -> None:
    loop.step(1)

    out = Terminal(loop).run("diff 1 2")

    lines = plain(out).splitlines()
    assert lines == ["diff 1 -> 2", "  - count: 0", "  + count: 1", "  + status: 'attempt 1'"]
    assert f"{RED}  - " in out and f"{GREEN}  + " in out


def test_history_is_a_tree_numbered_for_goto(loop: Session) -> None:
    loop.step(1)
    run_line(loop, "goto 1")
    run_line(loop, "set count = 10")  # a branch from snapshot 1: 3 beside 2

    text = plain(Terminal(loop).run("history"))

    lines = text.splitlines()
    assert lines[0].split() == ["0", "step", "-1", "input", "next", "__start__"]
    assert lines[2].split()[:5] == ["2", "├─step", "1", "loop", "ran"]
    assert lines[3].split()[:4] == ["3", "└─step", "1", "fork"]
    assert lines[4].split()[:5] == ["*", "4", "step", "1", "update"]  # the session is here


def test_tasks_breakpoints_and_values(loop: Session) -> None:
    text = plain(Terminal(loop).run("tasks", "breaks", "p {'a': [1, 2]}", "graph"))

    assert re.search(r"pending\s+attempt\s+branch:to:attempt\s+\{'count': 0\}", text)
    assert re.search(r"1\s+yes\s+1\s+before attempt", text)
    assert "{'a': [1, 2]}" in text
    assert "│ attempt" in text and "│ report  │" in text
    assert "break before: attempt" in text


def test_a_failed_command_is_red(loop: Session) -> None:
    out = Terminal(loop).run("goto 99")

    assert "\x1b[31m*** no snapshot 99" in out


def test_plain_output_is_what_sgdebug_run_prints(loop: Session, screen: object) -> None:
    from io import StringIO

    from rich.console import Console

    file = StringIO()
    printer = Printer(loop, Console(file=file, width=120))
    dispatcher = Dispatcher(loop, printer, PythonRunner(loop))
    expected = []
    for line in ("state", "tasks", "history", "diff 1 2", "breaks"):
        outcome = run_line(loop, line)
        assert outcome is not None
        expected.append(format_outcome(outcome))
        dispatcher.handle(line)

    assert file.getvalue() == "\n".join(expected) + "\n"
    assert "\x1b[" not in file.getvalue()
    assert printer.rich is False


class Counter(TypedDict):
    n: int


def ok(state: Counter) -> dict[str, Any]:
    return {"n": state["n"] + 1}


def boom(state: Counter) -> dict[str, Any]:
    raise ValueError("boom")


def test_an_error_shows_what_ran_before_its_traceback() -> None:
    builder = StateGraph(Counter).add_node("ok", ok).add_node("boom", boom)
    builder.add_edge(START, "ok").add_edge("ok", "boom")
    session = Session(Target(builder.compile(), {}, "boom"), input={"n": 0})
    session.restart()

    text = plain(Terminal(session).run("continue"))

    assert text.index("Node 'boom' raised ValueError: boom") < text.index("ran ok")
    assert text.index("ran ok") < text.index("Traceback (most recent call last)")


class Items(TypedDict):
    items: Annotated[list[str], operator.add]


def append_twice(state: Items) -> dict[str, Any]:
    state["items"].append("new")
    return {"items": ["new"]}


def test_state_marks_a_value_the_last_step_changed_in_place() -> None:
    builder = StateGraph(Items).add_node("append_twice", append_twice)
    builder.add_edge(START, "append_twice")
    session = Session(Target(builder.compile(), {}, "dup"), input={"items": ["first"]})
    session.restart()
    terminal = Terminal(session)

    assert "in place" not in plain(terminal.run("step", "state"))  # __start__ only
    text = plain(terminal.run("step", "state"))

    assert "! in place: append_twice @1" in text
    assert "['first', 'new', 'new']" in text


class Notes(TypedDict):
    notes: Annotated[list[Any], operator.add]


class Word:
    """Previews as a bare word: a list of them reads ``[bold]``, a Rich style tag."""

    def __repr__(self) -> str:
        return "bold"


def test_brackets_in_values_and_conditions_are_shown_not_read_as_markup() -> None:
    """A task's input ``{'notes': [bold]}`` and a condition ``[n for n in state]`` are
    text (the tables read them as Rich markup: a style, dropped from the screen)."""
    builder = StateGraph(Notes).add_node("read", lambda state: {"notes": ["read"]})
    builder.add_edge(START, "read")
    session = Session(Target(builder.compile(), {}, "graph"), input={"notes": [Word()]})
    condition = "len([n for n in state]) > 0"
    text = plain(Terminal(session).run("restart", f"break before read if {condition}", "c",
                                       "tasks", "breaks"))  # fmt: skip
    assert "{'notes': [bold]}" in text
    assert f"before read if {condition}" in text
