"""Stopping a node that never ends: Ctrl+C twice, quitting, SIGTERM and SIGHUP."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from textual.pilot import Pilot

from sgdebug.runtime import END, START, CompiledStateGraph, StateGraph
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.confirm_screen import ConfirmScreen
from sgdebug.tui.widgets.command_line import CommandLine

from .harness import (
    Scenario,
    drive,
    graph_session,
    log_of,
    press,
    sample_session,
    settle,
    status_of,
)

HANG_GUARD_S = 30.0
"""Waiting longer than this for the node to start means the test is broken, not slow."""
INTERRUPTED = "Interrupted (Ctrl-C); the unfinished step will run again."


class LoopState(TypedDict):
    """How many times ``spin`` ran to its end (it never does until released)."""

    laps: int


class Spinner:
    """A node in an endless loop: ``while True: pass`` (or a sleep, or one blocking wait),
    which only the test's own clean-up ends, so a failing test cannot hang the suite."""

    def __init__(self, body: str = "sleep") -> None:
        self.body = body
        self.started = threading.Event()
        self.release = threading.Event()

    def spin(self, state: LoopState) -> dict[str, Any]:
        self.started.set()
        if self.body == "wait":  # one C call Python cannot interrupt
            self.release.wait()
        while not self.release.is_set():
            if self.body == "sleep":
                time.sleep(0.01)
        return {"laps": state["laps"] + 1}

    def graph(self) -> CompiledStateGraph:
        builder = StateGraph(LoopState)
        builder.add_node("spin", self.spin)
        builder.add_edge(START, "spin")
        builder.add_edge("spin", END)
        return builder.compile()


@pytest.fixture
def spinner() -> Iterator[Spinner]:
    made = Spinner()
    yield made
    made.release.set()


async def start_spinning(app: DebuggerApp, pilot: Pilot[int], spinner: Spinner) -> None:
    """Step over the input, then continue into ``spin``; return once it loops."""
    await press(app, pilot, "s")
    await pilot.press("c")
    assert await asyncio.to_thread(spinner.started.wait, HANG_GUARD_S)
    assert app.busy


def run_spinning(spinner: Spinner, scenario: Scenario) -> DebuggerApp:
    """Drive the app on the spinner's graph; ``scenario`` runs once the node loops."""

    async def steps(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await start_spinning(app, pilot, spinner)
        await scenario(app, pilot)

    try:
        return drive(graph_session(spinner.graph(), "spin", {"laps": 0}), steps)
    finally:
        spinner.release.set()


@pytest.mark.parametrize("body", ["pass", "sleep"])
def test_ctrl_c_twice_interrupts_a_node_in_an_endless_loop(spinner: Spinner, body: str) -> None:
    spinner.body = body

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await pilot.press("ctrl+c")
        assert app.busy  # the first press only asks for a pause at the next superstep
        assert "Ctrl+C again interrupts the running node" in log_of(app)[-1]
        await press(app, pilot, "ctrl+c")
        assert not app.busy
        assert status_of(app) == "paused"
        assert app.frame is not None and app.frame.view.step == 1  # step 1 will run again
        assert [t.name for t in app.frame.tasks] == ["spin"]
        assert INTERRUPTED in log_of(app)
        spinner.release.set()
        await press(app, pilot, "c")  # the step runs again, now to the end
        assert status_of(app) == "done"
        assert app.session.view().values == {"laps": 1}

    run_spinning(spinner, scenario)


def test_q_quits_while_a_node_loops(spinner: Spinner) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmScreen)  # the screen answers while it runs
        await press(app, pilot, "y")

    app = run_spinning(spinner, scenario)

    assert app.session.status == "closed"
    assert app.return_code == 0
    assert not app.engine_left_running


def test_quitting_does_not_wait_for_a_node_that_cannot_be_interrupted(
    spinner: Spinner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sgdebug.tui.actions.QUIT_GRACE_S", 0.05)
    spinner.body = "wait"

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await pilot.press("q")
        await press(app, pilot, "y")
        assert app.engine_left_running  # launch() exits the process without waiting
        spinner.release.set()

    app = run_spinning(spinner, scenario)

    assert app.return_code == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_sigterm_and_sighup_exit_the_app_while_a_node_loops(spinner: Spinner, signum: int) -> None:
    previous = signal.getsignal(signum)

    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        os.kill(os.getpid(), signum)
        await settle(app)

    app = run_spinning(spinner, scenario)

    assert app.return_code == 128 + signum
    assert app.stopper.wait_idle(HANG_GUARD_S)  # the node was interrupted
    assert signal.getsignal(signum) == previous  # the handler was only there while it ran


def test_ctrl_c_interrupts_an_endless_expression_at_once() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        app.action_command_line()
        app.query_one(CommandLine).value = "print next(x for x in iter(int, 1) if x)"
        await pilot.press("enter")
        for _ in range(1000):  # until the engine thread runs it (a bound, not a timing)
            await pilot.press("ctrl+c")  # no superstep to pause at: the first press interrupts
            if "Interrupting the running node (Ctrl+C)." in log_of(app):
                break
        await settle(app)
        assert not app.busy
        assert log_of(app)[-1] == "*** Interrupted (Ctrl-C)."
        await press(app, pilot, "s")  # the session still works
        assert status_of(app) == "paused"

    drive(sample_session("linear"), scenario)
