"""A step that fails at commit, in the TUI: the screen leaves RUNNING and shows the error (which
channel, whose writes), the state before the step, and an edit then ``R`` runs it again."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest
from textual.pilot import Pilot

from sgdebug.debugger.frame import FrameBuilder
from sgdebug.sample_graphs import Engine, api
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.traceback_pane import TracebackPane

from .harness import drive, enter_command, graph_session, press, status_of, status_text


class Modes(TypedDict, total=False):
    mode: str
    log: Annotated[list[str], operator.add]


def writers(engine: Engine) -> Any:
    """``START -> a -> {b, c}``; ``b`` and ``c`` write a bare string to the list ``log``
    (``operator.add`` rejects it at commit) while ``mode`` is ``"bad"``."""
    lg = api(engine)

    def writer(name: str) -> Any:
        return lambda state: {"log": name if state.get("mode") == "bad" else [name]}

    builder = lg.StateGraph(Modes)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", writer("b"))
    builder.add_node("c", writer("c"))
    builder.add_edge(lg.START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    return builder.compile()


@pytest.mark.parametrize("engine", ["sgdebug", "langgraph"])
def test_a_commit_error_leaves_running_shows_the_error_and_retry_runs_the_step(
    engine: Engine,
) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert status_of(app) == "error"
        assert "RUNNING" not in status_text(app) and "ERROR" in status_text(app)
        pane = app.query_one(TracebackPane)
        assert pane.display
        assert (
            "Step 2 could not commit: the reducer of 'log' (operator.add) raised TypeError "
            "on the writes of b, c" in pane.text
        )
        assert app.frame is not None
        assert app.frame.view.values == {"mode": "bad", "log": ["a"]}
        builder = FrameBuilder(session)
        builder.build()  # every pane's data builds again without raising
        builder.close()
        await enter_command(app, pilot, "set mode = 'good'")
        await press(app, pilot, "R")
        assert status_of(app) == "done"
        assert app.frame.view.values == {"mode": "good", "log": ["a", "b", "c"]}

    session = graph_session(writers(engine), "writers", {"mode": "bad"})
    drive(session, scenario)
