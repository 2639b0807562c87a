"""The session's state and the machinery its verbs share (views, expressions, the store)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from sgdebug.debugger.breakpoints import ANY_NODE, Breakpoint, BreakpointTable
from sgdebug.debugger.driver import Driver
from sgdebug.debugger.engine import Engine, GraphModel
from sgdebug.debugger.evaluation import Evaluator, Provider, describe_error, safe_deepcopy
from sgdebug.debugger.events import EventBus, HistoryChanged, Observer, Paused
from sgdebug.debugger.results import Outcome, SessionStatus, SessionView, Stop
from sgdebug.debugger.target import (
    LoadedTargetLike,
    SessionOptions,
    SessionStore,
    Target,
    as_target,
)
from sgdebug.inspect import Topology
from sgdebug.inspect.node_paths import node_paths
from sgdebug.inspect.topology import topology
from sgdebug.runtime import CommitRecord, Interrupt

__all__ = ["SessionCore"]

_LIVE = frozenset(("paused", "error", "interrupted", "failed"))


class SessionCore:
    """A session's state and the machinery its verbs share (the façade: ``Session``)."""

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
        """
        from sgdebug.debugger.engines import open_engine

        self.target = as_target(target)
        self.options = options or SessionOptions()
        self.engine: Engine = open_engine(
            self.target.graph, saver, self.options.recursion_limit, self.options.engine
        )
        """What runs the graph (``native`` or ``langgraph``): the session's only way to it."""
        self.store = store
        self.bus = EventBus()
        self.table = BreakpointTable(breakpoints or ())
        if breakpoints is None:
            self._add_compile_breakpoints(self.engine.model)
        self.evaluator = Evaluator(self.target.namespace)
        self.driver = Driver(self.table, self.bus, self._check_condition)
        self.lock = threading.RLock()
        self.input: Any = input
        """The input of the current run (and what ``restart`` uses by default)."""
        self.status: SessionStatus = "idle"
        self.stop: Stop | None = None
        """Why the run stopped where it is (``None`` before the first run)."""
        self.interrupts: tuple[Interrupt, ...] = ()
        """Pending ``interrupt()`` questions (status ``interrupted``)."""
        self.retry_step: int | None = None
        """The step that failed, until it is run again (edits keep it: edit, then retry)."""
        self.last_commit: CommitRecord | None = None
        """The last superstep committed in this run (per-channel old, writes, new), while the
        session stands at the snapshot it made or at edits made on top of it."""
        self.committed: tuple[CommitRecord, str | None] | None = None
        """The run's last commit and the checkpoint it made (``last_commit`` again when the
        session goes back to that checkpoint)."""
        self.open_notes: tuple[str, ...] = ()
        """What to say once on open (the graph changed since the session was saved)."""
        self._last_view: SessionView | None = None
        self._saved_breakpoints: tuple[Breakpoint, ...] | None = None
        """The table as last saved to the store (``None``: never saved)."""
        self._topology: Topology | None = None

    def _add_compile_breakpoints(self, graph: GraphModel) -> None:
        before, after = graph.interrupt_before_nodes, graph.interrupt_after_nodes
        for node in [ANY_NODE] if before == "*" else list(before):
            self.table.add("before", node, origin="compile")
        for node in [ANY_NODE] if after == "*" else list(after):
            self.table.add("after", node, origin="compile")

    # -- reading the session ---------------------------------------------------------------

    @property
    def label(self) -> str:
        """The target's label."""
        return self.target.label

    @property
    def model(self) -> GraphModel:
        """The graph's nodes, channels and drawing, for views."""
        return self.engine.model

    @property
    def thread_id(self) -> str | None:
        """The thread of the current run."""
        return self.engine.thread_id

    @property
    def started(self) -> bool:
        """Whether a run exists (live, or a stored snapshot to stand at)."""
        return self.engine.thread_id is not None

    @property
    def breakpoints(self) -> tuple[Breakpoint, ...]:
        """Every breakpoint, by number (#0 is on-exception)."""
        return self.table.all

    @property
    def node_names(self) -> tuple[str, ...]:
        """The graph's nodes, in ``add_node`` order."""
        return self.engine.model.nodes

    @property
    def topology(self) -> Topology:
        """The graph's shape, its subgraphs' included (read once)."""
        if self._topology is None:
            self._topology = topology(self.engine.model)
        return self._topology

    @property
    def topology_has_subgraphs(self) -> bool:
        """Whether a node of the graph runs a subgraph."""
        return any(node.kind == "subgraph" for node in self.topology.nodes)

    @property
    def node_paths(self) -> tuple[str, ...]:
        """Every node, then the nodes of its subgraph as paths (``research/summarize``)."""
        return node_paths(self.topology)

    @property
    def channel_names(self) -> tuple[str, ...]:
        """The state's keys that hold values (channels), in schema order."""
        keys = self.engine.model.stream_keys
        return (keys,) if isinstance(keys, str) else tuple(keys)

    @property
    def pending_tasks(self) -> tuple[str, ...]:
        """Names of the pending superstep's tasks that have not run yet."""
        if not self.started:
            return ()
        return tuple(t.name for t in self.engine.tasks() if t.state == "pending")

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Receive :mod:`~sgdebug.debugger.events`; returns a function that unsubscribes."""
        return self.bus.subscribe(observer)

    def request_pause(self) -> None:
        """Ask a running verb to pause at the next superstep boundary (from any thread)."""
        if self.status == "running":
            self.driver.pause_requested.set()

    def view(self) -> SessionView:
        """Everything a front end draws; while a verb runs, the view taken when it began."""
        if not self.lock.acquire(blocking=False):
            if self._last_view is not None:
                return self._last_view
            self.lock.acquire()
        try:
            self._last_view = self._build_view()
            return self._last_view
        finally:
            self.lock.release()

    def _build_view(self) -> SessionView:
        engine = self.engine
        started = self.started
        error = self.stop.error if self.stop is not None else None
        return SessionView(
            label=self.label,
            status=self.status,
            stop=self.stop,
            thread_id=engine.thread_id,
            checkpoint_id=engine.checkpoint_id,
            snapshot_index=self.snapshot_index(),
            step=engine.step,
            values=engine.values() if started else {},
            tasks=engine.tasks() if started else (),
            interrupts=self.interrupts,
            breakpoints=self.table.all,
            last_commit=self.last_commit,
            error=error if self.status in ("error", "failed") else None,
            mutations=tuple(engine.mutations),
            input=self.input,
            engine=engine.capabilities,
            notes=self.open_notes,
            fault=getattr(engine, "fault", None),
        )

    def snapshot_index(self) -> int | None:
        """The current snapshot's number (see ``history``)."""
        return self.engine.snapshot_index()

    # -- availability ----------------------------------------------------------------------

    def why_not(self, verb: str) -> str | None:
        """Why ``verb`` cannot run now (``None`` when it can): the one availability rule,
        from what the command registry says it needs."""
        from sgdebug.debugger.commands import spec_of

        spec = spec_of(verb)
        needs, kind = (spec.needs, spec.kind) if spec is not None else ("run", "session")
        status = self.status
        if status == "closed":
            return "the session is closed"
        if needs == "nothing":
            return None
        if status == "running":
            return "busy: a command is running (request a pause first)"
        if (missing := self.engine.capabilities.why_not(verb)) is not None:
            return f"not available on the {self.engine.capabilities.engine} engine: {missing}"
        if needs == "idle":
            return None
        if not self.started:
            return "no run yet: `restart [INPUT]` starts one"
        if verb == "retry":
            if status == "error" or (status == "paused" and self.retry_step is not None):
                return None
            return "nothing to retry: no node raised"
        if verb == "resume":
            return None if status == "interrupted" else "nothing to resume: no interrupt() waits"
        if verb == "abort":
            return None if status in _LIVE else f"no run to abort (the run is {status})"
        if kind == "motion":
            return self._why_not_move(verb)
        return None

    def _why_not_move(self, verb: str) -> str | None:
        status = self.status
        if status == "error":
            error = self.stop.error if self.stop else None
            if error is not None and error.phase != "task":
                did = "could not commit" if error.phase == "commit" else "could not start"
                return f"step {error.step} {did}: edit the state and `retry`, or `abort`"
            node = error.node if error else None
            who = f"node {node!r}" if node else "a node"
            return f"{who} raised: `retry` the step, edit the state, or `abort`"
        if status == "interrupted":
            return "the graph waits for an answer: `resume EXPR`"
        if status in ("done", "aborted"):
            word = "finished" if status == "done" else "was aborted"
            return f"the run {word}: `restart [INPUT]`, or `goto` a snapshot"
        if verb == "task" and status == "paused" and not self.pending_tasks:
            return "no pending task in this step"
        return None

    # -- expressions -----------------------------------------------------------------------

    def providers(self) -> dict[str, Provider]:
        """The session names an expression may use, each computed only when used."""
        engine = self.engine

        def state() -> Any:
            return safe_deepcopy(engine.values())

        def error() -> Any:
            info = self.stop.error if self.stop is not None else None
            return info.exception if info is not None else None

        names: dict[str, Provider] = {
            "state": state,
            "snapshot": engine.snapshot,
            "tasks": engine.tasks,
            "graph": lambda: engine.graph,
            "interrupts": lambda: self.interrupts,
            "error": error,
        }
        if getattr(engine.graph, "store", None) is not None:  # (else a channel may be "store")
            names["store"] = lambda: engine.graph.store
        return names

    def evaluate(
        self,
        expr: str,
        extra: Mapping[str, Any] | None = None,
        *,
        providers: Mapping[str, Provider] | None = None,
    ) -> Any:
        """The value of a user expression (over ``providers``, the root graph's names when
        none are given); raises ``ExpressionError`` (only)."""
        names = dict(providers) if providers is not None else self.providers()
        return self.evaluator.evaluate(expr, self._with_extra(names, extra or {}))

    def _check_condition(self, expr: str, extra: Mapping[str, Any]) -> bool:
        return self.evaluator.truth(expr, self._with_extra(self.providers(), extra))

    @staticmethod
    def _with_extra(
        providers: dict[str, Provider], extra: Mapping[str, Any]
    ) -> dict[str, Provider]:
        for name, value in extra.items():
            providers[name] = _constant(value)
        return providers

    # -- outcomes, events, store -----------------------------------------------------------

    def refuse(self, command: str, reason: str) -> Outcome:
        """The verb cannot run: nothing changed."""
        return Outcome(command, False, self.status, reason)

    def answer(
        self, command: str, value: Any, message: str = "", *, whole: bool = False
    ) -> Outcome:
        """A query's result (``whole``: the user asked for all of the value)."""
        return Outcome(command, True, self.status, message, value=value, whole=whole)

    def publish(self, outcome: Outcome, *, history: bool = True) -> Outcome:
        """After a verb moved or changed the run: tell observers, persist, return."""
        engine = self.engine
        if history and engine.thread_id is not None:
            self.bus.emit(HistoryChanged(engine.thread_id, engine.checkpoint_id))
        self._last_view = self._build_view()
        self.bus.emit(Paused(self._last_view))
        return self.finish(outcome)

    def finish(self, outcome: Outcome) -> Outcome:
        """Persist what changed; a store failure becomes a note on the outcome."""
        notes = self._sync_store()
        return replace(outcome, notes=(*outcome.notes, *notes)) if notes else outcome

    def store_call(self, method: str, *args: Any) -> str | None:
        if self.store is None:
            return None
        try:
            getattr(self.store, method)(*args)
        except Exception as exc:
            return f"warning: the session file was not updated ({describe_error(exc)})"
        return None

    def _sync_store(self) -> list[str]:
        if self.store is None or self.table.all == self._saved_breakpoints:
            return []
        self._saved_breakpoints = self.table.all
        note = self.store_call("save_breakpoints", [bp.to_dict() for bp in self.table.all])
        return [note] if note else []


def _constant(value: Any) -> Provider:
    def provide() -> Any:
        return value

    return provide
