"""The REPL on a terminal cuts a long value, unless ``--all`` asks for all of it."""

from __future__ import annotations

import io
from typing import TypedDict

from rich.console import Console

from sgdebug.debugger import Session, Target
from sgdebug.repl.commands import Dispatcher
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer
from sgdebug.runtime import END, START, StateGraph


class State(TypedDict):
    items: list[int]


def terminal_output(*lines: str) -> str:
    builder = StateGraph(State)
    builder.add_node("noop", lambda s: {})
    builder.add_edge(START, "noop").add_edge("noop", END)
    session = Session(Target(builder.compile(), {}, "g"), input={"items": list(range(500))})
    assert session.restart().ok and session.step().ok  # the input is in the state
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system=None)
    dispatcher = Dispatcher(session, Printer(session, console), PythonRunner(session))
    for line in lines:
        dispatcher.handle(line)
    return out.getvalue()


def test_print_cuts_a_long_list_and_print_all_prints_it_whole() -> None:
    cut = terminal_output("print state['items']")
    assert "499" not in cut and "+450" in cut
    whole = terminal_output("print --all state['items']")
    assert "499" in whole and "+450" not in whole


def test_state_all_prints_long_values_whole() -> None:
    assert "+450" in terminal_output("state")
    assert "499" in terminal_output("state --all")
