"""Subgraphs on the native engine: the tasks that ran inside them, told to the observer.

A run of a graph that runs subgraphs gets a ``tasks``-mode emitter that asks subgraphs to
forward their events (as ``stream(subgraphs=True)`` does): each event of a subgraph's task
comes tagged with its namespace. After each of the parent's tasks (and commits) the engine
reads what arrived and reports each task that finished inside a subgraph, named by its path
(``research/gather``), exactly as the LangGraph engine reports them (``_lg_subgraphs``).

Which graphs run subgraphs (:class:`SubgraphUse`) is known before any run from the graph:
a node that is a compiled graph, or a node whose function names one (``sub.invoke(...)``
in its code: :mod:`~sgdebug.debugger.called_graphs`). A run of any other graph gets an
emitter only its subgraphs' runs send to (``start(inner_emit=)``): a subgraph out of that
lookup's reach (through a dict, a factory, ...) sends its tasks' events there from the
moment its run starts, so they are reported in the first run, as on the LangGraph engine.
Its frame is not shown, on either
engine: ``get_state(subgraphs=True)`` finds a task's subgraph by LangGraph's own
detection, which misses it too. A graph whose tasks run no subgraph collects no event
and pays nothing per step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from sgdebug.debugger.engine import Observer
from sgdebug.debugger.engines import _lg_subgraphs as shared
from sgdebug.debugger.engines._lg_subgraphs import StepEvents
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import TaskInfo
from sgdebug.runtime.checkpoint.base import thread_key
from sgdebug.runtime.engine._stream import Emitter

if TYPE_CHECKING:
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.engine._view import RunView

__all__ = [
    "Streams",
    "SubgraphUse",
    "edit_frame",
    "has_subgraph_nodes",
    "report_inner_tasks",
    "runs_subgraphs",
    "subgraph_emitter",
]

_MODE = "tasks"


def has_subgraph_nodes(graph: Any) -> bool:
    """Whether a node of ``graph`` is a compiled graph (a subgraph added as a node)."""
    specs = getattr(getattr(graph, "builder", None), "nodes", {}) or {}
    return any(hasattr(getattr(s, "action", None), "builder") for s in specs.values())


def runs_subgraphs(graph: Any) -> bool:
    """Whether a node of ``graph`` is a compiled graph or its function names one."""
    from sgdebug.debugger.called_graphs import called_graphs

    if has_subgraph_nodes(graph):
        return True
    return any(called_graphs(graph, node) for node in getattr(graph.builder, "nodes", {}))


def subgraph_emitter(graph: Any, runs: bool | None = None) -> Emitter | None:
    """The emitter a run of ``graph`` collects its subgraphs' task events in (``None`` when
    ``graph`` runs no subgraph; ``runs``: whether it does, when known)."""
    if not (runs_subgraphs(graph) if runs is None else runs):
        return None
    return Emitter(_MODE, graph.stream_keys, subgraphs=True)


class Streams(TypedDict):
    """The emitters of a new run (``start(**streams)``)."""

    emit: Emitter | None
    """Every task event, with its subgraphs' (``None``: the graph is not known to run any)."""
    inner_emit: Emitter | None
    """Only the events of subgraphs' runs (when ``emit`` is ``None``)."""


class SubgraphUse:
    """Whether the runs of one graph run subgraphs: known from the graph (read once), or
    learnt when a run stopped inside one the graph did not name."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self._runs: bool | None = None
        self._asked: tuple[str, ...] = ()
        """The asking tasks :meth:`_learn` last looked at (each is looked at once)."""

    @property
    def runs(self) -> bool:
        """Whether the graph's runs run subgraphs (as far as is known)."""
        if self._runs is None:
            self._runs = runs_subgraphs(self.graph)
        return self._runs

    def emitter(self) -> Emitter | None:
        """The emitter for a new run (``None``: it runs no subgraph)."""
        return subgraph_emitter(self.graph, self.runs)

    def streams(self) -> Streams:
        """The emitters for a new run: :meth:`emitter`, or when that is ``None`` one the
        runs of subgraphs no lookup found send to (it collects nothing else)."""
        emit = self.emitter()
        inner = None if emit is not None else Emitter(_MODE, self.graph.stream_keys, subgraphs=True)
        return Streams(emit=emit, inner_emit=inner)

    def with_states(
        self,
        thread_id: str | None,
        checkpoint_id: str | None,
        tasks: tuple[TaskInfo, ...],
        *,
        stopped: bool = False,
    ) -> tuple[TaskInfo, ...]:
        """``tasks`` with the snapshot of each subgraph one of them stopped in (an interrupt
        inside it, or with ``stopped`` a breakpoint), read with ``get_state(subgraphs=True)``;
        unchanged when none did. At an interrupt in a graph not known to run subgraphs, the
        saver says whether the asking task ran one (:meth:`_learn`)."""
        if thread_id is None:
            return tasks
        asked = any(t.interrupts for t in tasks)
        if not self.runs and asked:
            self._learn(thread_id, tasks)
        if not (self.runs and (asked or stopped)):
            return tasks
        try:
            full = self.graph.get_state(config_for(thread_id, checkpoint_id), subgraphs=True)
        except Exception:  # (the step's inputs cannot be built: shown without them)
            return tasks
        return shared.with_subgraphs(tasks, shared.subgraph_states(full))

    def _learn(self, thread_id: str, tasks: tuple[TaskInfo, ...]) -> None:
        """Whether a task that asked ran a subgraph that stored a checkpoint (in the task's
        namespace, ``node:task_id``): then the graph's runs run subgraphs."""
        asking = tuple(f"{t.name}:{t.id}" for t in tasks if t.interrupts)
        if asking == self._asked:
            return
        self._asked = asking
        saver = self.graph.checkpointer
        if any(saver.get_record(thread_key(thread_id, ns)) for ns in asking):
            self._runs = True


def report_inner_tasks(run: RunView, observer: Observer | None) -> None:
    """Tell ``observer`` each subgraph task of ``run`` that finished since the last call
    (the events of the run's own tasks, which the pause hook reports, are dropped)."""
    emit = run.emit
    if emit is None:
        emit = cast("RunState", run).options.inner_emit
        if emit is None:
            return
    events, emit.events = emit.events, []
    if observer is None:
        return
    reader = StepEvents(observer, {})
    for event in events:
        if len(event) != 3:
            continue  # the parent's own
        _mode, payload, namespace = event
        kind = "task_result" if "result" in payload or "error" in payload else "task"
        reader.see(namespace, {"type": kind, "payload": payload})


def edit_frame(graph: Any, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]]) -> None:
    """``update_state`` on a subgraph's config (a new checkpoint in its namespace)."""
    graph.update_state(dict(config), dict(writes))
