"""The session: the one controller both front ends and headless scripts drive.

``Session(target, *, input, saver, store, breakpoints, options)`` debugs one graph
(a :class:`Target`, a loaded target, or a compiled graph). Nothing runs until ``restart``.
Its verbs have the names of the commands and each returns an
:class:`~sgdebug.debugger.results.Outcome`; none raises because user code, an expression or
an edit went wrong:

* runs: ``restart(input)`` (alias ``start``), ``attach(thread_id)`` (reopen), ``quit()``;
* moving: ``step(n)``, ``next(n)``, ``finish()``, ``task(node)``, ``continue_()``,
  ``until(node)``, ``retry()``, ``abort()``, ``resume(expr)``, ``goto(ref)``;
* edits: ``set(key, expr)``, ``set_value(key, value)``, ``set_values(values)``,
  ``update(expr, as_node)``;
* looking: ``state()``, ``tasks()``, ``print(expr)``, ``history()``, ``show(ref)``,
  ``diff(a, b)``, ``graph()``, ``view()``;
* breakpoints: ``break_(when, node, cond)``, ``tbreak(...)``, ``watch(channel, cond)``,
  ``delete(n)``, ``enable(n)``, ``disable(n)``, ``breaks()``.

``why_not(verb)`` says why a verb cannot run now. Observers ``subscribe`` to
:mod:`~sgdebug.debugger.events`; ``request_pause()`` may be called from any thread.

A session is a façade over four parts: its state (:class:`~.core.SessionCore`: status,
stop, breakpoints, store, and the engine that runs the graph, which it reaches only through
the engine protocol) and three sets of verbs that share it: :class:`~.motion.MotionVerbs`,
:class:`~.edits.EditVerbs` and :class:`~.queries.QueryVerbs`.

The user's graph is compiled again with the session's checkpointer (an ``InMemorySaver``
unless a saver is given, e.g. a ``SqliteSaver`` for a session file); its compile-time
``interrupt_before``/``interrupt_after`` become breakpoints, shown and honoured with
LangGraph's whole-superstep semantics.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from sgdebug.debugger.breakpoints import Breakpoint
from sgdebug.debugger.core import SessionCore
from sgdebug.debugger.edits import EditVerbs
from sgdebug.debugger.engine import Engine
from sgdebug.debugger.evaluation import Evaluator, Provider
from sgdebug.debugger.events import Observer
from sgdebug.debugger.motion import UNSET, MotionVerbs
from sgdebug.debugger.queries import QueryVerbs
from sgdebug.debugger.results import Outcome, SessionStatus, SessionView, Stop
from sgdebug.debugger.step_times import StepTimes
from sgdebug.debugger.subframes import FrameCursor
from sgdebug.debugger.subgraph_edits import SubgraphEdits
from sgdebug.debugger.subgraph_motion import SteppingVerbs
from sgdebug.debugger.target import (
    LoadedTargetLike,
    SessionOptions,
    SessionStore,
    Target,
    as_target,
)
from sgdebug.inspect import GraphModel
from sgdebug.runtime import Interrupt

__all__ = [
    "UNSET",
    "LoadedTargetLike",
    "Session",
    "SessionOptions",
    "SessionStore",
    "Target",
    "as_target",
]


class Session:
    """Debugs one graph: runs, breakpoints, edits, history. Thread-safe; one verb at a time."""

    def __init__(
        self,
        target: Target | LoadedTargetLike | Any,
        *,
        input: Any = None,
        saver: Any = None,
        store: SessionStore | None = None,
        breakpoints: Sequence[Breakpoint] | None = None,
        options: SessionOptions | None = None,
    ) -> None:
        """A session on ``target``; nothing runs until ``restart`` (or ``attach``).

        ``breakpoints`` restores a saved table; by default the table holds #0 (on exception)
        and the graph's compile-time ``interrupt_before``/``interrupt_after`` breakpoints.
        Raises ``ValueError`` when no engine can run the graph.
        """
        self.core = SessionCore(
            target, input=input, saver=saver, store=store, breakpoints=breakpoints,
            options=options,
        )  # fmt: skip
        """The session's state, shared by the verbs."""
        self._motion = MotionVerbs(self.core)
        self._edits = EditVerbs(self.core, self._motion)
        self._queries = QueryVerbs(self.core)
        self.frames = FrameCursor(self.core)
        """Which frame the views show when the run stands inside a subgraph."""
        self._in_frame = SubgraphEdits(self.core, self.frames)
        self._stepping = SteppingVerbs(self.core, self._motion, self.frames)
        self.step_times = StepTimes(store)
        """How long each superstep's tasks ran (kept in the session file, when there is one)."""
        self.core.subscribe(self.step_times.follow)

    # -- what the session is -----------------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """What runs the graph (its ``capabilities`` say what it can do)."""
        return self.core.engine

    @property
    def model(self) -> GraphModel:
        """The graph's nodes, channels and drawing."""
        return self.core.model

    @property
    def target(self) -> Target:
        return self.core.target

    @property
    def options(self) -> SessionOptions:
        return self.core.options

    @property
    def store(self) -> SessionStore | None:
        return self.core.store

    @property
    def evaluator(self) -> Evaluator:
        """Evaluates the user's expressions (``print``, conditions, ``set``)."""
        return self.core.evaluator

    @property
    def label(self) -> str:
        return self.core.label

    @property
    def status(self) -> SessionStatus:
        return self.core.status

    @property
    def stop(self) -> Stop | None:
        """Why the run stopped where it is (``None`` before the first run)."""
        return self.core.stop

    @property
    def input(self) -> Any:
        """The input of the current run (what ``restart`` uses by default)."""
        return self.core.input

    @property
    def interrupts(self) -> tuple[Interrupt, ...]:
        """Pending ``interrupt()`` questions (status ``interrupted``)."""
        return self.core.interrupts

    @property
    def thread_id(self) -> str | None:
        return self.core.thread_id

    @property
    def started(self) -> bool:
        """Whether a run exists (live, or a stored snapshot to stand at)."""
        return self.core.started

    @property
    def breakpoints(self) -> tuple[Breakpoint, ...]:
        """Every breakpoint, by number (#0 is on-exception)."""
        return self.core.breakpoints

    @property
    def node_names(self) -> tuple[str, ...]:
        return self.core.node_names

    @property
    def node_paths(self) -> tuple[str, ...]:
        """The nodes and, as ``parent/inner`` paths, the nodes of their subgraphs."""
        return self.core.node_paths

    @property
    def channel_names(self) -> tuple[str, ...]:
        return self.core.channel_names

    @property
    def pending_tasks(self) -> tuple[str, ...]:
        """Names of the pending superstep's tasks that have not run yet."""
        return self.core.pending_tasks

    def view(self) -> SessionView:
        """Everything a front end draws; while a verb runs, the view taken when it began."""
        return self.core.view()

    def why_not(self, verb: str) -> str | None:
        """Why ``verb`` cannot run now (``None`` when it can)."""
        return self.core.why_not(verb)

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Receive :mod:`~sgdebug.debugger.events`; returns a function that unsubscribes."""
        return self.core.subscribe(observer)

    def request_pause(self) -> None:
        """Ask a running verb to pause at the next superstep boundary (from any thread)."""
        self.core.request_pause()

    def evaluate(self, expr: str, extra: Mapping[str, Any] | None = None) -> Any:
        """The value of a user expression (``state``: the shown frame's); raises
        ``ExpressionError`` (only)."""
        return self.core.evaluate(expr, extra, providers=self.providers())

    def providers(self) -> dict[str, Provider]:
        """The session names an expression may use, each computed only when used
        (``state``: the values of the frame the views show, a subgraph's inside one)."""
        return self.frames.providers(self.core.providers())

    # -- runs and moving (MotionVerbs) ---------------------------------------------------

    def restart(self, input: Any = UNSET) -> Outcome:
        """Start a new run (a new thread) on ``input``, or on the previous input."""
        return self._motion.restart(input)

    start = restart

    def attach(
        self, thread_id: str, checkpoint_id: str | None = None, *, input: Any = None
    ) -> Outcome:
        """Stand at a stored snapshot of ``thread_id`` (its latest by default): reopening."""
        return self._motion.attach(thread_id, checkpoint_id, input=input)

    def quit(self) -> Outcome:
        """End the session (front ends exit)."""
        return self._motion.quit()

    def step(self, count: int = 1) -> Outcome:
        """Run ``count`` supersteps, going into subgraphs (breakpoints, errors and
        interrupts stop sooner; see :mod:`~.subgraph_motion`)."""
        return self._stepping.step(count)

    def next(self, count: int = 1) -> Outcome:
        """Run ``count`` supersteps of the shown frame, running its subgraphs whole."""
        return self._stepping.next(count)

    def finish(self) -> Outcome:
        """Run to the end of the subgraph shown; stop in the frame above it."""
        return self._stepping.finish()

    def continue_(self) -> Outcome:
        """Run until a breakpoint, an error, an interrupt, a pause request or the end."""
        return self._motion.continue_()

    def until(self, node: str) -> Outcome:
        """Run until a superstep that runs ``node`` (a path: inside a subgraph) is about to
        start."""
        return self._stepping.until(node)

    def task(self, node: str | None = None) -> Outcome:
        """Run one pending task (of ``node``, else the first); the step commits after its last."""
        return self._motion.task(node)

    def retry(self) -> Outcome:
        """Run the failed step again (only its failed tasks re-run) and commit it."""
        return self._motion.retry()

    def abort(self) -> Outcome:
        """Give up the current run; history stays, ``goto``/``restart``/edits remain."""
        return self._motion.abort()

    def resume(self, expr: str | None = None) -> Outcome:
        """Answer the pending ``interrupt()`` with the value of ``expr`` and continue."""
        return self._motion.resume(expr)

    def goto(self, ref: str) -> Outcome:
        """Stand at snapshot ``ref``; running or editing from an old one starts a new branch."""
        return self._motion.goto(ref)

    # -- edits (EditVerbs) -----------------------------------------------------------------

    def set(self, key: str, expr: str) -> Outcome:
        """Replace ``key``'s value by the value of ``expr`` (a reducer is bypassed)."""
        return self._in_frame.set(None, key, expr) or self._edits.set(key, expr)

    def set_value(self, key: str, value: Any) -> Outcome:
        """Replace ``key``'s value by the Python ``value``: ``set`` without an expression."""
        return self._in_frame.set({key: value}) or self._edits.set_value(key, value)

    def set_values(self, values: Mapping[str, Any]) -> Outcome:
        """Replace several keys at once (one edit, one snapshot; reducers are bypassed)."""
        return self._in_frame.set(values) or self._edits.set_values(values)

    def update(self, expr: str, as_node: str | None = None) -> Outcome:
        """Apply the dict ``expr`` through the reducers (as if ``as_node`` returned it)."""
        return self._in_frame.update(expr, as_node) or self._edits.update(expr, as_node)

    # -- looking and breakpoints (QueryVerbs) ----------------------------------------------

    def state(self, *, whole: bool = False) -> Outcome:
        """The current state values (``value``); ``whole``: front ends print all of a large
        value, not an outline of it."""
        return self.frames.shown(self._queries.state(whole=whole))

    def tasks(self) -> Outcome:
        """The pending superstep's tasks (``value``: tuple of ``TaskInfo``)."""
        return self.frames.shown(self._queries.tasks())

    def print(self, expr: str, *, whole: bool = False) -> Outcome:
        """The value of a Python expression over ``state``, ``snapshot``, ``tasks``, ``graph``;
        ``whole``: front ends print all of a large value, not an outline of it."""
        return self._queries.print(expr, whole=whole, providers=self.providers())

    def history(self) -> Outcome:
        """Every snapshot of the run's thread, oldest first (``value``: ``HistoryEntry`` s)."""
        return self._queries.history()

    def show(self, ref: str | None = None) -> Outcome:
        """One snapshot (``value``: its ``StateSnapshot``); the current one by default."""
        return self._queries.show(ref)

    def diff(self, a: str | None = None, b: str | None = None) -> Outcome:
        """What changed between two snapshots (default: the current one and its parent)."""
        return self._queries.diff(a, b)

    def graph(self) -> Outcome:
        """The graph's nodes (breakpoint and pending marks) and edges."""
        return self._queries.graph()

    def up(self) -> Outcome:
        """Show the frame of the graph that runs the shown subgraph."""
        return self.frames.up()

    def down(self, instance: int | None = None) -> Outcome:
        """Show the frame of the subgraph the shown frame runs (``instance``: the N-th of
        several running beside each other, from 1)."""
        return self.frames.down(instance)

    def info(self) -> Outcome:
        """The engine running the graph and what it can do."""
        return self._queries.info()

    def break_(
        self,
        when: Literal["before", "after"],
        node: str,
        condition: str | None = None,
        *,
        temporary: bool = False,
    ) -> Outcome:
        """Break ``before``/``after`` the superstep that runs ``node`` (``*``: any node)."""
        return self._queries.break_(when, node, condition, temporary=temporary)

    def tbreak(
        self, when: Literal["before", "after"], node: str, condition: str | None = None
    ) -> Outcome:
        """A breakpoint deleted after it fires once."""
        return self._queries.tbreak(when, node, condition)

    def watch(self, channel: str, condition: str | None = None) -> Outcome:
        """Break after a superstep that changes ``channel`` (``old``/``new`` in the condition)."""
        return self._queries.watch(channel, condition)

    def delete(self, number: int | None = None) -> Outcome:
        """Delete breakpoint ``number``, or every breakpoint but #0 when ``None``."""
        return self._queries.delete(number)

    def enable(self, number: int) -> Outcome:
        """Enable breakpoint ``number``."""
        return self._queries.enable(number)

    def disable(self, number: int) -> Outcome:
        """Disable breakpoint ``number`` (#0 stops pausing on exceptions)."""
        return self._queries.disable(number)

    def breaks(self) -> Outcome:
        """Every breakpoint (``value``: tuple of ``Breakpoint``)."""
        return self._queries.breaks()
