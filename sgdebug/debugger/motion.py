"""Verbs that move the run or the session: start, step, task, continue, until, retry,
abort, resume, goto, attach, quit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from sgdebug.debugger.core import SessionCore
from sgdebug.debugger.driver import Goal
from sgdebug.debugger.engine import EngineRefused, Settled
from sgdebug.debugger.evaluation import ExpressionError
from sgdebug.debugger.events import Closed, Errored, Interrupted, Started
from sgdebug.debugger.history import SnapshotError, resolve
from sgdebug.debugger.render import describe_stop
from sgdebug.debugger.results import ErrorInfo, Outcome, SessionStatus, Stop, StopKind
from sgdebug.debugger.runinfo import error_info
from sgdebug.runtime import Command

__all__ = ["UNSET", "MotionVerbs"]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()
"""Default of ``restart``'s input: reuse the previous input."""

Action = Callable[[], Settled]


class MotionVerbs(SessionCore):
    """Running the graph and moving through its history."""

    # -- runs ----------------------------------------------------------------------------

    def restart(self, input: Any = UNSET) -> Outcome:
        """Start a new run (a new thread) on ``input``, or on the previous input."""
        with self.lock:
            if reason := self.why_not("restart"):
                return self._refuse("restart", reason)
            value = self.input if isinstance(input, _Unset) else input
            value = {} if value is None else value
            thread_id = self.options.thread_ids()
            try:
                self.engine.start(thread_id, value, None)
            except EngineRefused as exc:
                return self._refuse("restart", f"cannot start: {exc}")
            self.input = value
            self.last_commit = None
            self.bus.emit(Started(thread_id, value))
            notes = [
                self._store_call("save_input", value),
                self._store_call("save_thread", thread_id),
            ]
            outcome = self._move("restart", Goal("plan", report="start"), self._advance)
            extra = tuple(n for n in notes if n)
            return replace(outcome, notes=(*outcome.notes, *extra)) if extra else outcome

    start = restart

    def attach(
        self, thread_id: str, checkpoint_id: str | None = None, *, input: Any = None
    ) -> Outcome:
        """Stand at a stored snapshot of ``thread_id`` (its latest by default): reopening."""
        with self.lock:
            if self.status in ("running", "closed"):
                return self._refuse("attach", f"the session is {self.status}")
            found = self.engine.find(thread_id, checkpoint_id)
            if found is None:
                where = f"snapshot {checkpoint_id}" if checkpoint_id else "snapshot"
                message = f"no {where} of thread {thread_id!r} is stored"
                threads = self.engine.threads()
                if threads:
                    shown = ", ".join(threads[:10]) + (", ..." if len(threads) > 10 else "")
                    message += f"; threads stored: {shown}"
                return self._refuse("attach", message)
            self.input = input
            self.engine.open(thread_id, found)
            return self._stand("attach")

    def quit(self) -> Outcome:
        """End the session (front ends exit)."""
        with self.lock:
            self.engine.drop()
            self.status = "closed"
            self.bus.emit(Closed())
            return self._finish(Outcome("quit", True, "closed", "Bye."))

    # -- moving the run ------------------------------------------------------------------

    def step(self, count: int = 1) -> Outcome:
        """Run ``count`` supersteps (breakpoints, errors and interrupts stop sooner)."""
        with self.lock:
            if reason := self.why_not("step"):
                return self._refuse("step", reason)
            if count < 1:
                return self._refuse("step", f"step takes a positive number, got {count}")
            return self._drive("step", Goal("steps", report="step", steps=count))

    def continue_(self) -> Outcome:
        """Run until a breakpoint, an error, an interrupt, a pause request or the end."""
        with self.lock:
            if reason := self.why_not("continue"):
                return self._refuse("continue", reason)
            return self._drive("continue", Goal("continue", report="step"))

    def until(self, node: str) -> Outcome:
        """Run until a superstep that runs ``node`` is about to start."""
        with self.lock:
            if reason := self.why_not("until") or self._unknown_node(node):
                return self._refuse("until", reason)
            return self._drive("until", Goal("until", report="until", node=node))

    def task(self, node: str | None = None) -> Outcome:
        """Run one pending task (of ``node``, else the first); the step commits after its last."""
        with self.lock:
            if reason := self.why_not("task"):
                return self._refuse("task", reason)
            if failed := self._live("task"):
                return failed
            pending = [t for t in self.engine.tasks() if t.state == "pending"]
            chosen = next((t for t in pending if node is None or t.name == node), None)
            if chosen is None:
                names = ", ".join(t.name for t in pending) or "none"
                asked = f" of node {node!r}" if node else ""
                return self._refuse("task", f"no pending task{asked} (pending: {names})")
            name = chosen.name

            def action() -> Settled:
                return self.engine.run_task(name, self.driver)

            goal = Goal("steps", report="task", steps=1, node=name)
            return self._move("task", goal, action)

    def retry(self) -> Outcome:
        """Run the failed step again (only its failed tasks re-run) and commit it."""
        with self.lock:
            if reason := self.why_not("retry"):
                return self._refuse("retry", reason)
            if failed := self._live("retry"):
                return failed
            goal = Goal("steps", report="step", steps=1)
            return self._move("retry", goal, lambda: self.engine.retry(self.driver))

    def abort(self) -> Outcome:
        """Give up the current run; history stays, ``goto``/``restart``/edits remain."""
        with self.lock:
            if reason := self.why_not("abort"):
                return self._refuse("abort", reason)
            self.engine.drop()
            self.status, self.interrupts, self.retry_step = "aborted", (), None
            self.stop = Stop("aborted", self.engine.step)
            message = "Run aborted; `restart` runs again, `goto` resumes from a snapshot."
            return self._publish(Outcome("abort", True, "aborted", message, stop=self.stop))

    def resume(self, expr: str | None = None) -> Outcome:
        """Answer the pending ``interrupt()`` with the value of ``expr`` and continue.

        Without ``expr`` every pending interrupt gets ``None``. With several pending
        interrupts, answer them by id: ``resume {'<id>': value, ...}``.
        """
        with self.lock:
            if reason := self.why_not("resume"):
                return self._refuse("resume", reason)
            answer: Command[Any]
            if expr is None:
                answer = Command(resume={i.id: None for i in self.interrupts})
            else:
                try:
                    answer = Command(resume=self.evaluate(expr))
                except ExpressionError as exc:
                    return self._refuse("resume", str(exc))
            try:
                self.engine.resume(answer)
            except EngineRefused as exc:
                return self._refuse("resume", str(exc))
            if failed := self._to_first_plan("resume"):
                return failed
            self.interrupts = ()
            return self._move("resume", Goal("continue", report="step"), self._advance)

    def goto(self, ref: str) -> Outcome:
        """Stand at snapshot ``ref``; running or editing from an old one starts a new branch."""
        with self.lock:
            if reason := self.why_not("goto"):
                return self._refuse("goto", reason)
            engine = self.engine
            assert engine.thread_id is not None
            try:
                entry = resolve(engine.history(), ref)
            except SnapshotError as exc:
                return self._refuse("goto", str(exc))
            engine.open(engine.thread_id, entry.checkpoint_id)
            return self._stand("goto")

    # -- machinery -----------------------------------------------------------------------

    def _unknown_node(self, node: str) -> str | None:
        if node in self.node_names:
            return None
        return f"no node named {node!r} (nodes: {', '.join(self.node_names)})"

    def _live(self, command: str) -> Outcome | None:
        """Make the current snapshot a live run if needed (``None``), or the failure."""
        if self.engine.live:
            return None
        try:
            self.engine.materialise()
        except Exception as exc:
            return self._fail(command, exc)
        return self._to_first_plan(command)

    def _to_first_plan(self, command: str) -> Outcome | None:
        """Advance a run just made to its first plan (``None``), or the failure."""
        self.driver.begin(Goal("plan", report="start"))
        try:
            self.engine.advance(self.driver)
        except Exception as exc:
            return self._fail(command, exc)
        self._planned()
        return None

    def _planned(self) -> None:
        """Tell the driver which tasks the pending step runs (for ``after`` breakpoints)."""
        self.driver.planned_nodes = tuple(t.name for t in self.engine.tasks())

    def _advance(self) -> Settled:
        return self.engine.advance(self.driver)

    def _drive(self, command: str, goal: Goal, action: Action | None = None) -> Outcome:
        if failed := self._live(command):
            return failed
        return self._move(command, goal, action or self._advance)

    def _move(self, command: str, goal: Goal, action: Action) -> Outcome:
        self.driver.begin(goal)
        before, self.status = self.status, "running"
        try:
            settled = action()
        except EngineRefused as exc:
            self.status = before
            return self._refuse(command, str(exc))
        except KeyboardInterrupt:
            return self._broken(command)
        except Exception as exc:
            return self._fail(command, exc)
        finally:
            self.driver.pause_requested.clear()
        return self._settle(command, settled)

    def _settle(self, command: str, settled: Settled) -> Outcome:
        """Turn where the run stopped into the session's status, stop and outcome."""
        driver = self.driver
        commits = tuple(driver.commits)
        if commits:
            self.last_commit = commits[-1]
        self.interrupts = ()
        new_status: SessionStatus
        status, step = settled.status, settled.step
        if status == "error":
            stop = driver.stop or Stop("exception", step, error=settled.error)
            new_status = "error"
        elif status == "interrupted":
            self.interrupts = settled.interrupts
            stop = Stop("interrupt", step, interrupts=self.interrupts)
            self.bus.emit(Interrupted(self.interrupts))
            new_status = "interrupted"
        elif status == "done":
            stop = Stop("done", step, hits=tuple(driver.pending))
            new_status = "done"
        else:
            goal = driver.goal
            stop = driver.stop or Stop(goal.report, step, node=goal.node)
            new_status = "paused"
        self.status, self.stop = new_status, stop
        self.retry_step = step if new_status == "error" else None
        if new_status == "paused":
            self._planned()
        notes = tuple(_describe_mutation(m) for m in self.engine.collect_mutations())
        outcome = Outcome(
            command, True, new_status, describe_stop(stop), stop, None, commits, notes
        )
        return self._publish(outcome)

    def _fail(self, command: str, exc: BaseException) -> Outcome:
        """The run died (an error outside a node, or an uncaught node error)."""
        info = self.driver.uncaught
        if info is None or info.exception is not exc:
            step = self.engine.step
            info = error_info(exc, task=None, step=step, state=_safe_state(self))
        commits = tuple(self.driver.commits)
        self.engine.drop()
        self.status, self.interrupts, self.retry_step = "failed", (), None
        self.stop = Stop("failed", info.step, error=info)
        self.bus.emit(Errored(info))
        outcome = Outcome(
            command, True, "failed", describe_stop(self.stop), self.stop, None, commits
        )
        return self._publish(outcome)

    def _broken(self, command: str) -> Outcome:
        """Ctrl-C inside a node: the half-run step is dropped and will run again."""
        self.engine.drop()
        self.status, self.retry_step = "paused", None
        self.stop = Stop("pause", self.engine.step)
        message = "Interrupted (Ctrl-C); the unfinished step will run again."
        return self._publish(Outcome(command, True, "paused", message, self.stop))

    def _stand(self, command: str) -> Outcome:
        """Take status and stop from the stored snapshot the session now stands at."""
        engine = self.engine
        tasks, step = engine.tasks(), engine.step
        latest = engine.is_latest()
        failed = next((t for t in tasks if t.error is not None), None) if latest else None
        self.interrupts = engine.interrupts()
        status: SessionStatus = "paused"
        error: ErrorInfo | None = None
        if self.interrupts:
            status = "interrupted"
        elif failed is not None:
            status = "error"
            error = ErrorInfo(failed.name, failed.id, "Exception", str(failed.error), "",
                              step, engine.values())  # fmt: skip
        elif not tasks:
            status = "done"
        kind: StopKind = "goto"
        self.status = status
        self.retry_step = step if status == "error" else None
        self.stop = Stop(kind, step, error=error, interrupts=self.interrupts)
        # The history lists a snapshot under the step that recorded it; the run goes on with
        # the next one.
        before = f" before step {step}" if status == "paused" else ""
        message = (
            f"At snapshot {self._snapshot_index()} (recorded at step {step - 1}): "
            f"the run is {status}{before}."
        )
        return self._publish(Outcome(command, True, status, message, self.stop))


def _safe_state(session: SessionCore) -> Any:
    try:
        return session.engine.values()
    except Exception:
        return None


def _describe_mutation(m: Any) -> str:
    nodes = ", ".join(m.nodes) or "a node"
    if m.written:
        who = m.nodes[0] if len(m.nodes) == 1 else f"one of {nodes}"
        return (
            f"note: {who} changed {m.channel!r} in place in step {m.step} and also wrote to "
            f"it: the reducer added the write to the changed list (an item may appear twice)"
        )
    return (
        f"note: {m.channel!r} was changed in place (without a write) during step {m.step}; "
        f"it was given to: {nodes}"
    )
