"""Starting the TUI: without a terminal it explains itself; keys can be remapped."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from sgdebug.tui import launch
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.screens.help_screen import HelpScreen

from .harness import drive, press, sample_session, status_of


def test_launch_without_a_terminal_says_how_to_run_headless(
    capsys: pytest.CaptureFixture[str],
) -> None:
    session = sample_session("linear")

    status = launch(session)

    assert status == 2
    err = capsys.readouterr().err
    assert "the TUI is not available without a terminal" in err
    assert "sgdebug run linear --script FILE" in err


def test_a_keymap_remaps_a_command_by_its_name() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")  # no longer bound
        assert status_of(app) == "paused" and app.frame is not None
        assert app.frame.view.step == 0
        await press(app, pilot, "n")
        assert app.frame.view.step == 1
        await press(app, pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert ("n", "Run one superstep (`step N` on the command line runs N)") in app.screen.keys

    drive(sample_session("linear"), scenario, keymap={"step": "n"})
