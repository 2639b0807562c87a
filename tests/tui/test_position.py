"""Every pane follows the snapshot the session stands at: going back in the history shows
that snapshot's tasks, graph marks, diff and values; moving on leaves an old snapshot's view."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.inspector_pane import InspectorPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

from .harness import drive, enter_command, press, sample_session, status_text
from .test_behaviour import diff_text

ENGINES = pytest.mark.parametrize("engine", ["native", "langgraph"])


def _shown(app: DebuggerApp) -> tuple[list[str], dict[str, str], str]:
    tasks = [r.name for r in app.query_one(TasksPane).rows_shown]
    graph: dict[str, str] = {n: s.status for n, s in app.query_one(GraphPane).states.items()}
    return tasks, graph, diff_text(app)


@ENGINES
def test_the_history_keys_go_back_and_every_pane_shows_that_snapshot(engine: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s")  # paused before step 2: node_2 pending
        await press(app, pilot, "h", "up", "enter")  # snapshot #1: before step 1

        tasks, graph, diff = _shown(app)
        assert "step 1" in status_text(app)
        assert tasks == ["node_1"]
        assert graph["node_1"] == "pending" and graph["node_2"] == "idle"
        assert graph["__start__"] == "ran"  # its writes made snapshot #1
        assert "Step 0 committed the writes of __start__" in diff and "node_1 →" not in diff
        cur_id = app.query_one(ChannelsPane).rows_shown[0]
        assert (cur_id.name, cur_id.value) == ("cur_id", "request-7")

        await enter_command(app, pilot, "goto 0")
        tasks, graph, _ = _shown(app)
        assert tasks == ["__start__"] and graph["__start__"] == "pending"
        assert "node_1" not in [n for n, s in graph.items() if s != "idle"]

    drive(sample_session("linear", engine=engine), scenario, size=(160, 48))


def test_the_value_pane_leaves_an_old_snapshot_once_the_session_moves() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "s", "h", "up")  # looking at snapshot #1 (read-only)
        inspector = app.query_one(InspectorPane)
        assert inspector.subject == "snapshot #1 (read-only)"

        await press(app, pilot, "s")

        assert inspector.subject.startswith("channel ")

    drive(sample_session("linear"), scenario)
