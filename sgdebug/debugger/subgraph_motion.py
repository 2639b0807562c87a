"""Stepping inside subgraphs: ``step`` (into), ``next`` (over), ``finish`` (out) and
``until`` a node path.

A subgraph's supersteps all run inside one task of its parent's superstep, so the session's
driver, which stops between the root graph's supersteps, cannot stop between them itself.
On an engine that stops inside subgraphs (native and LangGraph: capability
:data:`~sgdebug.debugger.subgraphs.SUBGRAPH`) each verb gives its goal node paths to stop
before (:attr:`~sgdebug.debugger.driver.Goal.inner`), armed for that verb only; the root's
own supersteps stay the driver's (every verb also stops at the root's next step once one
commits). The granularity is the root's: one superstep of whichever graph the run is in.

* ``step``: before the next superstep of any graph (``FRAME/*`` for every subgraph of the
  topology): the subgraph's next step, or, when the next task runs a subgraph, before that
  subgraph's first node (step into), or, once the subgraph ends, its parent's next step.
* ``next``: before the next superstep of the shown frame or a frame above it: the
  subgraphs the shown frame runs run whole (step over). At the root that is the root's
  superstep, with every subgraph in it.
* ``finish``: before the next superstep of a frame above the shown one: the shown
  subgraph runs to its end (step out); refused at the root.
* ``until PATH``: before PATH (``research/summarize``) is about to run.

Breakpoints, interrupts and errors stop them sooner, as at the root. An engine without the
capability runs a superstep whole (``step`` says so when it runs a subgraph) and refuses
``finish`` and ``until PATH`` with its reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from sgdebug.debugger.driver import Goal
from sgdebug.debugger.results import Outcome, StopKind
from sgdebug.debugger.subgraphs import SUBGRAPH, is_path
from sgdebug.inspect.node_paths import join_path, split_path, subgraph_at
from sgdebug.runtime.engine._inner_breaks import every_node

if TYPE_CHECKING:
    from sgdebug.debugger.core import SessionCore
    from sgdebug.debugger.motion import MotionVerbs
    from sgdebug.debugger.subframes import FrameCursor

__all__ = ["SteppingVerbs"]

Frame = tuple[str, ...]


class SteppingVerbs:
    """``step``, ``next``, ``finish`` and ``until``, inside subgraphs as at the root."""

    def __init__(self, core: SessionCore, motion: MotionVerbs, frames: FrameCursor) -> None:
        self.core = core
        self.motion = motion
        self.frames = frames

    def step(self, count: int = 1) -> Outcome:
        """Run ``count`` supersteps, going into the subgraphs their tasks run."""
        with self.core.lock:
            if refused := self._refusal("step", count):
                return refused
            inner = self._every_frame() if self._inside_capable() else frozenset()
            return self._steps("step", count, inner)

    def next(self, count: int = 1) -> Outcome:
        """Run ``count`` supersteps of the shown frame, each subgraph they run whole."""
        with self.core.lock:
            if refused := self._refusal("next", count):
                return refused
            return self._steps("next", count, _frames_from(self._shown()))

    def finish(self) -> Outcome:
        """Run to the end of the shown subgraph; stop in the frame above it."""
        with self.core.lock:
            if reason := self.core.why_not("finish"):
                return self.core.refuse("finish", reason)
            shown = self._shown()
            if not shown:
                return self.core.refuse(
                    "finish",
                    "the run is in the root graph, not inside a subgraph (finish runs to the "
                    "end of the subgraph shown): `next` runs a subgraph whole, `continue` on",
                )
            inner = _frames_from(shown[:-1])
            goal = Goal("steps", report="finish", steps=1, node=join_path(shown), inner=inner)
            return self.motion.drive("finish", goal)

    def until(self, node: str) -> Outcome:
        """Run until ``node`` (a name, or a path into a subgraph) is about to run."""
        with self.core.lock:
            if reason := self.core.why_not("until") or self.motion.unknown_node(node):
                return self.core.refuse("until", reason)
            inner = frozenset({node}) if is_path(node) else frozenset()
            return self.motion.drive("until", Goal("until", report="until", node=node, inner=inner))

    # -- machinery -------------------------------------------------------------------------

    def _refusal(self, verb: str, count: int) -> Outcome | None:
        if reason := self.core.why_not(verb):
            return self.core.refuse(verb, reason)
        if count < 1:
            return self.core.refuse(verb, f"{verb} takes a positive number, got {count}")
        return None

    def _inside_capable(self) -> bool:
        return self.core.engine.capabilities.why_not(SUBGRAPH) is None

    def _shown(self) -> Frame:
        """The frame the views show (``()``: the root graph's)."""
        chosen = self.frames.selected(self.frames.chain())
        return chosen.path if chosen is not None else ()

    def _every_frame(self) -> frozenset[str]:
        """``FRAME/*`` for every subgraph of the graph, at any depth."""
        topo = self.core.topology
        frames = (split_path(p) for p in self.core.node_paths)
        return frozenset(every_node(f) for f in frames if subgraph_at(topo, f) is not None)

    def _steps(self, verb: str, count: int, inner: frozenset[str]) -> Outcome:
        """``count`` supersteps; with ``inner`` one move each (a stop inside a subgraph ends
        a move), until one stops for another reason."""
        report: StopKind = "step"
        if not inner:
            notes = self._whole_subgraphs() if verb == "step" else ()
            outcome = self.motion.drive(verb, Goal("steps", report=report, steps=count))
            return replace(outcome, notes=(*notes, *outcome.notes)) if notes else outcome
        done: list[Outcome] = []
        for left in range(count, 0, -1):
            outcome = self.motion.drive(verb, Goal("steps", report=report, steps=1, inner=inner))
            stop = outcome.stop
            if not outcome.ok or stop is None or stop.kind != "step" or left == 1:
                done.append(outcome)
                break
            passed = set(self.motion.position_notes())  # (where it stood: not where it stops)
            done.append(replace(outcome, notes=tuple(n for n in outcome.notes if n not in passed)))
        return _merged(done)

    def _whole_subgraphs(self) -> tuple[str, ...]:
        """What an engine that cannot stop inside a subgraph says when ``step`` runs one
        whole."""
        reason = self.core.engine.capabilities.why_not(SUBGRAPH)
        if reason is None or not self.core.started:
            return ()
        topo = self.core.topology
        ran = [n for n in self.core.pending_tasks if subgraph_at(topo, (n,)) is not None]
        engine = self.core.engine.capabilities.engine
        return tuple(
            f"note: step runs subgraph {name} whole: the {engine} engine cannot step into "
            f"it: {reason}"
            for name in dict.fromkeys(ran)
        )


def _frames_from(frame: Frame) -> frozenset[str]:
    """``FRAME/*`` for ``frame`` and each frame above it (``()``: none, the root's)."""
    return frozenset(every_node(frame[:depth]) for depth in range(1, len(frame) + 1))


def _merged(done: list[Outcome]) -> Outcome:
    """One outcome for several moves: the last one's stop, every commit, note and task
    that ran inside a subgraph."""
    last = done[-1]
    if len(done) == 1:
        return last
    commits = tuple(c for o in done for c in o.commits)
    notes = tuple(dict.fromkeys(n for o in done for n in o.notes))
    ran = tuple(line for o in done for line in o.ran)
    return replace(last, commits=commits, notes=notes, ran=ran)
