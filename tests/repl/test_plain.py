"""``sgdebug repl`` with standard input from a pipe: plain lines, no prompt-toolkit."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sgdebug.debugger import Session
from sgdebug.repl.app import Repl

TARGET = "sgdebug.sample_graphs.loop:graph"


def repl(*args: str, stdin: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={
            "PATH": "/usr/bin:/bin",
            "XDG_DATA_HOME": str(home),
            "HOME": str(home),
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        },  # this checkout's sgdebug
        cwd=home,
    )


def test_commands_and_python_from_a_pipe(data_home: Path) -> None:
    data_home.mkdir()
    stdin = (
        "break before attempt\n"
        "continue\n"
        'state["count"] = 2\n'  # a real edit, as `set` makes
        "limit = 3\n"
        "for key in sorted(state):\n"
        "    print('key', key)\n"
        "\n"
        "continue\n"
        "p state['status'], limit\n"
        "history\n"
    )

    result = repl("-m", "sgdebug", "repl", TARGET, "--input", '{"count": 0}', stdin=stdin,
                  home=data_home)  # fmt: skip

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Started: paused before step 0.",
        "(sgdebug) break before attempt",
        "Breakpoint 1: before attempt",
        "(sgdebug) continue",
        "Stopped before step 1 at breakpoint 1 (before attempt).",
        '(sgdebug) state["count"] = 2',
        "Set count.",
        "(sgdebug) limit = 3",
        "(sgdebug) for key in sorted(state):",
        "...     print('key', key)",
        "key count",
        "(sgdebug) continue",
        "The run finished.",
        "(sgdebug) p state['status'], limit",
        "('done after 3 attempts', 3)",
        "(sgdebug) history",
        "    0  step -1   input ",
        "    1  step 0    loop   ran __start__ <- 0",
        "    2  step 0    update <- 1",
        "    3  step 1    loop   ran attempt <- 2",
        "*   4  step 2    loop   ran report <- 3",
    ]
    assert "\x1b[" not in result.stdout
    assert not (data_home / "sgdebug").exists()  # no history file without a prompt


def test_leaving_a_run_that_raised_exits_with_1(data_home: Path) -> None:
    data_home.mkdir()
    # on the empty input the state has no ``count``: ``attempt`` raises KeyError
    result = repl("-m", "sgdebug", "repl", TARGET, "--input", "{}", stdin="continue\n",
                  home=data_home)  # fmt: skip

    assert result.returncode == 1, result.stderr
    assert "Node 'attempt' raised KeyError: 'count'" in result.stdout


def test_a_refused_command_does_not_end_the_session(data_home: Path) -> None:
    data_home.mkdir()
    stdin = "goto 99\nbreak during x\nstep\nquit\nstep\n"

    result = repl("-m", "sgdebug", "repl", TARGET, "--input", '{"count": 0}', stdin=stdin,
                  home=data_home)  # fmt: skip

    assert result.returncode == 0
    out = result.stdout
    assert "*** no snapshot 99" in out
    assert "*** break: expected 'before' or 'after', got 'during'" in out
    assert "Paused before step 1." in out
    assert out.rstrip().endswith("(sgdebug) quit")  # nothing after quit runs


def test_the_pipe_mode_never_imports_prompt_toolkit(data_home: Path) -> None:
    data_home.mkdir()

    result = repl("-X", "importtime", "-m", "sgdebug", "repl", TARGET, "--input", '{"count": 0}',
                  stdin="step\n", home=data_home)  # fmt: skip

    assert result.returncode == 0
    assert "sgdebug.repl.app" in result.stderr  # the import log works
    assert "prompt_toolkit" not in result.stderr


def test_lines_blocks_and_a_failing_entry_in_process(
    make_session: Callable[..., Session], screen: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = make_session("loop")
    repl = Repl(session, console=screen.console)
    handle = repl.dispatcher.handle

    def flaky(text: str) -> bool:
        if text == "boom":
            raise RuntimeError("a bug in sgdebug")
        return handle(text)

    monkeypatch.setattr(repl.dispatcher, "handle", flaky)

    with repl.python.installed():
        lines = [
            "boom",
            "def f(x):",
            "    if x:",
            "        return x + 1",
            "    else:",
            "        return 0",
            "step",
            "f(1)",
            "for i in range(2):",
            "    print(i)",
        ]
        repl.read_lines(f"{line}\n" for line in lines)

    out = screen.text
    assert "RuntimeError: a bug in sgdebug" in out
    assert "*** sgdebug failed on that entry" in out  # and the REPL went on
    # as in a file, the block ends at the next line that is not indented
    assert "(sgdebug) def f(x):\n...     if x:\n" in out
    assert "...         return 0\n(sgdebug) step\nPaused before step 1.\n" in out
    assert "(sgdebug) f(1)\n2\n" in out
    assert out.endswith("(sgdebug) for i in range(2):\n...     print(i)\n")  # run at the end


def test_launch_reads_stdin_then_closes_the_session(
    make_session: Callable[..., Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from sgdebug.repl import launch

    session = make_session("loop")
    monkeypatch.setattr(sys, "stdin", io.StringIO("step\ncontinue\n"))

    status = launch(session)

    assert status == 0
    assert session.status == "closed"
