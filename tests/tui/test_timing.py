"""Per-node timing on screen: the history gives each step's time, the highlighted step's
tasks in the subtitle, and a node's details its last and total time (both engines)."""

from __future__ import annotations

import re

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.node_screen import NodeScreen
from sgdebug.tui.widgets.history_pane import HistoryPane

from .harness import drive, press, sample_session, select_node
from .test_behaviour import history_lines

TIME = r"(\d+ µs|\d+\.\d (ms|s))"


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_the_history_times_each_step_and_a_node_its_runs(engine: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        lines = [line for line in history_lines(app) if "ran attempt" in line]
        assert len(lines) == 3 and all(re.search(f"ran attempt  {TIME}", ln) for ln in lines)

        history = app.query_one(HistoryPane)
        assert re.fullmatch(rf"#\d+: report {TIME}", str(history.border_subtitle))  # here
        history.focus()
        await press(app, pilot, "up")  # the step that ran attempt the third time
        assert re.fullmatch(rf"#\d+: attempt {TIME}", str(history.border_subtitle))

        await select_node(app, pilot, "attempt")
        await press(app, pilot, "enter")
        assert isinstance(app.screen, NodeScreen)
        text = str(app.screen.query_one(Static).render())
        assert re.search(rf"last run: {TIME}; all 3 runs this session: {TIME}", text)

    drive(sample_session("loop", engine=engine), scenario, size=(160, 48))


def test_times_read_in_microseconds_below_a_millisecond_then_milliseconds_then_seconds() -> None:
    from sgdebug.tui.details import timing_text

    assert [timing_text(s) for s in (None, 0.0, 0.0000424, 0.00099, 0.0123, 0.9994, 4.1)] == [
        "", "0 µs", "42 µs", "990 µs", "12.3 ms", "999.4 ms", "4.10 s"
    ]  # fmt: skip
