"""Verbs that move the run or the session: start, task, continue, retry, abort, resume,
goto, attach, quit (``step``, ``next``, ``finish`` and ``until``, which may stop inside a
subgraph: :mod:`~sgdebug.debugger.subgraph_motion`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from sgdebug.debugger.breakpoints import ANY_NODE
from sgdebug.debugger.channel_layout import channel_layout, layout_notes
from sgdebug.debugger.core import SessionCore
from sgdebug.debugger.driver import Goal
from sgdebug.debugger.engine import EngineRefused, Settled
from sgdebug.debugger.evaluation import ExpressionError, parse_answer
from sgdebug.debugger.events import Closed, Errored, Interrupted, Started
from sgdebug.debugger.history import SnapshotError, resolve
from sgdebug.debugger.render import describe_stop
from sgdebug.debugger.results import ErrorInfo, Outcome, SessionStatus, Stop, StopKind, TaskInfo
from sgdebug.debugger.runinfo import error_info
from sgdebug.debugger.subgraph_watch import standing_stop
from sgdebug.debugger.subgraphs import node_refusal
from sgdebug.inspect.preview import preview
from sgdebug.runtime import Command, Interrupt

__all__ = ["UNSET", "MotionVerbs"]


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()
"""Default of ``restart``'s input: reuse the previous input."""

Action = Callable[[], Settled]


class MotionVerbs:
    """Running the graph and moving through its history."""

    def __init__(self, core: SessionCore) -> None:
        self.core = core
        self._branched_from: int | None = None
        """The older snapshot the live run was just made from (the next outcome says so)."""

    # -- runs ----------------------------------------------------------------------------

    def restart(self, input: Any = UNSET) -> Outcome:
        """Start a new run (a new thread) on ``input``, or on the previous input."""
        with self.core.lock:
            if reason := self.core.why_not("restart"):
                return self.core.refuse("restart", reason)
            value = self.core.input if isinstance(input, _Unset) else input
            value = {} if value is None else value
            thread_id = self.core.options.thread_ids()
            try:
                self.core.engine.start(thread_id, value, None)
            except EngineRefused as exc:
                return self.core.refuse("restart", f"cannot start: {exc}")
            self.core.input = value
            self.core.last_commit, self.core.committed = None, None
            self.core.bus.emit(Started(thread_id, value))
            notes = [
                self.core.store_call("save_input", value),
                self.core.store_call("save_thread", thread_id),
            ]
            if callable(getattr(self.core.store, "save_channels", None)):  # (optional)
                notes.append(self.core.store_call("save_channels", channel_layout(self.core.model)))
            outcome = self._move("restart", Goal("plan", report="start"), self._advance)
            extra = tuple(n for n in notes if n)
            return replace(outcome, notes=(*outcome.notes, *extra)) if extra else outcome

    start = restart

    def attach(
        self, thread_id: str, checkpoint_id: str | None = None, *, input: Any = None
    ) -> Outcome:
        """Stand at a stored snapshot of ``thread_id`` (its latest by default): reopening."""
        with self.core.lock:
            if self.core.status in ("running", "closed"):
                return self.core.refuse("attach", f"the session is {self.core.status}")
            found = self.core.engine.find(thread_id, checkpoint_id)
            if found is None:
                where = f"snapshot {checkpoint_id}" if checkpoint_id else "snapshot"
                message = f"no {where} of thread {thread_id!r} is stored"
                threads = self.core.engine.threads()
                if threads:
                    shown = ", ".join(threads[:10]) + (", ..." if len(threads) > 10 else "")
                    message += f"; threads stored: {shown}"
                return self.core.refuse("attach", message)
            self.core.input = input
            saved = self.core.options.saved_channels
            if saved is not None:  # reopening a session file: did the graph change since?
                self.core.open_notes = layout_notes(saved, channel_layout(self.core.model))
            self.core.engine.open(thread_id, found)
            return self._stand("attach")

    def quit(self) -> Outcome:
        """End the session (front ends exit)."""
        with self.core.lock:
            self.core.engine.drop()
            self.core.status = "closed"
            self.core.bus.emit(Closed())
            return self.core.finish(Outcome("quit", True, "closed", "Bye."))

    # -- moving the run ------------------------------------------------------------------

    def continue_(self) -> Outcome:
        """Run until a breakpoint, an error, an interrupt, a pause request or the end."""
        with self.core.lock:
            if reason := self.core.why_not("continue"):
                return self.core.refuse("continue", reason)
            return self.drive("continue", Goal("continue", report="step"))

    def task(self, node: str | None = None) -> Outcome:
        """Run one pending task (of ``node``, else the first); the step commits after its last."""
        with self.core.lock:
            if reason := self.core.why_not("task"):
                return self.core.refuse("task", reason)
            if failed := self.ensure_live("task"):
                return failed
            pending = [t for t in self.core.engine.tasks() if t.state == "pending"]
            chosen = next((t for t in pending if node is None or t.name == node), None)
            if chosen is None:
                names = ", ".join(t.name for t in pending) or "none"
                asked = f" of node {node!r}" if node else ""
                return self.core.refuse("task", f"no pending task{asked} (pending: {names})")
            name = chosen.name

            def action() -> Settled:
                return self.core.engine.run_task(name, self.core.driver)

            goal = Goal("steps", report="task", steps=1, node=name)
            return self._move("task", goal, action)

    def retry(self) -> Outcome:
        """Run the failed step again (only its failed tasks re-run) and commit it."""
        with self.core.lock:
            if reason := self.core.why_not("retry"):
                return self.core.refuse("retry", reason)
            if failed := self.ensure_live("retry"):
                return failed
            goal = Goal("steps", report="step", steps=1)
            return self._move("retry", goal, lambda: self.core.engine.retry(self.core.driver))

    def abort(self) -> Outcome:
        """Give up the current run; history stays, ``goto``/``restart``/edits remain."""
        with self.core.lock:
            if reason := self.core.why_not("abort"):
                return self.core.refuse("abort", reason)
            self.core.engine.drop()
            self.core.status, self.core.interrupts, self.core.retry_step = "aborted", (), None
            self.core.stop = Stop("aborted", self.core.engine.step)
            message = "Run aborted; `restart` runs again, `goto` resumes from a snapshot."
            return self.core.publish(
                Outcome("abort", True, "aborted", message, stop=self.core.stop)
            )

    def resume(self, expr: str | None = None) -> Outcome:
        """Answer the pending ``interrupt()`` with the value of ``expr`` and continue.

        Without ``expr`` every pending interrupt gets ``None``. With several pending
        interrupts, answer them by id: ``resume {'<id>': value, ...}``.
        """
        with self.core.lock:
            if reason := self.core.why_not("resume"):
                return self.core.refuse("resume", reason)
            answer: Command[Any]
            note = None
            if expr is None:
                answer = Command(resume={i.id: None for i in self.core.interrupts})
            else:
                try:
                    value, note = parse_answer(expr, self.core.evaluator, self.core.providers())
                except ExpressionError as exc:
                    return self.core.refuse("resume", str(exc))
                answer = Command(resume=value)
                if reason := _unanswered(self.core.interrupts, value):
                    return self.core.refuse("resume", reason)
            try:
                self.core.engine.resume(answer)
            except EngineRefused as exc:
                return self.core.refuse("resume", str(exc))
            if failed := self._to_first_plan("resume"):
                return failed
            self.core.interrupts = ()
            outcome = self._move("resume", Goal("continue", report="step"), self._advance)
            # how the answer was read comes before what the resumed run did
            return replace(outcome, ran=(note, *outcome.ran)) if note else outcome

    def goto(self, ref: str) -> Outcome:
        """Stand at snapshot ``ref``; running or editing from an old one starts a new branch."""
        with self.core.lock:
            if reason := self.core.why_not("goto"):
                return self.core.refuse("goto", reason)
            engine = self.core.engine
            assert engine.thread_id is not None
            try:
                entry = resolve(engine.history(), ref)
            except SnapshotError as exc:
                return self.core.refuse("goto", str(exc))
            engine.open(engine.thread_id, entry.checkpoint_id)
            return self._stand("goto")

    # -- machinery -----------------------------------------------------------------------

    def unknown_node(self, node: str) -> str | None:
        """Why ``until`` cannot take ``node`` (``None``: it can)."""
        if node == ANY_NODE:
            return f"no node named {node!r} (nodes: {', '.join(self.core.node_names)})"
        return node_refusal(self.core, node)

    def ensure_live(self, command: str) -> Outcome | None:
        """Make the current snapshot a live run if needed (``None``), or the failure."""
        engine = self.core.engine
        if engine.live:
            return None
        old = None if engine.is_latest() else engine.snapshot_index()
        try:
            engine.materialise()
        except Exception as exc:
            return self.fail(command, exc)
        self._branched_from = old
        return self._to_first_plan(command)

    def _to_first_plan(self, command: str) -> Outcome | None:
        """Advance a run just made to its first plan (``None``), or the failure."""
        self.core.driver.begin(Goal("plan", report="start"))
        try:
            self.core.engine.advance(self.core.driver)
        except Exception as exc:
            return self.fail(command, exc)
        self.track_plan()
        return None

    def track_plan(self) -> None:
        """Tell the driver which tasks the pending step runs (for ``after`` breakpoints)."""
        self.core.driver.planned_nodes = tuple(t.name for t in self.core.engine.tasks())

    def _advance(self) -> Settled:
        return self.core.engine.advance(self.core.driver)

    def drive(self, command: str, goal: Goal, action: Action | None = None) -> Outcome:
        """Make the position a live run if needed, then move it towards ``goal``."""
        if failed := self.ensure_live(command):
            return failed
        return self._move(command, goal, action or self._advance)

    def _move(self, command: str, goal: Goal, action: Action) -> Outcome:
        self.core.driver.begin(goal)
        before, self.core.status = self.core.status, "running"
        try:
            settled = action()
        except EngineRefused as exc:
            self.core.status = before
            return self.core.refuse(command, str(exc))
        except KeyboardInterrupt:
            return self._broken(command)
        except Exception as exc:
            return self.fail(command, exc)
        finally:
            self.core.driver.pause_requested.clear()
        return self._settle(command, settled)

    def _settle(self, command: str, settled: Settled) -> Outcome:
        """Turn where the run stopped into the session's status, stop and outcome."""
        driver = self.core.driver
        commits = tuple(driver.commits)
        if commits:
            self.core.last_commit = commits[-1]
            self.core.committed = (commits[-1], self.core.engine.checkpoint_id)
        self.core.interrupts = ()
        new_status: SessionStatus
        status, step = settled.status, settled.step
        if status == "error":
            stop = driver.stop or Stop("exception", step, error=settled.error)
            new_status = "error"
        elif status == "interrupted":
            self.core.interrupts = settled.interrupts
            stop = Stop("interrupt", step, interrupts=self.core.interrupts)
            self.core.bus.emit(Interrupted(self.core.interrupts))
            new_status = "interrupted"
        elif status == "done":
            stop = Stop("done", step, hits=tuple(driver.pending))
            new_status = "done"
        else:
            goal = driver.goal
            stop = driver.stop or Stop(goal.report, step, node=goal.node)
            new_status = "paused"
        self.core.status, self.core.stop = new_status, stop
        self.core.retry_step = step if new_status == "error" else None
        if new_status == "paused":
            self.track_plan()
        branch = self.branch_note()
        notes = (
            *((branch,) if branch else ()),
            *self.position_notes(),
            *(_describe_mutation(m) for m in self.core.engine.collect_mutations()),
        )
        ran = tuple(_describe_inner(t) for t in self.core.driver.inner)
        outcome = Outcome(
            command, True, new_status, describe_stop(stop), stop, None, commits, notes, ran=ran
        )
        return self.core.publish(outcome)

    def position_notes(self) -> tuple[str, ...]:
        """Where each subgraph a pending task runs stands (the notes of a stop there)."""
        return tuple(_describe_subgraph(t) for t in self.core.engine.tasks() if t.subgraph)

    def fail(self, command: str, exc: BaseException) -> Outcome:
        """The run died (an error outside a node, or an uncaught node error)."""
        info = self.core.driver.uncaught
        if info is None or info.exception is not exc:
            step = self.core.engine.step
            info = error_info(exc, task=None, step=step, state=_safe_state(self.core))
        commits = tuple(self.core.driver.commits)
        self.core.engine.drop()
        self.core.status, self.core.interrupts, self.core.retry_step = "failed", (), None
        self.core.stop = Stop("failed", info.step, error=info)
        self.core.bus.emit(Errored(info))
        outcome = Outcome(
            command, True, "failed", describe_stop(self.core.stop), self.core.stop, None, commits
        )
        return self.core.publish(outcome)

    def _broken(self, command: str) -> Outcome:
        """Ctrl-C inside a node: the half-run step is dropped and will run again."""
        self.core.engine.drop()
        self.core.status, self.core.retry_step = "paused", None
        self.core.stop = Stop("pause", self.core.engine.step)
        message = "Interrupted (Ctrl-C); the unfinished step will run again."
        return self.core.publish(Outcome(command, True, "paused", message, self.core.stop))

    def branch_note(self) -> str | None:
        """What running from an older snapshot did (LANGGRAPH_SEMANTICS.md 5.7), once."""
        old, self._branched_from = self._branched_from, None
        if old is None:
            return None
        forks = [e for e in self.core.engine.history() if e.source == "fork"]
        fork = next((e for e in reversed(forks) if e.parent_index == old), None)
        if fork is None:
            return f"New branch from snapshot {old}; the old branch stays in `history`."
        return (
            f"New branch from snapshot {old}: LangGraph first records a fork of it (snapshot "
            f"{fork.index}, step {fork.step}), so this branch counts steps from {fork.step + 1}."
        )

    def _stand(self, command: str) -> Outcome:
        """Take status and stop from the stored snapshot the session now stands at."""
        engine = self.core.engine
        tasks, step = engine.tasks(), engine.step
        latest = engine.is_latest()
        failed = next((t for t in tasks if t.error is not None), None) if latest else None
        self.core.interrupts = engine.interrupts()
        status: SessionStatus = "paused"
        error: ErrorInfo | None = None
        if self.core.interrupts:
            status = "interrupted"
        elif failed is not None:
            status = "error"
            error = ErrorInfo(failed.name, failed.id, "Exception", str(failed.error), "",
                              step, engine.values())  # fmt: skip
        elif (error := engine.failure()) is not None:
            status = "error"  # the stored step fails at commit, or its inputs do
        elif not tasks:
            status = "done"
        kind: StopKind = "goto"
        hits = standing_stop(self.core) if status == "paused" and latest else None
        if hits is not None:  # (stopped inside a subgraph at a breakpoint there)
            kind = "breakpoint"
        committed = self.core.committed  # its diff is of the snapshot it made, not of others
        here = committed is not None and committed[1] == engine.checkpoint_id
        self.core.last_commit = committed[0] if committed is not None and here else None
        self.core.status = status
        self.core.retry_step = step if status == "error" else None
        self.core.stop = Stop(
            kind, step, hits=hits or (), error=error, interrupts=self.core.interrupts
        )
        # The history lists a snapshot under the step that recorded it; the run goes on with
        # the next one.
        before = f" before step {step}" if status == "paused" else ""
        message = (
            f"At snapshot {self.core.snapshot_index()} (recorded at step {step - 1}): "
            f"the run is {status}{before}."
        )
        if status == "paused" and not latest:
            message += " Stepping or editing from here starts a new branch."
        if error is not None and error.phase != "task":
            message += "\n" + describe_stop(replace(self.core.stop, kind="exception"))
        if hits is not None:
            message += "\n" + describe_stop(self.core.stop)
        return self.core.publish(Outcome(command, True, status, message, self.core.stop))


def _safe_state(session: SessionCore) -> Any:
    try:
        return session.engine.values()
    except Exception:
        return None


def _describe_inner(task: TaskInfo) -> str:
    """``in subgraph review: draft wrote draft, log`` (or raised, or asked)."""
    parent, _, inner = task.name.rpartition("/")
    if task.error is not None:
        did = f"raised {task.error}"
    elif task.interrupts:
        did = "called interrupt()"
    else:
        keys = ", ".join(dict.fromkeys(k for k, _ in task.writes)) or "nothing"
        did = f"wrote {keys}"
    return f"in subgraph {parent}: {inner} {did}"


def _describe_subgraph(task: TaskInfo) -> str:
    """Where the subgraph of a pending task stands (its state, its next nodes)."""
    snap = task.subgraph
    assert snap is not None
    nxt = ", ".join(snap.next) or "nothing"
    return f"subgraph {task.name} stands before {nxt}: {preview(snap.values, 120)}"


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


def _unanswered(pending: Sequence[Interrupt], value: Any) -> str | None:
    """Why ``value`` cannot answer ``pending``: several interrupts wait and it does not
    answer some of them by id (LangGraph takes answers to some by id; the others stay)."""
    if len(pending) < 2:
        return None
    if isinstance(value, Mapping) and value and set(value) <= {i.id for i in pending}:
        return None
    asked = "; ".join(f"{i.id}: {preview(i.value, 40)}" for i in pending)
    return (
        f"{len(pending)} interrupts wait for an answer: answer each by id, "
        f"`resume {{'<id>': value, ...}}` ({asked})"
    )
