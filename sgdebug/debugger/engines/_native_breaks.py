"""Breakpoints on a subgraph's nodes (``break before research/summarize``), native engine.

The session's driver checks breakpoints between the parent's supersteps, but a subgraph's
supersteps all run inside one of the parent's tasks. So before each move the engine hands the
enabled ``before``/``after`` breakpoints on node paths to the run
(:class:`~sgdebug.runtime.engine._inner_breaks.InnerBreaks`), read afresh from the table each
time (a breakpoint added, disabled or deleted, a ``tbreak`` that fired: the next move sees
it). The subgraph's run then stops at its checkpoint and the parent's run stops with no
``interrupt()`` question; :func:`hits_at` reads where (``get_state(subgraphs=True)``, the
innermost subgraph that stopped) and names the breakpoints that stopped there, for the
driver to report. Resuming the parent re-enters the subgraph past the breakpoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from sgdebug.debugger.breakpoints import Breakpoint, BreakpointTable
from sgdebug.debugger.driver import Goal
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import Inside
from sgdebug.inspect.node_paths import join_path
from sgdebug.runtime import Run, StateSnapshot
from sgdebug.runtime.engine._inner_breaks import PATH_SEP, InnerBreaks

__all__ = ["Breaking", "Found", "arm", "hits_at", "inner_breaks", "report"]

Found = tuple[tuple[Breakpoint, tuple[str, ...]], ...]
"""The breakpoints that stopped a subgraph, each with the node paths it matched."""


@runtime_checkable
class Breaking(Protocol):
    """An observer that keeps breakpoints (the session's driver)."""

    table: BreakpointTable
    goal: Goal

    def stopped_inside(
        self,
        step: int,
        found: Sequence[tuple[Breakpoint, tuple[str, ...]]],
        inside: Inside | None = None,
    ) -> None:
        """The run stopped inside a subgraph (``inside``: where) at ``found``."""


def inner_breaks(table: BreakpointTable, goal: Goal | None = None) -> InnerBreaks | None:
    """The enabled ``before``/``after`` breakpoints of ``table`` on node paths, and the
    paths the verb's ``goal`` stops before inside subgraphs (``None``: there are none)."""
    paths: dict[str, set[str]] = {"before": set(goal.inner if goal else ()), "after": set()}
    for bp in table.all:
        if bp.enabled and bp.kind in paths and PATH_SEP in bp.target:
            paths[bp.kind].add(bp.target)
    if not paths["before"] and not paths["after"]:
        return None
    return InnerBreaks(frozenset(paths["before"]), frozenset(paths["after"]))


def arm(run: Run, observer: Any) -> None:
    """Give ``run`` the path breakpoints of the session ``observer`` drives (none for an
    observer without a breakpoint table: a run made from a snapshot, to its first plan)."""
    run.options.inner_breaks = (
        inner_breaks(observer.table, observer.goal) if isinstance(observer, Breaking) else None
    )


def report(graph: Any, thread_id: str, step: int, observer: Any) -> None:
    """Tell ``observer`` which path breakpoints the run stopped at inside a subgraph (none
    named: a breakpoint the subgraph was compiled with)."""
    if isinstance(observer, Breaking):
        observer.stopped_inside(step, *hits_at(graph, thread_id, observer.table))


def hits_at(graph: Any, thread_id: str, table: BreakpointTable) -> tuple[Found, Inside | None]:
    """The path breakpoints the run of ``thread_id`` stopped at inside a subgraph: ``before``
    ones on the nodes the stopped subgraph runs next, ``after`` ones on those of the step
    it just committed; and where it stopped (``None``: not inside one)."""
    found = _innermost(graph.get_state(config_for(thread_id, None), subgraphs=True))
    if found is None:
        return (), None
    frame, snap = found
    inside = Inside(frame, tuple(snap.next), int((snap.metadata or {}).get("step", -1)) + 1)
    before = _paths(frame, snap.next)
    after: set[str] = set()
    if snap.parent_config is not None:
        after = _paths(frame, graph.get_state(snap.parent_config).next)
    hits = [*table.matching_nodes("before", sorted(before))]
    hits += table.matching_nodes("after", sorted(after))
    return tuple((bp, matched) for bp, matched in hits if PATH_SEP in bp.target), inside


def _paths(frame: tuple[str, ...], names: Any) -> set[str]:
    return {join_path((*frame, name)) for name in names}


def _innermost(full: StateSnapshot) -> tuple[tuple[str, ...], StateSnapshot] | None:
    frame: tuple[str, ...] = ()
    snap, found = full, None
    while True:
        task = next((t for t in snap.tasks if _started(t.state)), None)
        if task is None:
            return found
        frame, snap = (*frame, task.name), task.state
        found = (frame, snap)


def _started(state: Any) -> bool:
    """Whether a task's ``state`` is the snapshot of a subgraph that has a checkpoint (not
    one its task is about to start)."""
    if not isinstance(state, StateSnapshot):
        return False
    return bool(((state.config or {}).get("configurable") or {}).get("checkpoint_id"))
