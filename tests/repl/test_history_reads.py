"""``history`` draws the snapshot tree from the history's entries, as the TUI does: it
loads no snapshot, so a long session lists as fast as a short one."""

from __future__ import annotations

import io
import re
from typing import Any, TypedDict

import pytest
from rich.console import Console

from sgdebug.debugger import Session, SessionOptions, Target
from sgdebug.repl.commands import Dispatcher
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer
from sgdebug.runtime import END, START, StateGraph

STEPS = 300
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Count(TypedDict):
    n: int


def _tick(state: Count) -> dict[str, int]:
    return {"n": state["n"] + 1}


def _long_session() -> Session:
    builder = StateGraph(Count)
    builder.add_node("tick", _tick)
    builder.add_edge(START, "tick")
    builder.add_conditional_edges("tick", lambda s: "tick" if s["n"] < STEPS else END)
    graph = builder.compile()
    options = SessionOptions(recursion_limit=STEPS + 10)
    session = Session(Target(graph, {}, "ticks"), input={"n": 0}, options=options)
    session.restart({"n": 0})
    assert session.continue_().ok
    return session


def _history_output(session: Session) -> str:
    file = io.StringIO()
    console = Console(file=file, width=120, force_terminal=True, color_system="standard")
    printer = Printer(session, console)
    Dispatcher(session, printer, PythonRunner(session)).handle("history")
    return _ANSI.sub("", file.getvalue())


def test_history_of_a_long_session_loads_no_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    session = _long_session()
    engine = session.engine
    loads: list[Any] = []
    real = engine.snapshot

    def counted(*args: Any, **kwargs: Any) -> Any:
        loads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "snapshot", counted)

    lines = _history_output(session).splitlines()

    assert loads == []
    assert len(lines) == STEPS + 2  # the input, the first step (START), then each tick
    assert lines[0].split() == ["0", "step", "-1", "input", "next", "__start__"]
    assert lines[-1].split()[:6] == ["*", str(STEPS + 1), "step", str(STEPS), "loop", "ran"]
