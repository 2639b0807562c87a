"""Shared fixtures of the differential suite: which engine is compared, and a record cache.

``SGDEBUG_DIFF_ENGINE=langgraph pytest tests/differential`` compares LangGraph with itself,
which checks that every program is deterministic enough to be compared at all.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Literal

import pytest

from sgdebug.sample_graphs._engines import Engine

from .harness import Program, run_program

Recorder = Callable[[Program, Engine], dict[str, Any]]


@pytest.fixture(scope="session")
def engine() -> Engine:
    """The engine compared against LangGraph (default: sgdebug)."""
    name = os.environ.get("SGDEBUG_DIFF_ENGINE", "sgdebug")
    assert name in ("sgdebug", "langgraph"), name
    return "langgraph" if name == "langgraph" else "sgdebug"


@pytest.fixture(scope="session")
def record() -> Recorder:
    """``record(program, engine)``: the program's record, computed once per session."""
    cache: dict[tuple[str, str, Engine], dict[str, Any]] = {}

    def get(prog: Program, engine: Engine) -> dict[str, Any]:
        key = (prog.build.__module__, prog.name, engine)
        if key not in cache:
            cache[key] = run_program(prog, engine)
        return cache[key]

    return get


LANGGRAPH_RETRIES = 4
"""LangGraph runs parallel sync tasks in a thread pool: on a loaded machine the order of
their ``updates`` events can change from run to run. A record that does not match is
compared again with fresh LangGraph runs, so a test fails only when no LangGraph run
matches (never because LangGraph was nondeterministic once)."""


def settle(
    program: Program, first: dict[str, Any], matches: Callable[[dict[str, Any]], str]
) -> str:
    """``matches(record)`` → mismatch report; retried on fresh LangGraph records if needed."""
    report = matches(first)
    for _ in range(LANGGRAPH_RETRIES):
        if not report:
            break
        report = matches(run_program(program, "langgraph"))
    return report


OUR_RETRIES = 1
"""sgdebug's runtime streams a step's parallel tasks as they finish, as LangGraph does
(``engine/_finish_order``): tasks finishing within a grace of each other keep scheduling
order, but one stalled past it on a loaded machine (a GC pause, a busy core) is reported
after its siblings. A program whose record does not match any LangGraph run is run again
on sgdebug once before it counts as a mismatch: what stays different is a real one."""


def compare(
    program: Program,
    first: dict[str, Any],
    ours: Callable[[], dict[str, Any]],
    report: Callable[[dict[str, Any], dict[str, Any]], str],
) -> str:
    """``report(expected, got)`` of a fresh run of ``ours`` against LangGraph's records
    (see :func:`settle`), with ours run again :data:`OUR_RETRIES` times on a mismatch."""
    found = ""
    for _ in range(1 + OUR_RETRIES):
        found = settle(program, first, partial(_against, report, ours()))
        if not found:
            break
    return found


def _against(
    report: Callable[[dict[str, Any], dict[str, Any]], str],
    got: dict[str, Any],
    expected: dict[str, Any],
) -> str:
    return report(expected, got)


RunPath = Literal["plain", "hooked"]
PATHS: tuple[RunPath, ...] = ("plain", "hooked")
"""How sgdebug runs a program: ``plain`` as a user's invoke/stream does (no hook: the fast
path), ``hooked`` as the debugger does (a pause hook on every run, pausing at every pause
point, the run advanced again from each pause)."""


class PauseEverywhere:
    """A pause hook that stops the run at every pause point (not on errors, which then
    propagate as they would without it) and counts the calls, as the debugger's hook does."""

    def __init__(self) -> None:
        self.calls = 0

    def _pause(self) -> bool:
        self.calls += 1
        return True

    def after_plan(self, run: Any, tasks: Sequence[Any]) -> bool:
        return self._pause()

    def after_task(self, run: Any, task: Any) -> bool:
        return self._pause()

    def after_commit(self, run: Any, record: Any) -> bool:
        return self._pause()

    def on_error(self, run: Any, task: Any, error: BaseException) -> bool:
        return False

    def on_step_error(self, run: Any, failure: Any) -> bool:
        return False


def _stepped(run: Any, start: int, one_step: bool) -> bool:
    """Whether a ``one_step`` advance that paused has done its step (committed it and
    planned the next), where the unhooked advance returns ``running``."""
    return one_step and run.step != start and run.phase == "execute"


@pytest.fixture
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunPath]:
    """``hooked``: every sgdebug run of the test gets a :class:`PauseEverywhere` hook, and
    ``advance``/``aadvance`` go on from each pause until the run stops for another reason
    (so ``invoke``/``stream`` return what they would without the hook)."""
    chosen: RunPath = request.param
    if chosen == "plain":
        yield chosen
        return
    from sgdebug.runtime import Run

    hook = PauseEverywhere()
    init, advance, aadvance = Run.__init__, Run.advance, Run.aadvance
    advanced = 0

    def hooked_init(self: Run, graph: Any, options: Any) -> None:
        init(self, graph, replace(options, hooks=(*options.hooks, hook)))

    def resumed(self: Run, *, one_step: bool = False) -> Any:
        nonlocal advanced
        advanced += 1
        start = self.step
        status = advance(self, one_step=one_step)
        while status == "paused" and not _stepped(self, start, one_step):
            status = advance(self, one_step=one_step)
        return "running" if status == "paused" else status

    async def aresumed(self: Run, *, one_step: bool = False) -> Any:
        nonlocal advanced
        advanced += 1
        start = self.step
        status = await aadvance(self, one_step=one_step)
        while status == "paused" and not _stepped(self, start, one_step):
            status = await aadvance(self, one_step=one_step)
        return "running" if status == "paused" else status

    monkeypatch.setattr(Run, "__init__", hooked_init)
    monkeypatch.setattr(Run, "advance", resumed)
    monkeypatch.setattr(Run, "aadvance", aresumed)
    yield chosen
    monkeypatch.undo()
    assert hook.calls > 0 or not advanced, "runs were advanced, but no hook was called"
