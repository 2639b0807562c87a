"""Breakpoints on a subgraph's nodes (``break before research/summarize``), native engine.

The session's driver checks breakpoints between the parent's supersteps, but a subgraph's
supersteps all run inside one of the parent's tasks. So before each move the engine hands the
enabled ``before``/``after`` breakpoints on node paths to the run
(:class:`~sgdebug.runtime.engine._inner_breaks.InnerBreaks`), read afresh from the table each
time (a breakpoint added, disabled or deleted, a ``tbreak`` that fired: the next move sees
it). The subgraph's run then stops at its checkpoint and the parent's run stops with no
``interrupt()`` question; :func:`inner_stop` reads where (``get_state(subgraphs=True)``, the
innermost subgraph that stopped) and names the breakpoints that stopped there, for the
driver to report. Resuming the parent re-enters the subgraph past the breakpoint.

Watches on a subgraph's channel (``watch research/notes``) stop the subgraph after each of
its supersteps (``research/*``); :func:`inner_stop` says which watches' channels changed,
and the driver's answer (conditions evaluated in the subgraph's frame) tells the engine
whether to stay stopped or re-enter (:mod:`sgdebug.debugger.subgraph_watch`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from sgdebug.debugger.breakpoints import BreakpointTable
from sgdebug.debugger.driver import Goal
from sgdebug.debugger.history import config_for
from sgdebug.debugger.subgraph_watch import InnerStop, armed_frames, stop_in_frame
from sgdebug.runtime import Run, StateSnapshot
from sgdebug.runtime.engine._inner_breaks import EVERY_NODE, PATH_SEP, InnerBreaks

__all__ = ["Breaking", "arm", "inner_breaks", "inner_stop", "innermost", "report", "started"]


@runtime_checkable
class Breaking(Protocol):
    """An observer that keeps breakpoints (the session's driver)."""

    table: BreakpointTable
    goal: Goal

    def stopped_inside(self, step: int, inner: InnerStop) -> bool:
        """The run stopped inside a subgraph at ``inner``: whether to stay stopped (a
        breakpoint fired, or the verb's goal is reached there), else the engine re-enters
        past it."""


def inner_breaks(table: BreakpointTable, goal: Goal | None = None) -> InnerBreaks | None:
    """The enabled ``before``/``after`` breakpoints of ``table`` on node paths, after every
    node of the frames its watches on a subgraph's channels look at, and the paths the
    verb's ``goal`` stops before inside subgraphs (``None``: there are none)."""
    paths: dict[str, set[str]] = {"before": set(goal.inner if goal else ()), "after": set()}
    for bp in table.all:
        if bp.enabled and bp.kind in paths and PATH_SEP in bp.target:
            paths[bp.kind].add(bp.target)
    paths["after"] |= {f"{frame}{PATH_SEP}{EVERY_NODE}" for frame in armed_frames(table)}
    if not paths["before"] and not paths["after"]:
        return None
    return InnerBreaks(frozenset(paths["before"]), frozenset(paths["after"]))


def arm(run: Run, observer: Any) -> None:
    """Give ``run`` the path breakpoints of the session ``observer`` drives (none for an
    observer without a breakpoint table: a run made from a snapshot, to its first plan)."""
    run.options.inner_breaks = (
        inner_breaks(observer.table, observer.goal) if isinstance(observer, Breaking) else None
    )


def report(
    graph: Any,
    thread_id: str,
    step: int,
    observer: Any,
    read: Callable[[Any], StateSnapshot] | None = None,
) -> bool:
    """Tell ``observer`` where the run stopped inside a subgraph; whether it stays stopped
    (an observer without breakpoints always stops). ``read`` turns what ``get_state``
    gives into sgdebug's snapshot (LangGraph's engine: its converter)."""
    if not isinstance(observer, Breaking):
        return True
    return observer.stopped_inside(step, inner_stop(graph, thread_id, observer.table, read))


def inner_stop(
    graph: Any,
    thread_id: str,
    table: BreakpointTable,
    read: Callable[[Any], StateSnapshot] | None = None,
) -> InnerStop:
    """Where the run of ``thread_id`` stopped inside a subgraph (the innermost one that
    stopped) and the path breakpoints of ``table`` that may fire there
    (:func:`~sgdebug.debugger.subgraph_watch.stop_in_frame`)."""
    full = graph.get_state(config_for(thread_id, None), subgraphs=True)
    found = innermost(full if read is None else read(full))
    if found is None:
        return InnerStop((), {}, None)
    return stop_in_frame(graph, *found, table)


def innermost(full: StateSnapshot) -> tuple[tuple[str, ...], StateSnapshot] | None:
    """The frame and snapshot of the innermost started subgraph the tasks of ``full`` (read
    with ``subgraphs=True``) stand in, first task first (``None``: none has started)."""
    frame: tuple[str, ...] = ()
    snap, found = full, None
    while True:
        task = next((t for t in snap.tasks if started(t.state)), None)
        if task is None:
            return found
        frame, snap = (*frame, task.name), task.state
        found = (frame, snap)


def started(state: Any) -> StateSnapshot | None:
    """A task's ``state`` when it is the snapshot of a subgraph that has a checkpoint
    (``None``: no snapshot, or one of a subgraph its task is about to start)."""
    if not isinstance(state, StateSnapshot):
        return None
    return state if ((state.config or {}).get("configurable") or {}).get("checkpoint_id") else None
