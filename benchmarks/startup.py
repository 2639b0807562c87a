"""Time ``sgdebug --help`` and ``sgdebug --version``: the goal is under 150 ms of wall time;
and importing ``sgdebug.runtime``: the goal is under 100 ms of CPU.

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
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

GOAL_MS = 150.0
RUNTIME_IMPORT_GOAL_MS = 100.0
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="best of 3 instead of 10")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else 10
    missed = []
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
    print(f"best of {repeats} runs each; Python {sys.version.split()[0]}")
    if missed:
        print(f"goal missed: {', '.join(missed)}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
