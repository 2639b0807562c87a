"""The pause hook that drives a run for the session: goals, breakpoints, pause requests.

Every stop the session makes between supersteps happens in :meth:`Driver.after_plan`, once
the next step's tasks are known: a step goal reached, ``until`` a node, a ``before``
breakpoint, a pause request, or an ``after`` breakpoint / watch that matched the commit just
before (those are remembered at ``after_commit`` and reported at the following plan, so a
paused session always shows the pending tasks). A node's exception pauses in ``on_error``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from sgdebug.debugger.breakpoints import EXCEPTION_BREAKPOINT, Breakpoint, BreakpointTable
from sgdebug.debugger.evaluation import ExpressionError
from sgdebug.debugger.events import (
    BreakpointsChanged,
    Errored,
    EventBus,
    Planned,
    Stepped,
    TaskRan,
)
from sgdebug.debugger.results import ErrorInfo, Hit, Stop, StopKind
from sgdebug.debugger.runinfo import error_info, names, task_info
from sgdebug.runtime import BaseHook, CommitRecord, Run, Task

__all__ = ["ConditionCheck", "Driver", "Goal"]

ConditionCheck = Callable[[str, Run, Mapping[str, Any]], bool]
"""Evaluates a breakpoint condition for a run, with extra names; raises ExpressionError."""


@dataclass(frozen=True, slots=True)
class Goal:
    """Where the verb being run wants to stop (breakpoints and errors may stop it sooner)."""

    kind: Literal["plan", "steps", "until", "continue"]
    """``plan``: at the first plan; ``steps``: after N commits; ``until``: a node planned."""
    report: StopKind = "step"
    """The stop kind reported when the goal is reached."""
    steps: int = 0
    node: str | None = None


class Driver(BaseHook):
    """One per session; :meth:`begin` arms it for each verb."""

    def __init__(
        self,
        table: BreakpointTable,
        bus: EventBus,
        check: ConditionCheck,
        read_state: Callable[[Run], Any],
    ) -> None:
        self.table = table
        self.bus = bus
        self.check = check
        self.read_state = read_state
        self.pause_requested = threading.Event()
        self.goal = Goal("continue")
        self.commits: list[CommitRecord] = []
        self.pending: list[Hit] = []
        self.stop: Stop | None = None
        self.uncaught: ErrorInfo | None = None
        self.planned: tuple[str, ...] = ()
        """Names of the tasks of the step being run (for ``after`` breakpoints)."""

    def begin(self, goal: Goal) -> None:
        """Arm for a new verb."""
        self.goal = goal
        self.commits = []
        self.pending = []
        self.stop = None
        self.uncaught = None

    # -- hook ----------------------------------------------------------------------------

    def after_plan(self, run: Run, tasks: Sequence[Task]) -> bool:
        self.planned = names(tasks)
        self.bus.emit(Planned(run.step, self.planned))
        goal = self.goal
        if goal.kind == "plan":
            self.stop = Stop(goal.report, run.step)
            return True
        hits = [*self.pending, *self._before_hits(run, tasks)]
        self.pending = []
        reached = (goal.kind == "steps" and len(self.commits) >= goal.steps) or (
            goal.kind == "until" and goal.node in self.planned
        )
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
        self.stop = Stop(kind, run.step, hits=tuple(hits), node=goal.node)
        return True

    def after_task(self, run: Run, task: Task) -> bool:
        self.bus.emit(TaskRan(task_info(task)))
        return False

    def after_commit(self, run: Run, record: CommitRecord) -> bool:
        self.commits.append(record)
        persist = run.persist
        checkpoint = persist.record.id if persist is not None and persist.record else None
        self.bus.emit(Stepped(record, checkpoint))
        self.pending.extend(self._after_hits(run, record))
        return False

    def on_error(self, run: Run, task: Task, error: BaseException) -> bool:
        info = error_info(error, task=task, step=run.step, state=self.read_state(run))
        if not self.table.catches_exceptions:
            self.uncaught = info
            return False
        bp = self._record(self.table.get(EXCEPTION_BREAKPOINT))
        self.stop = Stop("exception", run.step, hits=(Hit(bp, (task.name,)),), error=info)
        self.bus.emit(Errored(info))
        return True

    # -- breakpoints ---------------------------------------------------------------------

    def _before_hits(self, run: Run, tasks: Sequence[Task]) -> list[Hit]:
        hits = []
        for bp, matched in self.table.matching_nodes("before", names(tasks)):
            hit = self._fire(bp, run, {})
            if hit is not None:
                hits.append(replace(hit, nodes=matched))
        return hits

    def _after_hits(self, run: Run, record: CommitRecord) -> list[Hit]:
        hits = []
        for bp, matched in self.table.matching_nodes("after", self.planned):
            hit = self._fire(bp, run, {})
            if hit is not None:
                hits.append(replace(hit, nodes=matched))
        changes = {c.channel: c for c in record.changes}
        for bp in self.table.watches(changes):
            change = changes[bp.target]
            extra = {"old": change.old, "new": change.new}
            hit = self._fire(bp, run, extra)
            if hit is not None:
                hits.append(replace(hit, old=change.old, new=change.new))
        return hits

    def _fire(self, bp: Breakpoint, run: Run, extra: Mapping[str, Any]) -> Hit | None:
        """The hit of ``bp`` if its condition holds (or cannot be evaluated), else ``None``."""
        problem = None
        if bp.condition:
            try:
                if not self.check(bp.condition, run, extra):
                    return None
            except ExpressionError as exc:
                problem = str(exc)
        return Hit(self._record(bp), condition_error=problem)

    def _record(self, bp: Breakpoint) -> Breakpoint:
        hit = self.table.record_hit(bp)
        self.bus.emit(BreakpointsChanged(self.table.all))
        return hit
