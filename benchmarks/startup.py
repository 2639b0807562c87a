"""Time ``sgdebug --help`` and ``sgdebug --version``: the goal is under 150 ms of wall time;
importing ``sgdebug.runtime``: the goal is under 100 ms of CPU; and the first screen of
``sgdebug demo chatbot``: the goal is within 2x the first screen of a bare Textual app,
measured in the same run.

Usage::

    python benchmarks/startup.py            # best of 10
    python benchmarks/startup.py --quick    # best of 3, a smoke run
    python benchmarks/startup.py --check    # exit 1 if a goal is missed

Each command runs in a fresh process, as a user runs it: the installed console script
(found in the distribution's RECORD, not a shell shim such as pyenv's, which adds its
own start-up), and ``python -m sgdebug``. The wall time of each run is measured with
:func:`time.perf_counter` around :func:`subprocess.run`; the best run counts, since
slower runs only measure other load on the machine. ``python -c pass`` is timed the same
way and shown for reference: it is the floor no command line can beat.

Importing the runtime (what a program ported from LangGraph imports: the public names and
submodules) is timed inside a fresh interpreter, after its start-up, in CPU time: a ported
program should start faster, not slower. It was a unit test's assertion once; it lives here
so that a busy machine cannot fail the test suite.

The first screen is timed in a pseudo-terminal of 160x48, as a user's terminal: from
starting the process to the moment its output holds every marker of a drawn screen (for
the debugger: the status line's ``PAUSED``, the log's welcome and the footer's ``palette``;
for the bare app: its one line of text). Runs of the two alternate, and each keeps its best,
so both see the same machine; the figure that counts is the ratio. The CPU time the process
used by then is shown beside it (from ``/proc``, on Linux): a busy machine, which stretches
wall time, disturbs it much less.

``--instructions`` counts instead the machine instructions each first screen took, under
valgrind's callgrind (``perf stat`` needs a hardware counter a virtual machine may lack):
the same pseudo-terminal and markers, the process stopped with SIGUSR2 once its screen is
drawn (callgrind writes its count then; SIGTERM would start the debugger's orderly exit).
The count hardly moves with the machine's load, so two runs on a shared machine can be
compared; it does include the instructions run between drawing and the signal's arrival,
which under callgrind's ~50x slow-down is a little noise of its own (run it more than
once).
"""

from __future__ import annotations

import argparse
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

GOAL_MS = 150.0
RUNTIME_IMPORT_GOAL_MS = 100.0
FIRST_SCREEN_RATIO_GOAL = 2.0
"""``sgdebug demo chatbot``'s first screen may take at most this many times a bare app's."""
SCREEN_SIZE = (160, 48)
SCREEN_TIMEOUT_S = 30.0
BARE_APP = (
    "from textual.app import App\n"
    "from textual.widgets import Static\n"
    "class Bare(App[None]):\n"
    "    def compose(self):\n"
    "        yield Static('bare-textual-app-ready')\n"
    "Bare().run()\n"
)
BARE_MARKERS = (b"bare-textual-app-ready",)
DEMO_MARKERS = (b"PAUSED", b"Debugging", b"palette")
RUNTIME_IMPORT = (
    "from sgdebug.runtime import END, START, StateGraph\n"
    "import sgdebug.runtime.channels, sgdebug.runtime.errors, sgdebug.runtime.managed\n"
    "import sgdebug.runtime.types\n"
)


@dataclass(frozen=True, slots=True)
class Case:
    """One command line to time."""

    name: str
    """Shown in the report."""
    argv: tuple[str, ...]
    """The command."""
    goal_ms: float | None
    """Best wall time allowed, or ``None`` for a reference measurement."""


def installed_script() -> str:
    """The ``sgdebug`` console script pip installed (resolved through the RECORD)."""
    distribution = metadata.distribution("sgdebug")
    for file in distribution.files or ():
        if file.name == "sgdebug" and file.suffix == "":
            return str(Path(str(distribution.locate_file(file))).resolve())
    raise SystemExit("the sgdebug console script is not installed: pip install -e .")


def cases() -> list[Case]:
    script = installed_script()
    python = sys.executable
    return [
        Case("python -c pass (floor)", (python, "-c", "pass"), None),
        Case("sgdebug --help", (script, "--help"), GOAL_MS),
        Case("sgdebug --version", (script, "--version"), GOAL_MS),
        Case("python -m sgdebug --help", (python, "-m", "sgdebug", "--help"), GOAL_MS),
        Case("python -m sgdebug --version", (python, "-m", "sgdebug", "--version"), GOAL_MS),
    ]


def best_ms(argv: Sequence[str], repeats: int) -> float:
    """The fastest of ``repeats`` runs, in milliseconds; a failing command stops the run."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - start) * 1000)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed:\n{result.stderr.decode()}")
    return min(times)


def import_cpu_ms(code: str, repeats: int) -> float:
    """The least CPU time, in milliseconds, a fresh interpreter spends running ``code``."""
    probe = (
        f"import time\nt0 = time.process_time()\nexec({code!r})\nprint(time.process_time() - t0)\n"
    )
    times = []
    for _ in range(repeats):
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, check=False)  # fmt: skip
        if result.returncode != 0:
            raise SystemExit(f"importing failed:\n{result.stderr}")
        times.append(float(result.stdout.strip().splitlines()[-1]) * 1000)
    return min(times)


def cpu_ms(pid: int) -> float | None:
    """The CPU time (user + system, every thread) process ``pid`` used so far, in
    milliseconds; ``None`` without ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def first_screen_ms(argv: Sequence[str], markers: Sequence[bytes]) -> tuple[float, float | None]:
    """Milliseconds from starting ``argv`` in a pseudo-terminal to its output holding every
    one of ``markers``, and the CPU milliseconds it used by then; the process is killed
    then."""
    process, master = _start_in_terminal(argv)
    try:
        start = time.perf_counter()
        _wait_for_screen(argv, master, markers, SCREEN_TIMEOUT_S)
        return (time.perf_counter() - start) * 1000, cpu_ms(process.pid)
    finally:
        process.kill()
        process.wait()
        os.close(master)


def _start_in_terminal(argv: Sequence[str]) -> tuple[subprocess.Popen[bytes], int]:
    """``argv`` started in a new pseudo-terminal of :data:`SCREEN_SIZE`; the process and
    the terminal's master end."""
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    columns, rows = SCREEN_SIZE
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(rows)}
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                               start_new_session=True)  # fmt: skip
    os.close(slave)
    return process, master


def _wait_for_screen(argv: Sequence[str], master: int, markers: Sequence[bytes],
                     timeout_s: float) -> None:  # fmt: skip
    """Read the terminal until its output holds every one of ``markers``."""
    seen = b""
    while not all(marker in seen for marker in markers):
        ready, _, _ = select.select([master], [], [], timeout_s)
        if not ready:
            raise SystemExit(f"{' '.join(argv)} drew no screen in {timeout_s:.0f} s")
        try:
            seen += os.read(master, 1 << 16)
        except OSError:  # the process ended before drawing its screen
            raise SystemExit(f"{' '.join(argv)} ended before its first screen") from None


def first_screen_instructions(argv: Sequence[str], markers: Sequence[bytes]) -> int:
    """The instructions ``argv`` ran, under callgrind, until its output held every one of
    ``markers`` (then it is sent SIGUSR2, which nothing handles: the process ends at once
    and callgrind writes its totals)."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        valgrind = ("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    f"--log-file={os.path.join(scratch, 'valgrind.log')}")  # fmt: skip
        process, master = _start_in_terminal((*valgrind, *argv))
        try:
            _wait_for_screen(argv, master, markers, SCREEN_TIMEOUT_S * 50)
            process.send_signal(signal.SIGUSR2)
            process.wait()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(master)
        with open(out) as totals:
            found = re.search(r"^(?:summary|totals): (\d+)", totals.read(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"callgrind wrote no totals for {' '.join(argv)}")
    return int(found.group(1))


def instructions_report(repeats: int) -> int:
    """Print the instructions to the first screen of the bare app and the demo."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt-get install valgrind)")
    warm_bytecode()
    python = os.path.realpath(sys.executable)  # not a shell shim: callgrind would count bash
    bare = [first_screen_instructions((python, "-c", BARE_APP), BARE_MARKERS)
            for _ in range(repeats)]  # fmt: skip
    demo = [first_screen_instructions((python, installed_script(), "demo", "chatbot"),
                                      DEMO_MARKERS) for _ in range(repeats)]  # fmt: skip
    print(f"{'instructions to the first screen':<34}{'least':>16}{'most':>16}")
    print(f"{'  bare Textual app':<34}{min(bare):>16,}{max(bare):>16,}")
    print(f"{'  demo chatbot':<34}{min(demo):>16,}{max(demo):>16,}"
          f"  ({min(demo) / min(bare):.2f}x)")  # fmt: skip
    print(f"{repeats} runs each under callgrind; Python {sys.version.split()[0]}")
    return 0


@dataclass(frozen=True, slots=True)
class Screens:
    """The best first-screen times of the bare app and the demo."""

    bare: float
    demo: float
    bare_cpu: float | None
    demo_cpu: float | None


def first_screens(repeats: int) -> Screens:
    """The best first-screen times (wall and CPU) of a bare Textual app and of
    ``sgdebug demo chatbot``, their runs alternating."""
    bare: list[tuple[float, float | None]] = []
    demo: list[tuple[float, float | None]] = []
    for _ in range(repeats):
        bare.append(first_screen_ms((sys.executable, "-c", BARE_APP), BARE_MARKERS))
        demo.append(first_screen_ms((installed_script(), "demo", "chatbot"), DEMO_MARKERS))
    return Screens(min(w for w, _ in bare), min(w for w, _ in demo), _least(bare), _least(demo))


def _least(runs: Sequence[tuple[float, float | None]]) -> float | None:
    cpus = [cpu for _, cpu in runs if cpu is not None]
    return min(cpus) if cpus else None


def warm_bytecode() -> None:
    """Compile sgdebug's modules first, as an installed copy has them compiled: an editable
    checkout under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile every module from
    source at each start (about 250 ms here), which no user's start pays."""
    import compileall

    import sgdebug

    compileall.compile_dir(os.path.dirname(sgdebug.__file__), quiet=1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="best of 3 instead of 10")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    parser.add_argument("--instructions", action="store_true",
                        help="instructions to each first screen (callgrind, slow)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.instructions:
        return instructions_report(1 if args.quick else 3)
    repeats = 3 if args.quick else 10
    missed = []
    warm_bytecode()
    print(f"{'command':<30}{'best wall ms':>14}{'goal':>10}")
    for case in cases():
        elapsed = best_ms(case.argv, repeats)
        goal = "" if case.goal_ms is None else f"< {case.goal_ms:.0f}"
        flag = ""
        if case.goal_ms is not None and elapsed >= case.goal_ms:
            missed.append(case.name)
            flag = "  MISSED"
        print(f"{case.name:<30}{elapsed:>14.1f}{goal:>10}{flag}")
    cpu = import_cpu_ms(RUNTIME_IMPORT, repeats)
    flag = "" if cpu < RUNTIME_IMPORT_GOAL_MS else "  MISSED"
    if flag:
        missed.append("import sgdebug.runtime")
    print(f"{'import sgdebug.runtime (CPU)':<30}{cpu:>14.1f}{f'< {RUNTIME_IMPORT_GOAL_MS:.0f}':>10}"
          f"{flag}")  # fmt: skip
    screens = first_screens(repeats)
    ratio = screens.demo / screens.bare
    flag = "" if ratio < FIRST_SCREEN_RATIO_GOAL else "  MISSED"
    if flag:
        missed.append("first screen of sgdebug demo chatbot")
    print(f"{'first screen: bare Textual app':<30}{screens.bare:>14.1f}")
    print(f"{'first screen: demo chatbot':<30}{screens.demo:>14.1f}"
          f"{f'< {FIRST_SCREEN_RATIO_GOAL:.0f}x':>10}  ({ratio:.2f}x){flag}")  # fmt: skip
    if screens.bare_cpu and screens.demo_cpu is not None:
        print(f"{'  the same, in CPU ms':<30}{screens.bare_cpu:>14.1f}{screens.demo_cpu:>10.1f}"
              f"  ({screens.demo_cpu / screens.bare_cpu:.2f}x: bare, demo)")  # fmt: skip
    print(f"best of {repeats} runs each; Python {sys.version.split()[0]}")
    if missed:
        print(f"goal missed: {', '.join(missed)}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
