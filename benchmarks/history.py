"""Time and size history recording: sgdebug's savers against LangGraph's ``InMemorySaver``.

Usage::

    python benchmarks/history.py            # 10,000-step memory run, timing best of 3
    python benchmarks/history.py --quick    # 2,000-step memory run, timing best of 1
    python benchmarks/history.py --check    # exit 1 if a goal of sgdebug's InMemorySaver is missed

One program, built on each engine through :func:`sgdebug.sample_graphs._engines.api`: an
append loop, ``START -> step``, where ``step`` appends one item to ``log`` (an
``operator.add`` channel) and loops back until it has run ``passes`` times. Every superstep
records a checkpoint, so the whole history is kept. Three configurations run it:
LangGraph with its ``InMemorySaver``, sgdebug with ``InMemorySaver`` and sgdebug with
``SqliteSaver`` on a temporary file.

Figures (issue 3's goals apply to sgdebug's ``InMemorySaver``; ``SqliteSaver``'s are shown
against the same goals for information, and ``--check`` ignores them):

* **time per superstep** with history recording: a run of ``--timing-passes`` passes (2,000)
  on a fresh saver, the garbage collector paused, best of ``--repeats`` (5); the setups take
  turns, one run each per round, so a slow spell of a shared machine does not fall on one
  setup only; supersteps count the
  input step and the hidden ``__start__`` step. Goal: LangGraph's time >= 20x sgdebug's.
* **memory** after the ``--passes`` run (10,000) and a first read of its history (the
  latest snapshot): :mod:`tracemalloc`'s count of the Python memory still allocated then
  (graph, saver and result alive), minus what was allocated before. A saver that files its
  records when first read holds more then than right after the run; both figures are
  printed below the table. SQLite's own memory is not Python memory, so for ``SqliteSaver``
  see also *stored* (the file). Goal: under 1/5 of LangGraph's.
* **stored**: bytes of the values the saver holds (LangGraph's and sgdebug's blobs), or the
  size of the SQLite file with its WAL.
* **restore**: ``get_state`` of the checkpoint from the middle of a second, untraced run of
  ``--passes`` (step ``passes // 2``), best of ``--restores`` calls, checked against the
  expected values. Goal: under 5 ms.
* **first read**: the first reads after that second run, nothing warm yet: finding the middle
  checkpoint with ``get_state_history(filter=...)``, then its ``get_state``. For
  information: whatever a saver leaves to be done when history is read shows here.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import operator
import platform
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import Engine, api

clock: Callable[[], float] = time.perf_counter
"""What a run's time per superstep is read with: wall time, or with ``--cpu`` this
process's CPU time (:func:`time.process_time`), which a busy shared machine disturbs less."""
SPEED_GOAL = 20.0
"""LangGraph's time per superstep / sgdebug's, at least."""
MEMORY_GOAL = 0.2
"""sgdebug's memory / LangGraph's, at most."""
RESTORE_GOAL_MS = 5.0
"""Time to restore a snapshot from the middle of the run, at most."""


class LoopState(TypedDict):
    """The append loop's state."""

    log: Annotated[list[str], operator.add]
    n: int


def item(i: int) -> str:
    """What pass ``i`` appends."""
    return f"item-{i:05d}"


def build_loop(engine: Engine, passes: int) -> Any:
    """``step`` appends ``item(n)`` to ``log`` and loops until it has run ``passes`` times."""
    lg = api(engine)

    def step(state: LoopState) -> dict[str, Any]:
        return {"log": [item(state["n"])], "n": state["n"] + 1}

    def again(state: LoopState) -> str:
        return "step" if state["n"] < passes else str(lg.END)

    builder = lg.StateGraph(LoopState)
    builder.add_node("step", step)
    builder.add_edge(lg.START, "step")
    builder.add_conditional_edges("step", again, ["step", lg.END])
    return builder


def supersteps(passes: int) -> int:
    """Checkpoints a run records: the input step, ``__start__`` and one per pass."""
    return passes + 2


# -- savers --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """An engine with one of its savers."""

    name: str
    engine: Engine
    make_saver: Callable[[Path], Any]
    """A fresh saver; the path is a new temporary file it may use."""
    stored: Callable[[Any, Path], int]
    """Bytes the saver holds for the run's history."""
    goals: bool
    """Whether ``--check`` counts this setup's goals."""


def _langgraph_saver(_: Path) -> Any:
    return api("langgraph").InMemorySaver()


def _langgraph_stored(saver: Any, _: Path) -> int:
    return sum(len(data) for _, data in saver.blobs.values())


def _sgdebug_memory(_: Path) -> Any:
    from sgdebug.runtime.checkpoint import InMemorySaver

    return InMemorySaver()


def _sgdebug_memory_stored(saver: Any, _: Path) -> int:
    return int(saver.stored_bytes())


def _sgdebug_sqlite(path: Path) -> Any:
    from sgdebug.runtime.checkpoint import SqliteSaver

    return SqliteSaver.from_path(path)


def _file_size(_: Any, path: Path) -> int:
    files = [path, path.with_name(path.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists())


SETUPS = (
    Setup("langgraph InMemorySaver", "langgraph", _langgraph_saver, _langgraph_stored, False),
    Setup("sgdebug InMemorySaver", "sgdebug", _sgdebug_memory, _sgdebug_memory_stored, True),
    Setup("sgdebug SqliteSaver", "sgdebug", _sgdebug_sqlite, _file_size, False),
)


def close(saver: Any) -> None:
    """Close a saver that holds a connection."""
    if hasattr(saver, "close"):
        saver.close()


# -- measurements --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Figures:
    """What one setup measured."""

    micros_per_step: float
    memory_bytes: int
    """After the run and a first read of its history."""
    memory_run_bytes: int
    """Right after the run."""
    stored_bytes: int
    restore_ms: float
    first_read_ms: float = 0.0
    """The first reads after the run: finding the middle checkpoint in the history, then
    its ``get_state`` (what a user's first look costs; nothing is warm yet)."""


class WrongResult(AssertionError):
    """A run or a restored snapshot did not give the expected values."""


def config(thread: str, passes: int) -> dict[str, Any]:
    """A thread config with room for the loop's supersteps."""
    return {"configurable": {"thread_id": thread}, "recursion_limit": passes + 10}


def run_loop(setup: Setup, passes: int, path: Path) -> tuple[Any, Any, float]:
    """Compile and run the loop once on a fresh saver: (graph, saver, seconds)."""
    saver = setup.make_saver(path)
    graph = build_loop(setup.engine, passes).compile(checkpointer=saver)
    return graph, saver, timed_invoke(setup.name, graph, passes)


def timed_invoke(name: str, graph: Any, passes: int) -> float:
    """Seconds for one run of the loop (its result checked)."""
    start = clock()
    result = graph.invoke({"log": [], "n": 0}, config("bench", passes))
    elapsed = clock() - start
    if result != {"log": [item(i) for i in range(passes)], "n": passes}:
        raise WrongResult(f"{name}: wrong result after {passes} passes")
    return elapsed


def time_without_history(passes: int, repeats: int) -> float:
    """Best microseconds per superstep of sgdebug's loop with no checkpointer."""
    best = float("inf")
    for _ in range(repeats):
        graph = build_loop("sgdebug", passes).compile()
        gc.collect()
        gc.disable()
        try:
            best = min(best, timed_invoke("sgdebug without a saver", graph, passes))
        finally:
            gc.enable()
    return best / supersteps(passes) * 1e6


def time_per_step(setup: Setup, passes: int, repeats: int, tmp: Path, first: int = 0) -> float:
    """Best microseconds per superstep of a ``passes`` run, each on a fresh saver (and file:
    ``first`` numbers the first run's file)."""
    best = float("inf")
    for i in range(first, first + repeats):
        gc.collect()
        gc.disable()
        try:
            _, saver, elapsed = run_loop(setup, passes, tmp / f"timing-{i}.sqlite")
        finally:
            gc.enable()
        close(saver)
        best = min(best, elapsed)
    return best / supersteps(passes) * 1e6


def memory_and_restore(setup: Setup, passes: int, restores: int, tmp: Path) -> Figures:
    """Memory after a traced ``passes`` run (and after a first read of it); stored bytes,
    first reads and the mid-run restore time of a second, untraced run."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        graph, saver, _ = run_loop(setup, passes, tmp / "memory.sqlite")
        gc.collect()
        after_run = tracemalloc.get_traced_memory()[0] - before
        graph.get_state(config("bench", passes))
        gc.collect()
        after_read = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    close(saver)
    del graph, saver
    path = tmp / "restore.sqlite"
    graph, saver, _ = run_loop(setup, passes, path)
    stored = setup.stored(saver, path)
    first, restore = restore_ms(setup, graph, passes, restores)
    close(saver)
    return Figures(0.0, max(after_run, after_read), after_run, stored, restore, first)


def restore_ms(setup: Setup, graph: Any, passes: int, restores: int) -> tuple[float, float]:
    """Milliseconds of the first reads, and the best for ``get_state`` of the checkpoint at
    step ``passes // 2``."""
    middle = passes // 2
    start = time.perf_counter()
    found = list(graph.get_state_history(config("bench", passes), filter={"step": middle}))
    if len(found) != 1:
        raise WrongResult(f"{setup.name}: {len(found)} checkpoints at step {middle}")
    target = found[0].config
    graph.get_state(target)
    first = (time.perf_counter() - start) * 1e3
    expected = {"log": [item(i) for i in range(middle)], "n": middle}
    times = []
    for _ in range(restores):
        start = time.perf_counter()
        snapshot = graph.get_state(target)
        times.append(time.perf_counter() - start)
        if snapshot.values != expected:
            raise WrongResult(f"{setup.name}: wrong values restored at step {middle}")
    return first, min(times) * 1e3


@dataclass(frozen=True, slots=True)
class Options:
    """How much to run."""

    passes: int
    timing_passes: int
    repeats: int
    restores: int


def measure(setup: Setup, options: Options, micros: float) -> Figures:
    """All figures of one setup, given its time per step."""
    with tempfile.TemporaryDirectory(prefix="sgdebug-history-") as tmp:
        figures = memory_and_restore(setup, options.passes, options.restores, Path(tmp))
    return dataclasses.replace(figures, micros_per_step=micros)


def timings(options: Options) -> tuple[dict[str, float], float]:
    """Best microseconds per step of every setup, and of sgdebug without a checkpointer.

    Rounds of one run per setup, so every setup samples the same spells of machine load.
    """
    best: dict[str, float] = {setup.name: float("inf") for setup in SETUPS}
    bare = float("inf")
    with tempfile.TemporaryDirectory(prefix="sgdebug-history-") as tmp:
        for round_ in range(options.repeats):
            for setup in SETUPS:
                micros = time_per_step(setup, options.timing_passes, 1, Path(tmp), round_)
                best[setup.name] = min(best[setup.name], micros)
            bare = min(bare, time_without_history(options.timing_passes, 1))
    return best, bare


# -- report --------------------------------------------------------------------------------


def verdicts(ours: Figures, theirs: Figures) -> tuple[list[str], bool]:
    """Cells for the ratio/goal columns, and whether every goal passed."""
    speed = theirs.micros_per_step / ours.micros_per_step
    memory = ours.memory_bytes / theirs.memory_bytes
    checks = [
        speed >= SPEED_GOAL,
        memory <= MEMORY_GOAL,
        ours.restore_ms <= RESTORE_GOAL_MS,
    ]
    marks = ["PASS" if ok else "MISS" for ok in checks]
    cells = [
        f"{speed:.1f}x faster",
        f">={SPEED_GOAL:g}x {marks[0]}",
        f"{memory:.3f}",
        f"<={MEMORY_GOAL:g} {marks[1]}",
        f"<{RESTORE_GOAL_MS:g}ms {marks[2]}",
    ]
    return cells, all(checks)


def _mb(n: int) -> str:
    return f"{n / 1e6:,.2f}"


def table(results: Sequence[tuple[Setup, Figures]]) -> tuple[list[tuple[str, ...]], bool]:
    """Rows of the report (header first) and whether every counted goal passed."""
    header = (
        "setup", "us/step", "speed vs LG", "goal", "memory MB", "mem / LG", "goal",
        "stored MB", "restore ms", "goal", "first read ms",
    )  # fmt: skip
    rows: list[tuple[str, ...]] = [header]
    theirs = results[0][1]
    passed = True
    for setup, figures in results:
        cells = ["-"] * 5
        if setup.engine == "sgdebug":
            cells, ok = verdicts(figures, theirs)
            passed = passed and (ok or not setup.goals)
        speed, speed_goal, memory, memory_goal, restore_goal = cells
        time_cells = (f"{figures.micros_per_step:,.1f}", speed, speed_goal)
        memory_cells = (_mb(figures.memory_bytes), memory, memory_goal)
        restore_cells = (_mb(figures.stored_bytes), f"{figures.restore_ms:.3f}", restore_goal)
        first = f"{figures.first_read_ms:,.1f}"
        rows.append((setup.name, *time_cells, *memory_cells, *restore_cells, first))
    return rows, passed


def print_table(rows: Sequence[tuple[str, ...]]) -> None:
    """Columns aligned: the first to the left, the others to the right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        print("  ".join(cells))


def report(options: Options) -> bool:
    """Measure every setup and print the table; True if sgdebug's InMemorySaver met its goals."""
    print(
        f"history recording: append loop, sgdebug vs langgraph {metadata.version('langgraph')} "
        f"(Python {platform.python_version()})"
    )
    print(
        f"time: {options.timing_passes:,} passes ({supersteps(options.timing_passes):,} "
        f"supersteps), best of {options.repeats}"
        f"{' in CPU time' if clock is time.process_time else ''}; memory and stored: after "
        f"{options.passes:,} passes; restore: step {options.passes // 2:,}, "
        f"best of {options.restores}",
        flush=True,
    )
    start = time.perf_counter()
    micros, bare = timings(options)
    took = time.perf_counter() - start
    print(f"timed every setup in {took:.1f} s", file=sys.stderr, flush=True)
    results = []
    for setup in SETUPS:
        start = time.perf_counter()
        results.append((setup, measure(setup, options, micros[setup.name])))
        took = time.perf_counter() - start
        print(f"measured {setup.name} in {took:.1f} s", file=sys.stderr, flush=True)
    rows, passed = table(results)
    print_table(rows)
    ours = next(f for s, f in results if s.goals)
    print(
        f"sgdebug without a checkpointer: {bare:,.1f} us/step, so recording history with "
        f"InMemorySaver adds {ours.micros_per_step - bare:,.1f} us/step"
    )
    for setup, figures in results:
        print(
            f"{setup.name}: {_mb(figures.memory_run_bytes)} MB right after the run, "
            f"{_mb(figures.memory_bytes)} MB once its history was read"
        )
    return passed


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; with ``--check`` the exit status says whether the goals passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="smaller runs, for a smoke run")
    parser.add_argument("--passes", type=int, help="passes of the memory run (10,000)")
    parser.add_argument("--timing-passes", type=int, help="passes of a timing run (2,000)")
    parser.add_argument("--repeats", type=int, help="timing rounds (5)")
    parser.add_argument("--restores", type=int, default=20, help="restores timed (20)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    parser.add_argument("--cpu", action="store_true", help="time per step in CPU time")
    args = parser.parse_args(argv)
    global clock
    clock = time.process_time if args.cpu else time.perf_counter
    options = Options(
        passes=args.passes or (2_000 if args.quick else 10_000),
        timing_passes=args.timing_passes or (500 if args.quick else 2_000),
        repeats=args.repeats or (1 if args.quick else 5),
        restores=args.restores,
    )
    passed = report(options)
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
