"""``sgdebug run``: debugger commands from a script, headless, in a subprocess; exit statuses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sgdebug.sample_graphs import RUNS_ALONE, SAMPLES, load

from .conftest import SLOW_LOOP, Sgdebug, Write

START = '{"count": 1, "log": []}'
RAISES = '{"count": 200, "log": []}'  # ``second`` refuses counts above 100


def test_a_script_steps_breaks_and_inspects(sgdebug: Sgdebug, write: Write) -> None:
    write("debug.txt", """\
        # step over the first node, then stop after the second
        step
        step

        state
        break after second
        continue
        print state["count"] * 2
        """)  # fmt: skip

    result = sgdebug("run", "app:graph", "--input", START, "--script", "debug.txt")

    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.splitlines()[0] == "Started: paused before step 0."
    commands = [line for line in out.splitlines() if line.startswith("(sgdebug) ")]
    assert commands == [
        "(sgdebug) step",
        "(sgdebug) step",
        "(sgdebug) state",
        "(sgdebug) break after second",
        "(sgdebug) continue",
        '(sgdebug) print state["count"] * 2',
    ]
    assert "  count = 2\n  log = ['first']\n" in out  # after ``first`` ran
    assert out.endswith('(sgdebug) print state["count"] * 2\n40\n')
    assert "\x1b[" not in out  # plain text when stdout is not a terminal


def test_commands_come_from_stdin_by_default(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", START, stdin="continue\nprint state\n")

    assert result.returncode == 0, result.stderr
    assert "{'count': 20, 'log': ['first', 'second']}" in result.stdout


def test_breakpoints_from_the_command_line_stop_the_run(sgdebug: Sgdebug) -> None:
    result = sgdebug(
        "run", "app:graph", "--input", START, "--break-before", "second", stdin="continue\ntasks\n"
    )

    assert result.returncode == 3, result.stderr  # the script ended stopped at the breakpoint
    assert "breakpoint 1 (before second)" in result.stdout
    assert "[pending] second" in result.stdout


def test_quit_ends_the_script(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", START, stdin="step\nquit\nstep\n")

    assert result.returncode == 0
    assert result.stdout.count("(sgdebug) step") == 1


def test_a_node_that_raises_exits_1_with_its_traceback(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", RAISES, stdin="continue\n")

    assert result.returncode == 1, result.stderr
    assert "Node 'second' raised ValueError: count too large: 201" in result.stdout
    assert "raise ValueError(f\"count too large: {state['count']}\")" in result.stdout


def test_the_recursion_limit_applies_to_the_run(sgdebug: Sgdebug) -> None:
    limited = sgdebug("run", "app:graph", "--input", START, "--recursion-limit", "1",
                      stdin="continue\n")  # fmt: skip
    enough = sgdebug("run", "app:graph", "--input", START, "--recursion-limit", "3",
                     stdin="continue\n")  # fmt: skip

    assert limited.returncode == 1
    assert "GraphRecursionError: Recursion limit of 1 reached" in limited.stdout
    assert enough.returncode == 0, enough.stdout


def test_a_command_refused_after_the_graph_raised_still_exits_1(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", RAISES, stdin="continue\nstep\nstate\n")

    assert result.returncode == 1
    assert "*** step: node 'second' raised" in result.stdout
    assert "(sgdebug) state" not in result.stdout


@pytest.mark.parametrize(
    ("given", "script", "status"),
    [(RAISES, "continue\nabort\n", 1), (START, "step\nabort\n", 0),
     (RAISES, "continue\nabort\nrestart {'count': 1, 'log': []}\ncontinue\n", 0)],
    ids=["after-an-error", "without-an-error", "then-a-clean-run"],
)  # fmt: skip
def test_aborting_a_run_that_raised_still_exits_1(
    sgdebug: Sgdebug, given: str, script: str, status: int
) -> None:
    result = sgdebug("run", "app:graph", "--input", given, stdin=script)

    assert result.returncode == status, result.stdout + result.stderr


def test_retrying_after_fixing_the_state_ends_normally(sgdebug: Sgdebug) -> None:
    script = "continue\nset count = 5\nretry\nprint state['count']\n"

    result = sgdebug("run", "app:graph", "--input", RAISES, stdin=script)

    assert result.returncode == 0, result.stdout
    assert result.stdout.endswith("(sgdebug) print state['count']\n50\n")


def test_malformed_commands_exit_2_before_anything_runs(sgdebug: Sgdebug) -> None:
    script = "step\nstpe\nstep many\nbreak during first\n"

    result = sgdebug("run", "app:graph", "--input", START, stdin=script)

    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0] == "Error: the script has errors; nothing was run:"
    assert lines[1] == "line 2: stpe"
    assert "did you mean 'step'?" in lines[2]
    assert lines[3] == "line 3: step many"
    assert lines[5] == "line 4: break during first"


def test_a_refused_command_stops_the_script_with_status_2(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", START, stdin="until nowhere\nstep\n")

    assert result.returncode == 2
    assert "*** no node named 'nowhere' (nodes: first, second)" in result.stdout
    assert "`until nowhere` was refused; the script stopped there" in result.stderr
    assert "(sgdebug) step" not in result.stdout


def test_rich_styles_the_output_on_a_terminal(sgdebug: Sgdebug, project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sgdebug", "run", "app:graph", "--input", START],
        cwd=project,
        input="step\n",
        capture_output=True,
        text=True,
        env={**os.environ, "FORCE_COLOR": "1", "TERM": "xterm-256color"},
        timeout=60,
        check=False,
    )

    assert result.returncode == 0
    assert "\x1b[" in result.stdout


@pytest.mark.parametrize("sample", RUNS_ALONE)
def test_every_sample_runs_to_the_end(sgdebug: Sgdebug, sample: str) -> None:
    given = json.dumps(load(sample).EXAMPLE_INPUT)

    result = sgdebug("run", f"{SAMPLES[sample]}:graph", "--input", given, stdin="continue\n")

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith("The run finished.\n")


# -- session files -------------------------------------------------------------------------


def test_a_session_file_reopens_where_it_stopped(sgdebug: Sgdebug) -> None:
    first = sgdebug(
        "run", "app:graph", "--input", START, "--session", "s.sgdb", "--recursion-limit", "9",
        stdin="step\nbreak after second if state['count'] > 10\n",
    )  # fmt: skip
    second = sgdebug(  # --trust: the file's target, and its condition, are this user's own
        "run", "--session", "s.sgdb", "--trust", stdin="breaks\nstate\ncontinue\nprint state\n"
    )

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    out = second.stdout
    reopened = "At snapshot 1 (recorded at step 0): the run is paused before step 1."
    assert out.splitlines()[0] == reopened
    assert "1    yes      0     after second if state['count'] > 10" in out
    assert "  count = 1\n" in out  # the state where the first process stopped
    assert "breakpoint 1 (after second if state['count'] > 10)" in out
    assert "{'count': 20, 'log': ['first', 'second']}" in out


def test_a_session_reopens_from_another_directory_with_its_inputs_classes(
    sgdebug: Sgdebug, write: Write, project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    write("tagged.py", """\
        import dataclasses
        from app import builder

        @dataclasses.dataclass
        class Tag:
            name: str

        graph = builder.compile()
        """)  # fmt: skip
    session = project / "s.sgdb"
    sgdebug("run", "tagged:graph", "--session", str(session),
            stdin='restart {"count": 1, "log": [Tag("x")]}\n')  # fmt: skip

    reopened = subprocess.run(
        [sys.executable, "-m", "sgdebug", "run", "--session", str(session), "--trust"],
        cwd=tmp_path_factory.mktemp("elsewhere"),
        input="restart\nstep\nprint type(state['log'][0]).__name__\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert reopened.returncode == 0, reopened.stderr
    assert reopened.stdout.endswith("'Tag'\n")  # the saved input, decoded as the program's class


def test_a_session_file_refuses_another_target_or_input(sgdebug: Sgdebug) -> None:
    sgdebug("run", "app:graph", "--input", START, "--session", "s.sgdb", stdin="step\n")

    other = sgdebug("run", "sgdebug.sample_graphs.loop:graph", "--session", "s.sgdb")
    again = sgdebug("run", "app:graph", "--session", "s.sgdb", "--input", START)

    assert other.returncode == 2
    assert f"debugs app:graph, not {SAMPLES['loop']}:graph" in other.stderr
    assert again.returncode == 2
    assert "already has its input" in again.stderr


def test_a_session_killed_mid_run_reopens_at_its_last_step(
    project: Path, sgdebug: Sgdebug, write: Write
) -> None:
    write("slow.py", SLOW_LOOP)
    session = project / "slow.sgdb"
    command = [sys.executable, "-m", "sgdebug", "run", "slow:graph", "--input", '{"n": 0}']
    killed = subprocess.Popen(
        [*command, "--session", str(session), "--recursion-limit", "100000"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert killed.stdin is not None
    killed.stdin.write("continue\n")
    killed.stdin.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _steps(session) < 20:
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)

    reopened = sgdebug(
        "run", "slow:graph", "--session", "slow.sgdb", stdin="print state['n']\nstep 3\n"
    )

    assert reopened.returncode == 0, reopened.stderr
    lines = reopened.stdout.splitlines()
    reached = int(lines[lines.index("(sgdebug) print state['n']") + 1])
    assert reached >= 18
    assert lines[-1] == f"Paused before step {reached + 4}."


def _steps(session: Path) -> int:
    """Committed checkpoints in the session file (0 until it exists)."""
    import sqlite3

    if not session.exists():
        return 0
    try:
        with sqlite3.connect(session, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_a_run_without_input_says_it_started_on_an_empty_one(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", stdin="")

    lines = result.stdout.splitlines()
    assert lines[0] == "Started: paused before step 0."
    assert lines[1].startswith("note: the run started on the empty input {}")
    assert "restart {...}" in lines[1]


def test_a_run_with_input_has_no_empty_input_note(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--input", START, stdin="")

    assert "empty input" not in result.stdout
