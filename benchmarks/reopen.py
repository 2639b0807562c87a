"""Time reopening a long session file to a usable TUI.

Usage::

    python benchmarks/reopen.py            # a 10,000-step session and a 500-step one
    python benchmarks/reopen.py --quick    # 2,000 and 100 steps, a smoke run
    python benchmarks/reopen.py --check    # exit 1 if a goal is missed
    python benchmarks/reopen.py --engine langgraph   # the same graphs built with LangGraph

Workloads (issue 13): a loop graph run for 10,000 supersteps with small state, and one run
for 500 supersteps whose state holds a 1 KB string that changes every step. Each is run
through :class:`sgdebug.debugger.Session` with a session file's ``SqliteSaver`` (as
``--session FILE`` does), untimed. Then the file is reopened as ``sgdebug --session FILE``
reopens it (the file opened, a session built on its saver, ``attach`` to the saved thread),
the app is built with ``sgdebug.tui.make_app`` and run headless at 120x40. Two figures:
from opening the file to the first frame on screen (goal: under 2 s), and from pressing
``s`` to the screen showing the new superstep (goal: under 2 s). Each is wall time, with the
process's CPU time beside it (the machine is shared: CPU time moves less with its load).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from textual import events

from sgdebug.debugger import Session, SessionOptions, Target
from sgdebug.debugger.session_file import SessionFile, SessionRecord
from sgdebug.tui import make_app

SIZE = (120, 40)
GOAL_S = 2.0
LIMIT = 1_000_000


class LoopState(TypedDict):
    """A counter and a note that both change every step."""

    count: int
    note: str


@dataclass(frozen=True, slots=True)
class Workload:
    """A session file to build: ``steps`` supersteps with a ``note`` of ``note_bytes``."""

    name: str
    steps: int
    note_bytes: int


ENGINE = "native"
"""What builds and runs the graph: ``native`` (sgdebug.runtime) or ``langgraph``."""


def build_graph(note_bytes: int) -> Any:
    """``tick`` loops on itself for ever, rewriting ``note`` (``note_bytes`` long)."""
    if ENGINE == "langgraph":
        from langgraph.graph import END, START, StateGraph
    else:
        from sgdebug.runtime import END, START, StateGraph

    def tick(state: LoopState) -> dict[str, Any]:
        count = state["count"] + 1
        return {"count": count, "note": f"{count:08d}".ljust(note_bytes, ".")}

    builder = StateGraph(LoopState)
    builder.add_node("tick", tick)
    builder.add_edge(START, "tick")
    builder.add_conditional_edges("tick", lambda s: "tick" if s["count"] < LIMIT else END)
    return builder.compile()


def build_file(path: Path, work: Workload) -> None:
    """Run ``work.steps`` supersteps into the session file at ``path`` (paused after)."""
    graph = build_graph(work.note_bytes)
    store = SessionFile.open(path)
    store.save(SessionRecord("reopen:graph", str(path.parent), None, (), None, LIMIT))
    session = _session(graph, store)
    session.restart({"count": 0, "note": ""})
    session.step(work.steps)
    store.close()


def _session(graph: Any, store: SessionFile) -> Session:
    record = store.record
    assert record is not None
    saver = store.langgraph_saver() if ENGINE == "langgraph" else store.saver
    return Session(
        Target(graph, {}, "reopen"), input=record.input, saver=saver, store=store,
        options=SessionOptions(recursion_limit=LIMIT),
    )  # fmt: skip


def reopen(path: Path, note_bytes: int) -> Session:
    """The session of the file at ``path``, standing where it stopped (as the CLI does)."""
    store = SessionFile.open(path)
    record = store.record
    assert record is not None and record.thread_id is not None
    session = _session(build_graph(note_bytes), store)
    session.attach(record.thread_id, input=record.input)
    return session


@dataclass(frozen=True, slots=True)
class Figures:
    """Wall and CPU seconds (the process's, every thread) to the first frame and for ``s``."""

    first: tuple[float, float]
    step: tuple[float, float]
    reached: int
    """The step the session stands at after ``s``."""


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clocks()
    return wall - start[0], cpu - start[1]


async def time_reopen(path: Path, note_bytes: int) -> Figures:
    """Time to the first frame of the reopened file, and from ``s`` to the next frame."""
    started = _clocks()
    session = reopen(path, note_bytes)
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        while app.frames_shown == 0:
            await asyncio.sleep(0.001)
        app.screen._on_timer_update()  # lay out and paint now, not at the next tick
        first = _since(started)
        await app.wait_idle()
        await pilot.pause()
        shown = app.frames_shown
        started = _clocks()
        app.post_message(events.Key("s", "s"))
        while app.frames_shown == shown:
            await asyncio.sleep(0.001)
        app.screen._on_timer_update()
        step = _since(started)
        await app.wait_idle()
        reached = session.view().step
    session.quit()
    store = session.store
    assert isinstance(store, SessionFile)
    store.close()
    return Figures(first, step, reached)


def report(name: str, seconds: tuple[float, float], goal: float) -> bool:
    """Print one figure (wall, and CPU) against its goal (wall); whether it is met."""
    wall, cpu = seconds
    ok = wall < goal
    print(f"{name:<40} {wall * 1000:8.1f} ms (CPU {cpu * 1000:7.1f} ms)  "
          f"goal < {goal * 1000:.0f} ms  {'ok' if ok else 'MISSED'}")  # fmt: skip
    return ok


def run(work: Workload, folder: Path) -> bool:
    """Build the workload's file, reopen it once; whether both goals are met."""
    path = folder / f"{work.name.replace(' ', '-')}.db"
    started = time.perf_counter()
    build_file(path, work)
    built = time.perf_counter() - started
    size = path.stat().st_size
    print(f"{work.name}: {work.steps:,} steps, {size / 1e6:.1f} MB, built in {built:.1f} s")
    figures = asyncio.run(time_reopen(path, work.note_bytes))
    if figures.reached != work.steps + 1:
        print(f"  `s` reached step {figures.reached}, expected {work.steps + 1}")
        return False
    ok = report(f"  {work.name}: reopen to first frame", figures.first, GOAL_S)
    return report(f"  {work.name}: first s to screen", figures.step, GOAL_S) and ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 and 100 steps")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--engine", choices=("native", "langgraph"), default="native")
    args = parser.parse_args()
    global ENGINE
    ENGINE = args.engine
    scale = 5 if args.quick else 1
    workloads = (
        Workload("small state", 10_000 // scale, 16),
        Workload("1 KB state", 500 // scale, 1024),
    )
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        for work in workloads:
            ok = run(work, Path(folder)) and ok
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
