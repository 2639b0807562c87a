"""Time sgdebug's runtime against LangGraph per superstep, on the same graphs, in one process.

Usage::

    python benchmarks/runtime.py            # best of 5
    python benchmarks/runtime.py --quick    # best of 2 (fan-out: best of 20), a smoke run
    python benchmarks/runtime.py --check    # exit 1 if a goal is missed

Two workloads, both built by the sample factories with parameters and run without a
checkpointer:

* ``loop``: ``sgdebug.sample_graphs.loop`` with 2,000 passes: one task per superstep, so
  the time is the engine's fixed cost of a superstep (plan, run, commit).
* ``fanout``: ``sgdebug.sample_graphs.fanout`` with 50 parallel branches joined by a
  waiting edge: a 50-task superstep, then the join.

Each graph is compiled once per engine, run once to warm up (and to check its result),
then timed run by run with :func:`time.perf_counter`, the garbage collector paused as
:mod:`timeit` does and the two engines taking turns; the best run counts. The loop is
timed ``repeats`` times; the fan-out, whose runs are short and whose thread-pool
scheduling is noisy, ten times as often.
Time per superstep = run time / supersteps, counting the hidden input step LangGraph
numbers 0. The goals (issue 2): LangGraph's time per superstep at least 20x sgdebug's on
the loop and at least 10x on the fan-out.
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from sgdebug.sample_graphs import fanout, loop
from sgdebug.sample_graphs._engines import ENGINES, Engine, api

clock: Callable[[], float] = time.perf_counter
"""What a run's time per superstep is read with: wall time, or with ``--cpu`` this
process's CPU time (:func:`time.process_time`), which a busy shared machine disturbs less."""
LOOP_PASSES = 2_000
FANOUT_WIDTH = 50


@dataclass(frozen=True, slots=True)
class Workload:
    """One graph to time on both engines."""

    name: str
    """Shown in the report."""
    build: Callable[[Engine], Any]
    """Uncompiled graph on an engine."""
    input: dict[str, Any]
    """The run's input."""
    supersteps: int
    """Supersteps one run executes (including the input step)."""
    check: Callable[[Any], bool]
    """Whether a run's result is right (a fast engine must also be a correct one)."""
    goal: float
    """Minimum LangGraph / sgdebug time ratio."""
    samples_per_repeat: int = 1
    """Timed runs per repeat (a short run is timed more often: its best is noisier)."""


@dataclass(frozen=True, slots=True)
class Timing:
    """The best time per superstep of one workload on one engine, or why there is none."""

    micros_per_step: float | None
    error: str = ""


def workloads() -> list[Workload]:
    """The loop and the fan-out."""
    width = FANOUT_WIDTH
    return [
        Workload(
            name=f"loop ({LOOP_PASSES:,} passes)",
            build=lambda engine: loop.build(engine, iterations=LOOP_PASSES),
            input={"count": 0},
            supersteps=loop.supersteps(LOOP_PASSES),
            check=lambda result: result["count"] == LOOP_PASSES,
            goal=20.0,
        ),
        Workload(
            name=f"fan-out ({width} + join)",
            build=lambda engine: fanout.build(engine, width=width),
            input={"trail": []},
            supersteps=4,  # input step, the `width` branches, b_2, the join d
            check=lambda result: len(result["trail"]) == width + 2,
            goal=10.0,
            samples_per_repeat=10,
        ),
    ]


def unavailable(engine: Engine) -> str:
    """Why ``engine`` cannot run here (sgdebug's runtime may not be written yet), or ''."""
    try:
        api(engine)
    except (ImportError, AttributeError) as exc:
        return f"{engine} unavailable: {exc}"
    return ""


def prepare(work: Workload, engine: Engine) -> Callable[[], float] | str:
    """A function timing one run of ``work`` on ``engine`` (in seconds), or why there is none."""
    missing = unavailable(engine)
    if missing:
        return missing
    graph = work.build(engine).compile()
    config = {"recursion_limit": work.supersteps + 10}
    result = graph.invoke(work.input, config)  # warm-up, and proof that the run is right
    if not work.check(result):
        return f"{engine} gave a wrong result: {result!r:.200}"

    def timed_run() -> float:
        gc.collect()
        gc.disable()
        try:
            start = clock()
            graph.invoke(work.input, config)
            return clock() - start
        finally:
            gc.enable()

    return timed_run


def time_workload(work: Workload, runs: int) -> dict[Engine, Timing]:
    """Best microseconds per superstep of ``work`` on each engine.

    The engines take turns run by run, so a load change on a shared machine hits both.
    """
    runners = {engine: prepare(work, engine) for engine in ENGINES}
    best = dict.fromkeys(ENGINES, float("inf"))
    for _ in range(runs):
        for engine, runner in runners.items():
            if not isinstance(runner, str):
                best[engine] = min(best[engine], runner())
    return {
        engine: Timing(None, runner)
        if isinstance(runner, str)
        else Timing(best[engine] / work.supersteps * 1e6)
        for engine, runner in runners.items()
    }


def cell(timing: Timing) -> str:
    return "-" if timing.micros_per_step is None else f"{timing.micros_per_step:,.1f}"


def verdict(work: Workload, theirs: Timing, ours: Timing) -> tuple[str, str]:
    """The ratio cell and PASS / MISS / n/a for one workload."""
    if theirs.micros_per_step is None or ours.micros_per_step is None:
        return "-", "n/a"
    ratio = theirs.micros_per_step / ours.micros_per_step
    return f"{ratio:.1f}x", "PASS" if ratio >= work.goal else "MISS"


def report(
    repeats: int,
    works: Sequence[Workload] | None = None,
    timer: Callable[[Workload, int], dict[Engine, Timing]] | None = None,
    runs_as: str = "no checkpointer",
) -> bool:
    """Time every workload on both engines (``works``, by default :func:`workloads`, each
    with ``timer``, by default :func:`time_workload`), print the table; True if every goal
    passed. ``runs_as`` says how the runs are made, in the title."""
    version = metadata.version("langgraph")
    print(
        f"sgdebug runtime vs langgraph {version} (Python {platform.python_version()}), "
        f"{runs_as}, best run of N per engine"
        + (" (CPU time)" if clock is time.process_time else "")
    )
    header = (
        "workload",
        "supersteps",
        "N",
        "langgraph us/step",
        "sgdebug us/step",
        "ratio",
        "goal",
    )
    rows: list[tuple[str, ...]] = [header]
    notes: list[str] = []
    passed = True
    for work in workloads() if works is None else works:
        runs = repeats * work.samples_per_repeat
        timings = (timer or time_workload)(work, runs)
        theirs, ours = timings["langgraph"], timings["sgdebug"]
        ratio, outcome = verdict(work, theirs, ours)
        passed = passed and outcome == "PASS"
        goal = f">={work.goal:g}x {outcome}"
        rows.append(
            (work.name, f"{work.supersteps:,}", str(runs), cell(theirs), cell(ours), ratio, goal)
        )
        notes += [timing.error for timing in (theirs, ours) if timing.error]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        print("  ".join(cells))
    for note in dict.fromkeys(notes):
        print(f"note: {note}")
    return passed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; with ``--check`` the exit status says whether every goal passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke run")
    parser.add_argument("--repeats", type=int, help="timed loop runs per engine (default 5)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    parser.add_argument("--cpu", action="store_true", help="time in CPU time, not wall time")
    args = parser.parse_args(argv)
    global clock
    clock = time.process_time if args.cpu else time.perf_counter
    repeats: int = args.repeats or (2 if args.quick else 5)
    passed = report(repeats)
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
