"""The engine's observer that drives a run for the session: goals, breakpoints, pauses.

Every stop the session makes between supersteps happens in :meth:`Driver.planned`, once the
next step's tasks are known: a step goal reached, ``until`` a node, a ``before`` breakpoint,
a pause request, or an ``after`` breakpoint / watch that matched the commit just before
(those are remembered at ``committed`` and reported at the following plan, so a paused
session always shows the pending tasks). A node's exception pauses in ``errored``. The
driver checks breakpoints itself, so they work the same on every engine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from sgdebug.debugger.breakpoints import EXCEPTION_BREAKPOINT, Breakpoint, BreakpointTable
from sgdebug.debugger.evaluation import ExpressionError, safe_deepcopy
from sgdebug.debugger.events import (
    BreakpointsChanged,
    Errored,
    EventBus,
    Planned,
    Stepped,
    TaskRan,
)
from sgdebug.debugger.results import ErrorInfo, Hit, Inside, Stop, StopKind, TaskInfo
from sgdebug.debugger.subgraph_watch import InnerStop
from sgdebug.runtime import CommitRecord

__all__ = ["ConditionCheck", "Driver", "Goal", "reaches", "where_inside"]

ConditionCheck = Callable[[str, Mapping[str, Any]], bool]
"""Evaluates a breakpoint condition on the run's state, with extra names; raises
ExpressionError."""


@dataclass(frozen=True, slots=True)
class Goal:
    """Where the verb being run wants to stop (breakpoints and errors may stop it sooner)."""

    kind: Literal["plan", "steps", "until", "continue"]
    """``plan``: at the first plan; ``steps``: after N commits; ``until``: a node planned."""
    report: StopKind = "step"
    """The stop kind reported when the goal is reached."""
    steps: int = 0
    node: str | None = None
    inner: frozenset[str] = frozenset()
    """Where inside subgraphs the verb stops too, as node paths to stop before
    (``research/summarize``; ``research/*``: before each of research's supersteps): stepping
    inside a subgraph (:mod:`~sgdebug.debugger.subgraph_motion`). The engine arms them for
    this verb only."""


def reaches(paths: frozenset[str], inside: Inside) -> bool:
    """Whether a stop ``inside`` a subgraph is one the node ``paths`` of
    :attr:`Goal.inner` ask for: before a node they name, or in a frame they name with
    ``FRAME/*``."""
    frame = inside.where
    if f"{frame}/*" in paths:
        return True
    return any(f"{frame}/{name}" in paths for name in inside.next)


def where_inside(inner: InnerStop) -> Inside | None:
    """Where the stop ``inner`` stands: its frame, the nodes it runs next, its own step."""
    snap = inner.snapshot
    if snap is None or not inner.frame:
        return None
    return Inside(inner.frame, tuple(snap.next), int((snap.metadata or {}).get("step", -1)) + 1)


class Driver:
    """One per session, the engine's observer; :meth:`begin` arms it for each verb."""

    def __init__(
        self,
        table: BreakpointTable,
        bus: EventBus,
        check: ConditionCheck,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.table = table
        self.clock = clock
        """Times the tasks an engine does not time itself (seconds, monotonic): the time
        since the engine last handed over, which for a step of several tasks run at once
        would give its first reported task the whole step (engines that can time their own)."""
        self._since = clock()
        """When the engine last handed over (a verb began, a plan, a task finished)."""
        self.bus = bus
        self.check = check
        self.pause_requested = threading.Event()
        self.goal = Goal("continue")
        self.commits: list[CommitRecord] = []
        self.pending: list[Hit] = []
        self.stop: Stop | None = None
        self.uncaught: ErrorInfo | None = None
        self.planned_nodes: tuple[str, ...] = ()
        self.inner: list[TaskInfo] = []
        """Tasks that ran inside subgraphs during this verb (named ``parent/inner``)."""
        """Names of the tasks of the step being run (for ``after`` breakpoints)."""

    def begin(self, goal: Goal) -> None:
        """Arm for a new verb."""
        self.goal = goal
        self.commits = []
        self.pending = []
        self.stop = None
        self.uncaught = None
        self.inner = []
        self._since = self.clock()

    # -- observer ------------------------------------------------------------------------

    def planned(self, step: int, tasks: Sequence[TaskInfo]) -> bool:
        self.planned_nodes = tuple(t.name for t in tasks)
        self.bus.emit(Planned(step, self.planned_nodes))
        goal = self.goal
        if goal.kind == "plan":
            self.stop = Stop(goal.report, step)
            return True
        hits = [*self.pending, *self._before_hits(self.planned_nodes)]
        self.pending = []
        reached = (goal.kind == "steps" and len(self.commits) >= goal.steps) or (
            goal.kind == "until" and goal.node in self.planned_nodes
        )
        self._since = self.clock()
        requested = self.pause_requested.is_set()
        kind: StopKind
        if hits:
            kind = "breakpoint"
        elif reached:
            kind = goal.report
        elif requested:
            kind = "pause"
        else:
            return False
        self.pause_requested.clear()
        self.stop = Stop(kind, step, hits=tuple(hits), node=goal.node)
        return True

    def task_ran(self, task: TaskInfo) -> None:
        now = self.clock()
        if task.duration is None:  # not timed by the engine: the time since it last reported
            task = replace(task, duration=max(0.0, now - self._since))
        if task.path and "/" in task.name:  # a task inside a subgraph (``parent/inner``)
            self.inner.append(task)
        self.bus.emit(TaskRan(task))
        self._since = self.clock()

    def committed(self, record: CommitRecord, checkpoint_id: str | None) -> None:
        self.commits.append(record)
        self.bus.emit(Stepped(record, checkpoint_id))
        self.pending.extend(self._after_hits(record))

    def stopped_inside(self, step: int, inner: InnerStop) -> bool:
        """The engine stopped the run inside a subgraph at ``inner``: report the path
        breakpoints and watches that fire there (conditions evaluated in the subgraph's
        frame), or where the verb's :attr:`Goal.inner` asked, as this verb's stop;
        ``False`` when none fires and nothing else keeps the stop, for the engine to
        re-enter past it."""
        frame = {"state": safe_deepcopy(inner.values), "snapshot": inner.snapshot}
        hits = []
        for bp, nodes in inner.nodes:
            hit = self._fire(bp, frame)
            if hit is not None:
                hits.append(replace(hit, nodes=nodes))
        for bp, old, new in inner.changes:
            hit = self._fire(bp, {**frame, "old": old, "new": new})
            if hit is not None:
                hits.append(replace(hit, old=old, new=new))
        inside = where_inside(inner)
        goal = self.goal
        self.pending = []
        if not hits and inside is not None and reaches(goal.inner, inside):
            self.stop = Stop(goal.report, step, node=goal.node, inside=inside)
        elif hits or inner.compiled:
            self.stop = Stop("breakpoint", step, hits=tuple(hits), inside=inside)
        else:
            return False
        return True

    def errored(self, error: ErrorInfo) -> bool:
        if not self.table.catches_exceptions:
            self.uncaught = error
            return False
        bp = self._record(self.table.get(EXCEPTION_BREAKPOINT))
        node = (error.node,) if error.node is not None else ()
        self.stop = Stop("exception", error.step, hits=(Hit(bp, node),), error=error)
        self.bus.emit(Errored(error))
        return True

    # -- breakpoints ---------------------------------------------------------------------

    def _before_hits(self, nodes: tuple[str, ...]) -> list[Hit]:
        hits = []
        for bp, matched in self.table.matching_nodes("before", nodes):
            hit = self._fire(bp, {})
            if hit is not None:
                hits.append(replace(hit, nodes=matched))
        return hits

    def _after_hits(self, record: CommitRecord) -> list[Hit]:
        hits = []
        for bp, matched in self.table.matching_nodes("after", self.planned_nodes):
            hit = self._fire(bp, {})
            if hit is not None:
                hits.append(replace(hit, nodes=matched))
        changes = {c.channel: c for c in record.changes}
        for bp in self.table.watches(changes):
            change = changes[bp.target]
            extra = {"old": change.old, "new": change.new}
            hit = self._fire(bp, extra)
            if hit is not None:
                hits.append(replace(hit, old=change.old, new=change.new))
        return hits

    def _fire(self, bp: Breakpoint, extra: Mapping[str, Any]) -> Hit | None:
        """The hit of ``bp`` if its condition holds (or cannot be evaluated), else ``None``."""
        problem = None
        if bp.condition:
            try:
                if not self.check(bp.condition, extra):
                    return None
            except ExpressionError as exc:
                problem = str(exc)
        return Hit(self._record(bp), condition_error=problem)

    def _record(self, bp: Breakpoint) -> Breakpoint:
        hit = self.table.record_hit(bp)
        self.bus.emit(BreakpointsChanged(self.table.all))
        return hit
