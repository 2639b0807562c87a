"""While ``continue`` runs, every pane follows the run (a frame at each plan, throttled),
not only the status line and the graph."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest
from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.history_pane import HistoryPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

from .graphs import lap_graph
from .harness import drive, graph_session, press, settle


def test_the_channels_tasks_and_history_update_while_continue_runs() -> None:
    gate = threading.Event()

    def before(done: int) -> None:
        if done == 2:  # the third lap waits for the test
            gate.wait(10)

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        app.live_interval = 0.0  # a frame at every plan
        await press(app, pilot, "s")
        await pilot.press("c")
        channels = app.query_one(ChannelsPane)
        for _ in range(250):  # until two laps committed and the third waits
            await pilot.pause(0.02)
            if channels.rows_shown and channels.rows_shown[0].value == [1, 2]:
                break
        assert app.busy  # the continue is still running
        assert channels.rows_shown[0].value == [1, 2]
        assert [r.name for r in app.query_one(TasksPane).rows_shown] == ["lap"]
        assert app.query_one(HistoryPane).option_count == 4  # input, start, two laps
        gate.set()
        await settle(app)
        assert channels.rows_shown[0].value == [1, 2, 3]

    try:
        drive(graph_session(lap_graph(before, 3), "laps", {"laps": []}), scenario)
    finally:
        gate.set()


def test_a_command_over_within_the_live_interval_shows_its_final_frame_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No frame is built and drawn while a quick command runs (the UI thread drawing it
    competed with the run's threads: a trivial parallel step of the LangGraph engine read
    20-100 ms in the history instead of 9-11); one that runs past the interval shows the
    run as it goes. The app's clock is a fake one, moved on by the node."""
    from sgdebug.tui import app as app_module

    clock = [1_000.0]
    monkeypatch.setattr(app_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    def before(done: int) -> None:
        if done == 3:  # the fourth lap takes an hour
            clock[0] += 3_600

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        built: list[int] = []
        build = app.builder.build

        def counted() -> Any:
            frame = build()
            built.append(len(frame.entries))
            return frame

        app.builder.build = counted  # type: ignore[method-assign]
        await press(app, pilot, "s")
        await press(app, pilot, "s")
        assert len(built) == 2  # each quick step: its final frame, no live one
        await press(app, pilot, "c")
        # Past the hour-long lap, the next plans show the run live (once: throttled).
        assert len(built) == 4
        assert built[2] < built[3]  # the live frame came before the run ended

    drive(graph_session(lap_graph(before, 6), "laps", {"laps": []}), scenario)
