"""Verbs that move the run or the session: start, step, task, continue, until, retry,
abort, resume, goto, attach, quit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Final

from sgdebug.debugger.core import SessionCore
from sgdebug.debugger.driver import Goal
from sgdebug.debugger.evaluation import ExpressionError, describe_error
from sgdebug.debugger.events import Closed, Errored, Interrupted, Started
from sgdebug.debugger.history import SnapshotError, list_history, resolve
from sgdebug.debugger.render import describe_stop
from sgdebug.debugger.results import ErrorInfo, Outcome, SessionStatus, Stop, StopKind
from sgdebug.debugger.runinfo import error_info
from sgdebug.runtime import Command, Run

__all__ = ["UNSET", "MotionVerbs"]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()
"""Default of ``restart``'s input: reuse the previous input."""

Action = Callable[[Run], str]


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
                run = self.position.new_run(thread_id, value, None)
            except Exception as exc:
                return self._refuse("restart", f"cannot start: {describe_error(exc)}")
            self.input = value
            self.last_commit = None
            self.bus.emit(Started(thread_id, value))
            notes = [
                self._store_call("save_input", value),
                self._store_call("save_thread", thread_id),
            ]
            outcome = self._adopt("restart", run, thread_id)
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
            record = self.compiled_graph.checkpointer.get_record(thread_id, checkpoint_id)
            if record is None:
                where = f"snapshot {checkpoint_id}" if checkpoint_id else "snapshot"
                return self._refuse("attach", f"no {where} of thread {thread_id!r} is stored")
            self.input = input
            self.position.open(thread_id, record.id)
            return self._stand("attach")

    def quit(self) -> Outcome:
        """End the session (front ends exit)."""
        with self.lock:
            self.position.drop()
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
            run = self._live("task")
            if isinstance(run, Outcome):
                return run
            pending = [t for t in run.tasks if not t.done and t.error is None]
            chosen = next((t for t in pending if node is None or t.name == node), None)
            if chosen is None:
                names = ", ".join(t.name for t in pending) or "none"
                asked = f" of node {node!r}" if node else ""
                return self._refuse("task", f"no pending task{asked} (pending: {names})")

            def action(run: Run) -> str:
                status = run.run_one(chosen)
                if status in ("error", "interrupted"):
                    return status
                return run.advance() if run.phase == "commit" else status

            goal = Goal("steps", report="task", steps=1, node=chosen.name)
            return self._move("task", goal, action)

    def retry(self) -> Outcome:
        """Run the failed step again (only its failed tasks re-run) and commit it."""
        with self.lock:
            if reason := self.why_not("retry"):
                return self._refuse("retry", reason)
            run = self.position.run
            if run is not None and run.status == "error":
                run.retry()
            return self._drive("retry", Goal("steps", report="step", steps=1))

    def abort(self) -> Outcome:
        """Give up the current run; history stays, ``goto``/``restart``/edits remain."""
        with self.lock:
            if reason := self.why_not("abort"):
                return self._refuse("abort", reason)
            self.position.drop()
            self.status, self.interrupts, self.retry_step = "aborted", (), None
            self.stop = Stop("aborted", self.position.step)
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
            pos = self.position
            assert pos.thread_id is not None
            try:
                run = pos.new_run(pos.thread_id, answer, pos.checkpoint_id)
            except Exception as exc:
                return self._refuse("resume", describe_error(exc))
            try:
                pos.adopt(run, pos.thread_id)
            except Exception as exc:
                return self._fail("resume", exc)
            self.interrupts = ()
            return self._move("resume", Goal("continue", report="step"), _advance)

    def goto(self, ref: str) -> Outcome:
        """Stand at snapshot ``ref``; running or editing from an old one starts a new branch."""
        with self.lock:
            if reason := self.why_not("goto"):
                return self._refuse("goto", reason)
            pos = self.position
            assert pos.thread_id is not None
            try:
                entry = resolve(list_history(self.compiled_graph, pos.thread_id, None), ref)
            except SnapshotError as exc:
                return self._refuse("goto", str(exc))
            pos.open(pos.thread_id, entry.checkpoint_id)
            return self._stand("goto")

    # -- machinery -----------------------------------------------------------------------

    def _unknown_node(self, node: str) -> str | None:
        if node in self.compiled_graph.builder.nodes:
            return None
        return f"no node named {node!r} (nodes: {', '.join(self.node_names)})"

    def _live(self, command: str) -> Run | Outcome:
        """The live run, created from the current snapshot if needed (or the failure)."""
        try:
            return self.position.materialise()
        except Exception as exc:
            return self._fail(command, exc)

    def _drive(self, command: str, goal: Goal, action: Action | None = None) -> Outcome:
        run = self._live(command)
        if isinstance(run, Outcome):
            return run
        return self._move(command, goal, action or _advance)

    def _adopt(self, command: str, run: Run, thread_id: str) -> Outcome:
        self.status = "running"
        try:
            self.position.adopt(run, thread_id)
        except Exception as exc:
            return self._fail(command, exc)
        return self._settle(command, run, run.status)

    def _move(self, command: str, goal: Goal, action: Action) -> Outcome:
        run = self.position.run
        assert run is not None
        self.driver.begin(goal)
        self.status = "running"
        try:
            status = action(run)
        except KeyboardInterrupt:
            return self._broken(command)
        except Exception as exc:
            return self._fail(command, exc)
        finally:
            self.driver.pause_requested.clear()
        return self._settle(command, run, status)

    def _settle(self, command: str, run: Run, status: str) -> Outcome:
        """Turn where the run stopped into the session's status, stop and outcome."""
        driver = self.driver
        commits = tuple(driver.commits)
        if commits:
            self.last_commit = commits[-1]
        self.interrupts = ()
        new_status: SessionStatus
        if status == "error":
            stop = driver.stop or self._error_stop(run)
            new_status = "error"
        elif status == "interrupted":
            self.interrupts = tuple(run.interrupts)
            stop = Stop("interrupt", run.step, interrupts=self.interrupts)
            self.bus.emit(Interrupted(self.interrupts))
            new_status = "interrupted"
        elif status == "done":
            stop = Stop("done", run.step, hits=tuple(driver.pending))
            new_status = "done"
        else:
            goal = driver.goal
            stop = driver.stop or Stop(goal.report, run.step, node=goal.node)
            new_status = "paused"
        self.status, self.stop = new_status, stop
        self.retry_step = run.step if new_status == "error" else None
        notes = tuple(_describe_mutation(m) for m in self.position.collect_mutations())
        outcome = Outcome(
            command, True, new_status, describe_stop(stop), stop, None, commits, notes
        )
        return self._publish(outcome)

    def _error_stop(self, run: Run) -> Stop:
        task = run.failed
        error = task.error if task is not None and task.error is not None else RuntimeError()
        info = error_info(error, task=task, step=run.step, state=self._read_state(run))
        return Stop("exception", run.step, error=info)

    def _fail(self, command: str, exc: BaseException) -> Outcome:
        """The run died (an error outside a node, or an uncaught node error)."""
        run = self.position.run
        info = self.driver.uncaught
        if info is None or info.exception is not exc:
            info = error_info(exc, task=None, step=self.position.step, state=_safe_state(self, run))
        commits = tuple(self.driver.commits)
        self.position.drop()
        self.status, self.interrupts, self.retry_step = "failed", (), None
        self.stop = Stop("failed", info.step, error=info)
        self.bus.emit(Errored(info))
        outcome = Outcome(
            command, True, "failed", describe_stop(self.stop), self.stop, None, commits
        )
        return self._publish(outcome)

    def _broken(self, command: str) -> Outcome:
        """Ctrl-C inside a node: the half-run step is dropped and will run again."""
        self.position.drop()
        self.status, self.retry_step = "paused", None
        self.stop = Stop("pause", self.position.step)
        message = "Interrupted (Ctrl-C); the unfinished step will run again."
        return self._publish(Outcome(command, True, "paused", message, self.stop))

    def _stand(self, command: str) -> Outcome:
        """Take status and stop from the stored snapshot the session now stands at."""
        pos = self.position
        view = pos.preview()
        latest = pos.is_latest()
        failed = next((t for t in view.tasks if t.error is not None), None) if latest else None
        self.interrupts = view.interrupts
        status: SessionStatus = "paused"
        error: ErrorInfo | None = None
        if view.interrupts:
            status = "interrupted"
        elif failed is not None:
            status = "error"
            error = ErrorInfo(failed.name, failed.id, "Exception", str(failed.error), "",
                              view.step, view.snapshot.values)  # fmt: skip
        elif not view.tasks:
            status = "done"
        kind: StopKind = "goto"
        self.status = status
        self.retry_step = view.step if status == "error" else None
        self.stop = Stop(kind, view.step, error=error, interrupts=view.interrupts)
        # The history lists a snapshot under the step that recorded it; the run goes on with
        # the next one.
        before = f" before step {view.step}" if status == "paused" else ""
        message = (
            f"At snapshot {self._snapshot_index()} (recorded at step {view.step - 1}): "
            f"the run is {status}{before}."
        )
        return self._publish(Outcome(command, True, status, message, self.stop))


def _advance(run: Run) -> str:
    return run.advance()


def _safe_state(session: SessionCore, run: Run | None) -> Any:
    try:
        return session.position.values() if run is None else session._read_state(run)
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
