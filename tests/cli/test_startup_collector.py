"""The command line starts with the garbage collector paused, and every front end gets it
back before the user's graph runs (a script, the REPL; the TUI once its first screen is
drawn, tested in tests/tui/test_startup.py)."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from sgdebug.cli import _startup
from tests.cli.conftest import Sgdebug

LINEAR = "sgdebug.sample_graphs.linear:graph"
# What a script (and the REPL) sees of the collector once it runs.
PROBE = 'print (__import__("gc").isenabled(), __import__("gc").get_freeze_count() > 0)\n'


@pytest.fixture
def collector() -> Iterator[None]:
    """Leave the test process's collector as it was."""
    yield
    _startup._paused.clear()
    gc.unfreeze()
    gc.enable()


@pytest.mark.usefixtures("collector")
def test_resuming_freezes_start_ups_objects_and_collects_again() -> None:
    _startup.pause_collector()
    paused = gc.isenabled()
    _startup.resume_collector()

    assert paused is False
    assert gc.isenabled() is True
    assert gc.get_freeze_count() > 0


@pytest.mark.usefixtures("collector")
def test_a_collector_switched_off_before_is_left_off() -> None:
    gc.disable()
    _startup.pause_collector()
    _startup.resume_collector()

    assert gc.isenabled() is False
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("command", ["run", "repl"])
def test_a_script_and_the_repl_run_with_the_collector_back(sgdebug: Sgdebug, command: str) -> None:
    result = sgdebug(command, LINEAR, *(["--script", "-"] if command == "run" else []),
                     stdin=PROBE)  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert "(True, True)" in result.stdout


def test_the_console_script_starts_with_the_collector_paused() -> None:
    probe = (
        "import gc, sys\n"
        "import sgdebug.cli._app as typer_side\n"
        "from sgdebug.cli import main\n"
        "typer_side.app = lambda **kwargs: print(gc.isenabled())\n"
        "main()\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=60, check=False)  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
