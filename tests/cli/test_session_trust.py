"""Reopening a session file someone else may have crafted, from the command line, as a user.

Opening one imports the program it names only with consent (TARGET given, ``--trust``, or a
yes on a terminal), evaluates its conditions only once enabled (or ``--trust``), calls no
target that is not the program's graph, refuses a damaged file before writing to it, and
refuses a second sgdebug on the same file. A marker file written by the would-be payload
proves that nothing ran.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import SLOW_LOOP, Sgdebug, Write

START = '{"count": 1, "log": []}'
PAYLOAD = "__import__('os').system('touch marker') == 0"
"""A stored condition that writes ``marker`` in the project folder when evaluated."""


def set_row(session: Path, key: str, value: Any) -> None:
    """Change one row of the file's session table, as someone crafting it would."""
    conn = sqlite3.connect(session)
    with conn:
        conn.execute("INSERT OR REPLACE INTO session VALUES (?, ?)", (key, json.dumps(value)))
    conn.close()


@pytest.fixture
def crafted(sgdebug: Sgdebug, project: Path) -> Path:
    """``s.sgdb``: a session of ``app:graph`` paused before step 1, whose breakpoint 1
    (before ``second``) was given a condition that writes ``marker``."""
    made = sgdebug("run", "app:graph", "--input", START, "--session", "s.sgdb", stdin="step\n")
    assert made.returncode == 0, made.stderr
    session = project / "s.sgdb"
    set_row(session, "breakpoints", [
        {"number": 1, "kind": "before", "target": "second", "condition": PAYLOAD},
    ])  # fmt: skip
    return session


# -- stored conditions -------------------------------------------------------------------------


def test_a_stored_condition_never_runs_when_the_user_names_the_target(
    sgdebug: Sgdebug, project: Path, crafted: Path
) -> None:
    result = sgdebug("run", "app:graph", "--session", "s.sgdb", stdin="restart\ncontinue\n")

    assert result.returncode == 0, result.stderr
    assert (
        f"note: breakpoint 1 (before second if {PAYLOAD}) from the session file is disabled: "
        f"`enable 1` to use it"
    ) in result.stdout
    assert result.stdout.endswith("The run finished.\n")
    assert not (project / "marker").exists()


def test_a_stored_condition_runs_once_the_user_enables_it(
    sgdebug: Sgdebug, project: Path, crafted: Path
) -> None:
    result = sgdebug(
        "run", "app:graph", "--session", "s.sgdb", stdin="restart\nenable 1\ncontinue\n"
    )

    assert "Enabled breakpoint 1" in result.stdout, result.stderr
    assert "Stopped before step" in result.stdout  # the condition held: the breakpoint fired
    assert (project / "marker").exists()


def test_trust_keeps_the_files_conditions_enabled(
    sgdebug: Sgdebug, project: Path, crafted: Path
) -> None:
    result = sgdebug("run", "--session", "s.sgdb", "--trust", stdin="restart\ncontinue\n")

    assert "from the session file is disabled" not in result.stdout, result.stderr
    assert (project / "marker").exists()


# -- the stored target ---------------------------------------------------------------------------


NOISY = """\
import pathlib

pathlib.Path("imported").touch()
from app import graph
"""


def test_without_target_trust_or_terminal_the_file_is_refused_and_nothing_is_imported(
    sgdebug: Sgdebug, project: Path, write: Write
) -> None:
    write("noisy.py", NOISY)
    sgdebug("run", "noisy:graph", "--input", START, "--session", "s.sgdb", stdin="step\n")
    (project / "imported").unlink()
    set_row(project / "s.sgdb", "breakpoints", [
        {"number": 1, "kind": "before", "target": "second", "condition": PAYLOAD},
    ])  # fmt: skip

    result = sgdebug("run", "--session", "s.sgdb", stdin="restart\ncontinue\n")

    assert result.returncode == 2
    assert f"s.sgdb debugs noisy:graph (from {project})" in result.stderr
    assert "Give TARGET to confirm it (sgdebug run noisy:graph --session s.sgdb)" in result.stderr
    assert "or pass --trust" in result.stderr
    assert not (project / "imported").exists()
    assert not (project / "marker").exists()


def test_refusing_puts_nothing_of_the_file_on_sys_path(
    sgdebug: Sgdebug, project: Path, tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from sgdebug.cli._setup import LaunchOptions, prepare

    sgdebug("run", "app:graph", "--input", START, "--session", "s.sgdb", stdin="step\n")
    elsewhere = tmp_path_factory.mktemp("planted")
    set_row(project / "s.sgdb", "cwd", str(elsewhere))
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # no terminal to ask on
    before = list(sys.path)

    with pytest.raises(SystemExit):
        prepare(LaunchOptions(None, None, session=project / "s.sgdb"))

    assert sys.path == before
    assert str(elsewhere) not in sys.path


def run_on_terminal(project: Path, answer: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run sgdebug with a terminal as its stdin, on which ``answer`` is typed."""
    main, terminal = os.openpty()
    try:
        os.write(main, answer.encode())
        return subprocess.run(
            [sys.executable, "-m", "sgdebug", *args],
            cwd=project,
            stdin=terminal,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(main)
        os.close(terminal)


def test_on_a_terminal_the_user_is_asked_first(
    sgdebug: Sgdebug, project: Path, write: Write
) -> None:
    write("noisy.py", NOISY)
    write("script.txt", "step\n")
    sgdebug("run", "noisy:graph", "--input", START, "--session", "s.sgdb", stdin="step\n")
    (project / "imported").unlink()
    question = f"Open s.sgdb: it debugs noisy:graph (from {project}). Import and run it? [y/N] "

    refused = run_on_terminal(project, "n\n", "run", "--session", "s.sgdb", "-s", "script.txt")
    assert refused.returncode == 2
    assert question in refused.stderr
    assert "s.sgdb was not opened (nothing was imported)" in refused.stderr
    assert not (project / "imported").exists()

    agreed = run_on_terminal(project, "y\n", "run", "--session", "s.sgdb", "-s", "script.txt")
    assert agreed.returncode == 0, agreed.stderr
    assert question in agreed.stderr
    assert (project / "imported").exists()
    assert agreed.stdout.startswith("At snapshot 1 (recorded at step 0)")


@pytest.mark.parametrize("target", ["os:abort", "builtins:exit", "subprocess:call"])
def test_a_standard_library_target_in_the_file_is_never_called(
    sgdebug: Sgdebug, crafted: Path, target: str
) -> None:
    set_row(crafted, "target", target)

    result = sgdebug("run", "--session", "s.sgdb", "--trust", stdin="step\n")

    assert result.returncode == 2  # not killed by SIGABRT, not exited by exit()
    assert f"Cannot load {target!r} from the session file" in result.stderr
    assert "standard library, which defines no graph; it was not imported" in result.stderr


def test_a_target_in_the_file_that_is_not_the_programs_graph_is_refused(
    sgdebug: Sgdebug, project: Path, crafted: Path, write: Write
) -> None:
    write("payloads.py", """\
        def touch():
            open("marker", "w").close()
        """)  # fmt: skip
    write("tools.py", "from payloads import touch\n")
    set_row(crafted, "target", f"{project / 'tools.py'}:touch")

    result = sgdebug("run", "--session", "s.sgdb", "--trust", stdin="step\n")

    assert result.returncode == 2
    assert "defined in payloads, not in tools; it was not called" in result.stderr
    assert not (project / "marker").exists()


# -- the file itself -----------------------------------------------------------------------------


def test_a_damaged_row_is_refused_naming_it_before_anything_is_written(
    sgdebug: Sgdebug, crafted: Path
) -> None:
    set_row(crafted, "breakpoints", [{"number": 1, "kind": "sideways", "target": "second"}])
    before = hashlib.sha256(crafted.read_bytes()).hexdigest()

    result = sgdebug("run", "app:graph", "--session", "s.sgdb", stdin="step\n")

    assert result.returncode == 2
    assert "session file s.sgdb is damaged and cannot be reopened" in result.stderr
    assert "row 'breakpoints' of its session table: item 1: 'kind' is 'sideways'" in result.stderr
    assert hashlib.sha256(crafted.read_bytes()).hexdigest() == before


def test_an_empty_file_is_not_a_missing_one(sgdebug: Sgdebug, project: Path) -> None:
    empty = project / "empty.sgdb"
    empty.write_bytes(b"")

    bare = sgdebug("run", "--session", "empty.sgdb", stdin="step\n")
    assert bare.returncode == 2
    assert "empty.sgdb is an empty file (0 bytes), so it holds no session" in bare.stderr
    assert empty.stat().st_size == 0  # left as it was

    started = sgdebug("run", "app:graph", "--input", START, "--session", "empty.sgdb",
                      stdin="step\n")  # fmt: skip
    assert started.returncode == 0, started.stderr
    assert "note: empty.sgdb is an empty file (0 bytes): the new session is kept in it" in (
        started.stderr
    )
    again = sgdebug("run", "app:graph", "--session", "empty.sgdb", stdin="state\n")
    assert again.stdout.startswith("At snapshot 1 (recorded at step 0)"), again.stderr


def test_a_second_sgdebug_is_refused_until_the_first_is_killed(
    sgdebug: Sgdebug, project: Path, write: Write
) -> None:
    write("slow.py", SLOW_LOOP)
    first = subprocess.Popen(
        [sys.executable, "-m", "sgdebug", "run", "slow:graph", "--input", '{"n": 0}',
         "--session", "s.sgdb", "--recursion-limit", "1000000"],
        cwd=project, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert first.stdin is not None
        first.stdin.write("continue\n")
        first.stdin.close()
        _wait_for_lock(project / "s.sgdb.lock", first)

        second = sgdebug("run", "slow:graph", "--session", "s.sgdb", stdin="step\n")
        assert second.returncode == 2
        assert f"s.sgdb is open in another sgdebug (pid {first.pid})" in second.stderr
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)

    third = sgdebug("run", "slow:graph", "--session", "s.sgdb", stdin="print state['n'] > 0\n")
    assert third.returncode == 0, third.stderr
    assert third.stdout.endswith("True\n")


def _wait_for_lock(lock: Path, holder: subprocess.Popen[str]) -> None:
    """Until ``holder`` has the session file open and has run a few steps (or gave up)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and holder.poll() is None:
        try:
            if lock.read_text().strip() == str(holder.pid) and _steps(lock) >= 3:
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"the first sgdebug never held the file (exit {holder.poll()})")


def _steps(lock: Path) -> int:
    try:
        with sqlite3.connect(lock.with_suffix(""), timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0])
    except sqlite3.Error:
        return 0


# -- --input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("depth", "said"), [
    (100_000, "nested too deeply: more than 200 levels"),
    (300, "nested too deeply: more than 200 levels"),
])  # fmt: skip
def test_deeply_nested_input_is_a_clear_input_error(
    sgdebug: Sgdebug, write: Write, depth: int, said: str
) -> None:
    write("deep.json", "[" * depth + "]" * depth)

    result = sgdebug("run", "app:graph", "--input", "@deep.json", stdin="step\n")

    assert result.returncode == 2
    assert f"Error: --input @deep.json is {said}" in result.stderr
    assert "Traceback" not in result.stderr
