"""Time the TUI from pressing ``s`` to the screen showing the new superstep.

Usage::

    python benchmarks/tui.py            # 50 steps per workload
    python benchmarks/tui.py --quick    # 10 steps, a smoke run
    python benchmarks/tui.py --check    # exit 1 if a median misses its goal

Workloads (issue 6): the ``fanout`` sample (restarted, untimed, whenever its run ends; goal:
median under 50 ms), and a graph whose state holds a 100,000-item list that one node appends
to on every step (goal: median under 100 ms). The app runs headless at 120x40, built with
``sgdebug.tui.make_app`` as ``sgdebug TARGET`` builds it. A sample is the time from the key
event being posted to the engine having run the step, the frame being drawn into the panes
and the screen having repainted.
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import statistics
import sys
import time
from typing import Annotated, Any, TypedDict

from textual import events

from sgdebug.debugger import Session, SessionOptions, Target
from sgdebug.runtime import START, StateGraph
from sgdebug.sample_graphs import load
from sgdebug.tui import make_app

SIZE = (120, 40)
FANOUT_GOAL_S = 0.050
BIG_GOAL_S = 0.100
BIG_ITEMS = 100_000


class BigState(TypedDict):
    """A list that grows by one item per step."""

    items: Annotated[list[int], operator.add]


def _grow(state: BigState) -> dict[str, Any]:
    return {"items": [len(state["items"])]}


def big_session() -> Session:
    """A session on a graph that loops forever over a 100,000-item list."""
    builder = StateGraph(BigState)
    builder.add_node("grow", _grow)
    builder.add_edge(START, "grow")
    builder.add_edge("grow", "grow")
    options = SessionOptions(recursion_limit=100_000)
    session = Session(
        Target(builder.compile(), {}, "big"), input={"items": list(range(BIG_ITEMS))},
        options=options,
    )  # fmt: skip
    session.restart()
    return session


def fanout_session() -> Session:
    """A session on the ``fanout`` sample with its example input."""
    module = load("fanout")
    session = Session(Target(module.graph, vars(module), "fanout"), input=module.EXAMPLE_INPUT)
    session.restart()
    return session


async def time_steps(session: Session, steps: int) -> list[float]:
    """Seconds from posting ``s`` to the screen showing the step, ``steps`` times."""
    app = make_app(session)
    samples: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_idle()
        await pilot.pause()
        while len(samples) < steps:
            if session.status == "done":
                app.run_lines(["restart"], echo=False)
                await app.wait_idle()
                await pilot.pause()
            shown = app.frames_shown
            started = time.perf_counter()
            app.post_message(events.Key("s", "s"))
            while app.frames_shown == shown:
                await asyncio.sleep(0.0005)
            app.screen._on_timer_update()  # lay out and paint now, not at the next tick
            samples.append(time.perf_counter() - started)
            await pilot.pause()
    return samples


def report(name: str, samples: list[float], goal: float) -> bool:
    """Print the median and the spread; whether the median meets ``goal``."""
    median = statistics.median(samples)
    ok = median < goal
    print(
        f"{name:<28} median {median * 1000:7.1f} ms  "
        f"(min {min(samples) * 1000:.1f}, max {max(samples) * 1000:.1f}, n={len(samples)})  "
        f"goal < {goal * 1000:.0f} ms  {'ok' if ok else 'MISSED'}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 steps instead of 50")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()
    steps = 10 if args.quick else 50
    fanout = asyncio.run(time_steps(fanout_session(), steps))
    big = asyncio.run(time_steps(big_session(), steps))
    ok = report("fanout: s to screen", fanout, FANOUT_GOAL_S)
    ok = report(f"{BIG_ITEMS:,}-item list: s to screen", big, BIG_GOAL_S) and ok
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
