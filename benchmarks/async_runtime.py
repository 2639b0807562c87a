"""Time sgdebug's runtime against LangGraph per superstep in async runs (``astream``).

Usage::

    python benchmarks/async_runtime.py            # best of 5
    python benchmarks/async_runtime.py --quick    # best of 2, a smoke run
    python benchmarks/async_runtime.py --check    # exit 1 if a goal is missed
    python benchmarks/async_runtime.py --cpu      # CPU time instead of wall time

The workloads of ``runtime.py`` (the 2,000-pass loop and the 50-branch fan-out, built by
the sample factories, no checkpointer), each run by reading every chunk of
``graph.astream(input, config, stream_mode="values")`` on one event loop: the
fixed cost of an async superstep, and of a step of 50 sync nodes run from the loop. Each
graph is compiled once per engine and streamed once to warm up and check its last
values; then the engines take turns run by run, the garbage collector paused, and the
best run counts, as in ``runtime.py``.

The goal is only that sgdebug is not slower than LangGraph (ratio >= 1x): no issue has
set an async speed goal yet. Both engines run a sync node of an async run on a worker
thread, so a one-task step pays a thread hand-off (most of sgdebug's loop time under
cProfile is the loop's ``epoll`` wait and the pool queue's ``put``); the README has
the figures measured when this benchmark was written.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import runtime
from runtime import Timing, Workload, unavailable, workloads

from sgdebug.sample_graphs._engines import ENGINES, Engine

clock: Callable[[], float] = time.perf_counter
GOALS = {"loop": 1.0, "fan-out": 1.0}
"""Minimum LangGraph / sgdebug ratio per workload (by the first word of its name)."""


def async_workloads() -> list[Workload]:
    """``runtime.py``'s workloads with the async goals."""
    return [replace(w, goal=GOALS[w.name.split()[0]]) for w in workloads()]


async def _streamed(graph: Any, work: Workload, config: dict[str, Any]) -> Any:
    """Read the whole ``astream`` of one run; its last values (the run's result)."""
    values = None
    async for chunk in graph.astream(work.input, config, stream_mode="values"):
        values = chunk
    return values


def prepare(work: Workload, engine: Engine, loop: asyncio.AbstractEventLoop) -> Any:
    """A function timing one streamed run of ``work`` on ``engine``, or why there is none."""
    missing = unavailable(engine)
    if missing:
        return missing
    graph = work.build(engine).compile()
    config = {"recursion_limit": work.supersteps + 10}
    result = loop.run_until_complete(_streamed(graph, work, config))  # warm-up and proof
    if not work.check(result):
        return f"{engine} gave a wrong result: {result!r:.200}"

    def timed_run() -> float:
        gc.collect()
        gc.disable()
        try:
            start = clock()
            loop.run_until_complete(_streamed(graph, work, config))
            return clock() - start
        finally:
            gc.enable()

    return timed_run


def time_workload(work: Workload, runs: int) -> dict[Engine, Timing]:
    """Best microseconds per superstep of ``work`` on each engine, taking turns."""
    loop = asyncio.new_event_loop()
    try:
        runners = {engine: prepare(work, engine, loop) for engine in ENGINES}
        best = dict.fromkeys(ENGINES, float("inf"))
        for _ in range(runs):
            for engine, runner in runners.items():
                if not isinstance(runner, str):
                    best[engine] = min(best[engine], runner())
    finally:
        loop.close()
    return {
        engine: Timing(None, runner)
        if isinstance(runner, str)
        else Timing(best[engine] / work.supersteps * 1e6)
        for engine, runner in runners.items()
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; with ``--check`` the exit status says whether every goal passed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, for a smoke run")
    parser.add_argument("--repeats", type=int, help="timed loop runs per engine (default 5)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    parser.add_argument("--cpu", action="store_true", help="time in CPU time, not wall time")
    args = parser.parse_args(argv)
    global clock
    clock = runtime.clock = time.process_time if args.cpu else time.perf_counter
    repeats: int = args.repeats or (2 if args.quick else 5)
    passed = runtime.report(repeats, async_workloads(), time_workload, "astream, no checkpointer")
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    sys.exit(main())
