"""``sgdebug run``'s exit statuses: stopped at a breakpoint or an interrupt (3), Ctrl-C (130),
and the help that documents every status."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import SPINNING, Sgdebug, Write

START = '{"count": 1, "log": []}'
HANG_GUARD_S = 30.0
"""Waiting longer than this means the test is broken (it stops a hung test, it times nothing)."""

ASKS = """\
from typing import TypedDict
from sgdebug.runtime import END, START, StateGraph, interrupt

class State(TypedDict):
    answer: str

def ask(state: State) -> dict:
    return {"answer": str(interrupt("your name?"))}

builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_edge(START, "ask")
builder.add_edge("ask", END)
graph = builder.compile()
"""


LOOPS_ON_IMPORT = """\
from pathlib import Path

Path("spinning").touch()
while True:
    pass
"""


@pytest.mark.parametrize(
    ("script", "status"),
    [("continue\n", 0), ("step\n", 0), ("break before second\ncontinue\n", 3),
     ("break before second\ncontinue\nstate\n", 3), ("break before second\ncontinue\nquit\n", 3),
     ("break before second\ncontinue\ncontinue\n", 0)],
    ids=["ran-to-the-end", "paused-by-a-step", "at-a-breakpoint", "then-inspects",
         "then-quits", "then-continues"],
)  # fmt: skip
def test_a_script_that_ends_at_a_breakpoint_exits_3(
    sgdebug: Sgdebug, script: str, status: int
) -> None:
    result = sgdebug("run", "app:graph", "--input", START, stdin=script)

    assert result.returncode == status, result.stdout + result.stderr


def test_a_script_that_ends_waiting_at_an_interrupt_exits_3(sgdebug: Sgdebug, write: Write) -> None:
    write("asks.py", ASKS)

    waiting = sgdebug("run", "asks:graph", stdin="continue\n")
    answered = sgdebug("run", "asks:graph", stdin="continue\nresume 'Ada'\n")

    assert waiting.returncode == 3, waiting.stdout + waiting.stderr
    assert "the graph asks" in waiting.stdout
    assert answered.returncode == 0, answered.stdout + answered.stderr


def _interrupt(project: Path, *args: str, script: str) -> subprocess.CompletedProcess[str]:
    """Start ``sgdebug run ARGS --script``, press Ctrl-C (SIGINT) once ``spinning`` exists."""
    (project / "script.txt").write_text(script)
    process = subprocess.Popen(
        [sys.executable, "-m", "sgdebug", "run", *args, "--script", "script.txt"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + HANG_GUARD_S
    while not (project / "spinning").exists():
        assert process.poll() is None and time.monotonic() < deadline, "it never spun"
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=HANG_GUARD_S)
    finally:
        process.kill()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize("graph", ["graph", "parallel_graph"], ids=["alone", "in-parallel"])
def test_ctrl_c_ends_the_script_with_130_even_in_an_endless_loop(
    project: Path, write: Write, graph: str
) -> None:
    write("spins.py", SPINNING)

    result = _interrupt(project, f"spins:{graph}", "--input", '{"n": 0}',
                        script="continue\nstate\n")  # fmt: skip

    assert result.returncode == 130, result.stdout + result.stderr
    assert "Interrupted (Ctrl-C); the unfinished step will run again." in result.stdout
    assert "(sgdebug) state" not in result.stdout  # nothing after it ran
    assert "Interrupted (Ctrl-C): the script stopped there." in result.stderr
    assert "Traceback" not in result.stderr


def test_ctrl_c_while_the_program_loads_exits_130(project: Path, write: Write) -> None:
    write("loops.py", LOOPS_ON_IMPORT)

    result = _interrupt(project, "loops:graph", script="continue\n")

    assert result.returncode == 130, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("command", "statuses"),
    [((), ("0", "1", "2", "3", "130", "143", "129")), (("run",), ("0", "1", "2", "3", "130"))],
    ids=["sgdebug", "sgdebug-run"],
)
def test_help_documents_every_exit_status(
    sgdebug: Sgdebug, command: tuple[str, ...], statuses: tuple[str, ...]
) -> None:
    result = sgdebug(*command, "--help")

    text = " ".join(result.stdout.split())  # help wraps lines anywhere
    assert result.returncode == 0
    documented = text.split("Exit status:")[1].split("Options:")[0]
    said = set(re.findall(r"\b(\d+) (?:when|for|after|or|\(run\)|\(the TUI\))", documented))
    assert said == set(statuses), documented
    assert "stopped at a breakpoint or waiting at an interrupt()" in documented
