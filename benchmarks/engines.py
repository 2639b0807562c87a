"""Time the two engines on the same program: opening it, and each ``s`` in the TUI.

Usage::

    python benchmarks/engines.py            # 30 steps per sample
    python benchmarks/engines.py --quick    # 8 steps, a smoke run

For each sample (``fanout``, ``loop``), built once with sgdebug's runtime and once with
LangGraph (the same program, ``sample_graphs``' factories), it prints side by side:

* open: from a compiled graph to the first screen (the session made, the run started and
  paused before its first step, the app's first frame shown), best of 5;
* ``s`` (TUI): from pressing ``s`` to the repainted screen (as ``tui.py`` measures it),
  median over the steps (a run that ends is restarted, untimed);
* step (no UI): ``Session.step()`` alone, median.

The ratio column is LangGraph engine / native engine, measured in the same run: the cost of
driving LangGraph one superstep per ``stream`` call, next to the native engine's.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui import SIZE, time_steps

from sgdebug.debugger import Session, Target
from sgdebug.sample_graphs import load
from sgdebug.tui import make_app

ENGINES = ("native", "langgraph")
SAMPLES = ("fanout", "loop")


def compiled(sample: str, engine: str) -> Any:
    module = load(sample)
    return module.langgraph_graph if engine == "langgraph" else module.graph


def session_on(sample: str, engine: str) -> Session:
    """A started session on ``sample`` built for ``engine``."""
    module = load(sample)
    session = Session(
        Target(compiled(sample, engine), vars(module), sample), input=module.EXAMPLE_INPUT
    )
    outcome = session.restart()
    assert outcome.ok, outcome.message
    return session


async def _open_once(sample: str, engine: str) -> float:
    started = time.perf_counter()
    app = make_app(session_on(sample, engine))
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_idle()
        app.screen._on_timer_update()  # lay out and paint the first frame now
        elapsed = time.perf_counter() - started
        await pilot.pause()
    return elapsed


def time_open(sample: str, engine: str, rounds: int = 5) -> float:
    """Best time from the compiled graph to the first screen."""
    return min(asyncio.run(_open_once(sample, engine)) for _ in range(rounds))


def time_session_steps(sample: str, engine: str, steps: int) -> list[float]:
    """Seconds per ``Session.step()``, restarting (untimed) when the run ends."""
    session = session_on(sample, engine)
    samples = []
    while len(samples) < steps:
        if session.status == "done":
            session.restart()
        started = time.perf_counter()
        session.step()
        samples.append(time.perf_counter() - started)
    return samples


def row(label: str, native: float, langgraph: float) -> str:
    ratio = langgraph / native if native else float("inf")
    return f"  {label:<16}{native * 1000:10.2f} ms{langgraph * 1000:12.2f} ms{ratio:10.1f}x"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="8 steps instead of 30")
    args = parser.parse_args()
    steps = 8 if args.quick else 30
    rounds = 2 if args.quick else 5
    print(f"{'':<18}{'native':>13}{'langgraph':>15}{'ratio':>11}")
    for sample in SAMPLES:
        opened = {e: time_open(sample, e, rounds) for e in ENGINES}
        tui = {e: statistics.median(asyncio.run(time_steps(session_on(sample, e), steps)))
               for e in ENGINES}  # fmt: skip
        bare = {e: statistics.median(time_session_steps(sample, e, steps)) for e in ENGINES}
        print(sample)
        print(row("open", opened["native"], opened["langgraph"]))
        print(row("s (TUI)", tui["native"], tui["langgraph"]))
        print(row("step (no UI)", bare["native"], bare["langgraph"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
