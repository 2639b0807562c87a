"""A step that fails at commit, in the REPL: one clear message (no double traceback), and
every view prints the state before the step."""

from __future__ import annotations

import io
import operator
from typing import Annotated, Any, TypedDict

from rich.console import Console

from sgdebug.debugger import Session, Target
from sgdebug.repl.commands import Dispatcher
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer
from sgdebug.runtime import START, StateGraph


class Modes(TypedDict, total=False):
    mode: str
    log: Annotated[list[str], operator.add]


def writers() -> Any:
    """``START -> a -> {b, c}``; ``b`` and ``c`` write bare strings to the list ``log``."""
    builder = StateGraph(Modes)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": "b"})
    builder.add_node("c", lambda state: {"log": "c"})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    return builder.compile()


def test_every_repl_view_prints_the_state_before_a_failed_commit() -> None:
    session = Session(Target(writers(), {}, "writers"), input={"mode": "bad"})
    out = io.StringIO()
    printer = Printer(session, Console(file=out, width=120, color_system=None))
    dispatcher = Dispatcher(session, printer, PythonRunner(session))
    for line in ("restart", "continue", "state", "tasks", "history", "show", "diff", "graph",
                 "state['log']", "snapshot.values"):  # fmt: skip
        dispatcher.handle(line)
    text = out.getvalue()
    message = "the reducer of 'log' (operator.add) raised TypeError on the writes of b, c"
    assert text.count(message) == 1
    assert "Traceback" not in text
    assert session.view().status == "error"
    assert session.view().values == {"mode": "bad", "log": ["a"]}
