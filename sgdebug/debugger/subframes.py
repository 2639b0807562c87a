"""Frames: which graph's state the views show when the run stands inside a subgraph.

When a pending task runs a subgraph that has started (it stopped at an ``interrupt()``
inside), the run stands in a chain of frames: the parent graph, the subgraph, a subgraph of
that one... :func:`frame_chain` reads the chain from the pending tasks (each level's own
``StateSnapshot``). :class:`FrameCursor` is the session's choice among them: the innermost
frame when the run stops, ``up`` and ``down`` to move; the channel table, the pending tasks
and the diff then show the chosen frame's state, under a breadcrumb (``parent``, then each
subgraph, joined by :data:`BREADCRUMB_SEP`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Protocol, cast, runtime_checkable

from sgdebug.debugger.results import Outcome, TaskInfo
from sgdebug.inspect.called_graphs import node_action
from sgdebug.runtime import StateSnapshot
from sgdebug.runtime._constants import PUSH

if TYPE_CHECKING:
    from sgdebug.debugger.core import SessionCore
    from sgdebug.debugger.evaluation import Provider
    from sgdebug.inspect import ChannelRow, GraphModel, TaskRow
    from sgdebug.runtime import Task

__all__ = [
    "BREADCRUMB_SEP",
    "ROOT",
    "FrameCursor",
    "SubgraphFrame",
    "SubgraphHistory",
    "SubgraphStep",
    "read_subgraph_steps",
    "subgraph_of",
    "subgraph_lines",
    "breadcrumb",
    "frame_chain",
    "frame_rows",
]

ROOT: Final = "parent"
"""How the breadcrumb names the root graph's frame."""
BREADCRUMB_SEP: Final = " \u203a "
"""Joins the breadcrumb's levels (a single right-pointing angle quotation mark)."""


def _as_is(graph: Any) -> GraphModel:
    """Our compiled graph is its own graph model."""
    model: GraphModel = graph
    return model


@dataclass(frozen=True, slots=True)
class SubgraphFrame:
    """One subgraph the run stands inside."""

    path: tuple[str, ...]
    """The nodes from the root graph down to the one running this subgraph (``("research",)``)."""
    snapshot: StateSnapshot
    """The subgraph's own snapshot: its values, next nodes, tasks, interrupts and config (the
    config ``update_state`` takes to edit it)."""
    graph: Any
    """The compiled subgraph (``None`` when it could not be found in its parent's builder)."""
    instance: tuple[int, int] = (1, 1)
    """Which of the subgraphs running beside each other in its parent's step this one is,
    and how many there are (Sends to a subgraph node: ``(2, 3)``, the second of three)."""
    note: str = ""
    """Why :attr:`graph` is ``None`` (a subgraph its node's function calls, not found:
    :mod:`~sgdebug.debugger.called_graphs`); empty when it is known."""
    adapt: Callable[[Any], GraphModel] = field(default=_as_is, compare=False, repr=False)
    """How :attr:`graph` becomes its graph model: the graph itself for ours, the root
    model's ``for_subgraph`` for a model that adapts LangGraph's graphs."""

    @property
    def model(self) -> GraphModel | None:
        """The graph model of :attr:`graph` (its channel table and edits read it), built
        when asked for; ``None`` when the graph is not known."""
        return None if self.graph is None else self.adapt(self.graph)

    @property
    def name(self) -> str:
        return self.path[-1]

    @property
    def label(self) -> str:
        """Its breadcrumb, with which instance it is when several run (``review 2/3``)."""
        shown, count = self.instance
        return breadcrumb(self.path) + (f" {shown}/{count}" if count > 1 else "")


def frame_chain(
    root: Any, tasks: Sequence[TaskInfo], picks: Sequence[int] = ()
) -> tuple[SubgraphFrame, ...]:
    """The subgraphs the pending ``tasks`` stand in, outermost first (``()``: none): at
    each level the first running one, or the ``picks[level]``-th (from 0) of those."""
    running = [t for t in tasks if isinstance(t.subgraph, StateSnapshot)]
    if not running:
        return ()
    pick = _pick(picks, 0, len(running))
    task = running[pick]
    assert isinstance(task.subgraph, StateSnapshot)
    adapt = _adapter(root)
    graph, note = _graph_of(root, task.name, task.subgraph)
    instance = (pick + 1, len(running))
    chain = [SubgraphFrame((task.name,), task.subgraph, graph, instance, note, adapt)]
    while True:
        here = chain[-1]
        inner = [t for t in here.snapshot.tasks if isinstance(t.state, StateSnapshot)]
        inner = [t for t in inner if _started(t.state)]
        if not inner:
            return tuple(chain)
        pick = _pick(picks, len(chain), len(inner))
        task_ = inner[pick]
        assert isinstance(task_.state, StateSnapshot)
        graph, note = _graph_of(here.graph, task_.name, task_.state)
        instance = (pick + 1, len(inner))
        path = (*here.path, task_.name)
        chain.append(SubgraphFrame(path, task_.state, graph, instance, note, adapt))


def _adapter(root: Any) -> Callable[[Any], GraphModel]:
    """How the frames under ``root`` make their graph's model: ``root``'s own
    ``for_subgraph`` when ``root`` adapts another library's graph (a LangGraph graph's
    model wraps its subgraphs the same way), else the graph as it is (ours is its own)."""
    adapt: Callable[[Any], GraphModel] | None = getattr(type(root), "for_subgraph", None)
    return adapt if adapt is not None else _as_is


def _graph_of(parent: Any, node: str, snapshot: StateSnapshot) -> tuple[Any, str]:
    """The compiled graph whose run ``snapshot`` is, under node ``node`` of ``parent``: the
    node itself, or the one its function calls; else ``None`` and why."""
    graph = subgraph_of(parent, node)
    if graph is not None:
        return graph, ""
    if parent is None:
        return None, f"The graph {node} runs is not known (its parent's is not)."
    from sgdebug.debugger.called_graphs import called_graph

    found = called_graph(parent, node, snapshot)
    return found.graph, found.note


def _pick(picks: Sequence[int], level: int, count: int) -> int:
    return picks[level] if level < len(picks) and 0 <= picks[level] < count else 0


def breadcrumb(path: Sequence[str]) -> str:
    """``parent`` and ``research`` joined by :data:`BREADCRUMB_SEP` for ``("research",)``."""
    return BREADCRUMB_SEP.join((ROOT, *path))


def _started(snap: Any) -> bool:
    configurable = (getattr(snap, "config", None) or {}).get("configurable") or {}
    return bool(configurable.get("checkpoint_id"))


def subgraph_of(graph: Any, node: str) -> Any:
    """The compiled graph node ``node`` of ``graph`` runs (``None``: not a subgraph)."""
    action = node_action(graph, node)
    return action if hasattr(action, "builder") else None


def frame_rows(frame: SubgraphFrame) -> tuple[tuple[ChannelRow, ...], tuple[TaskRow, ...]]:
    """The channel table and the pending tasks of a subgraph frame, from its snapshot."""
    from sgdebug.inspect import snapshot_channel_rows, task_rows

    if frame.model is not None:
        channels = snapshot_channel_rows(frame.model, frame.snapshot)
    else:  # (the graph is not known: the snapshot's values, as they are)
        from sgdebug.debugger.called_graphs import snapshot_rows

        channels = snapshot_rows(frame.snapshot)
    return channels, task_rows(cast("Sequence[Task]", frame_tasks(frame)))


def frame_tasks(frame: SubgraphFrame) -> tuple[TaskInfo, ...]:
    """The tasks of a subgraph frame's snapshot, each with its input: the subgraph's values
    its node reads (a Send's argument is not in the snapshot: none shown)."""
    from sgdebug.debugger.runinfo import pregel_task_info

    values = frame.snapshot.values
    infos = []
    for task in frame.snapshot.tasks:
        given: Any = None
        push = bool(task.path) and task.path[0] == PUSH
        if not push:  # (what triggered a pulled one is not in the snapshot either)
            keys = node_input_keys(frame.graph, task.name)
            given = values
            if isinstance(values, Mapping) and keys is not None:
                given = {k: v for k, v in values.items() if k in keys}
        infos.append(pregel_task_info(task, given, (PUSH,) if push else ()))
    return tuple(infos)


def node_input_keys(graph: Any, node: str) -> frozenset[str] | None:
    """The state keys node ``node`` of ``graph`` reads (its input schema's), when known:
    LangGraph's builders and ours keep each schema's channels alike."""
    builder = getattr(graph, "builder", None)
    spec = getattr(builder, "nodes", {}).get(node) if builder is not None else None
    schema = getattr(spec, "input_schema", None)
    channels = getattr(builder, "schemas", {}).get(schema) if schema is not None else None
    return frozenset(channels) if channels else None


@dataclass(frozen=True, slots=True)
class SubgraphStep:
    """One checkpoint a subgraph stored, and the parent checkpoint whose step ran it."""

    frame: tuple[str, ...]
    """The nodes down to the subgraph (``("research",)``)."""
    parent_checkpoint: str
    """The root graph's checkpoint whose pending step runs the subgraph."""
    step: int
    """The subgraph's own step number."""
    source: str
    """``input``, ``loop`` or ``update`` (an edit in the subgraph's frame)."""
    ran: tuple[str, ...]
    """The subgraph's nodes whose writes made it (``loop``)."""
    waiting: tuple[str, ...]
    """The subgraph's nodes that run next from it."""

    def describe(self) -> str:
        """``research step 1 ran gather → summarize``."""
        ran = f" ran {', '.join(self.ran)}" if self.ran else ""
        nxt = f" \u2192 {', '.join(self.waiting)}" if self.waiting else ""
        return f"{'/'.join(self.frame)} step {self.step} {self.source}{ran}{nxt}"


def read_subgraph_steps(graph: Any, saver: Any, thread_id: str | None) -> tuple[SubgraphStep, ...]:
    """Every checkpoint the subgraphs of ``thread_id`` stored (each namespace's history, as
    ``get_state_history`` on the subgraph's config gives it), oldest first per namespace.

    ``saver.list`` on the thread lists every namespace's checkpoints (LangGraph's savers
    and sgdebug's alike); each one's ``parents`` metadata names the root checkpoint whose
    step ran it. Either engine's graph and saver will do."""
    if thread_id is None:
        return ()
    namespaces: dict[str, str] = {}
    for stored in saver.list({"configurable": {"thread_id": thread_id}}):
        ns = stored.config["configurable"].get("checkpoint_ns", "")
        parent = ((stored.metadata or {}).get("parents") or {}).get("")
        if ns and parent:
            namespaces.setdefault(ns, parent)
    found: list[SubgraphStep] = []
    for ns, parent in namespaces.items():
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        frame = tuple(part.split(":", 1)[0] for part in ns.split("|"))
        before: tuple[str, ...] = ()
        for snap in reversed(list(graph.get_state_history(config))):
            meta = snap.metadata or {}
            source = str(meta.get("source", ""))
            ran = before if source == "loop" else ()
            step = int(meta.get("step", -1))
            found.append(SubgraphStep(frame, parent, step, source, ran, tuple(snap.next)))
            before = tuple(snap.next)
    return tuple(found)


@runtime_checkable
class SubgraphHistory(Protocol):
    """An engine that reads the checkpoints its subgraphs stored."""

    def subgraph_steps(self) -> tuple[SubgraphStep, ...]:
        """Every subgraph checkpoint of the session's thread, oldest first per subgraph."""
        ...


def subgraph_lines(engine: Any) -> dict[str, tuple[str, ...]]:
    """Root checkpoint id -> one line per subgraph checkpoint its step stored (for the
    history tree, under that checkpoint); empty on an engine that cannot read them."""
    if not isinstance(engine, SubgraphHistory):
        return {}
    found: dict[str, list[str]] = {}
    for step in engine.subgraph_steps():
        if step.source == "input" or step.ran == ("__start__",):
            continue  # the subgraph taking its input: nothing of the user's ran
        found.setdefault(step.parent_checkpoint, []).append(step.describe())
    return {key: tuple(lines) for key, lines in found.items()}


class FrameCursor:
    """The frame the views show: how many levels up from the innermost one the user moved."""

    def __init__(self, core: SessionCore) -> None:
        self.core = core
        self._lock = threading.Lock()
        self._up = 0
        """Levels above the innermost frame (0: the innermost)."""
        self._picks: tuple[int, ...] = ()
        """Per level, which of the subgraphs running beside each other is shown (from 0)."""
        self._at: tuple[str | None, int, object] = (None, 0, None)
        """Where the run stood when ``_up`` was chosen (its checkpoint, step and stop: a
        subgraph moves under one parent checkpoint); a move elsewhere resets it."""

    def chain(self) -> tuple[SubgraphFrame, ...]:
        """The subgraph frames the run stands in now."""
        core = self.core
        if not core.started:
            return ()
        return frame_chain(core.engine.model, core.engine.tasks(), self._picks)

    def selected(self, chain: Sequence[SubgraphFrame]) -> SubgraphFrame | None:
        """The chosen frame of ``chain`` (``None``: the root graph's)."""
        self._reset_if_moved()
        level = len(chain) - min(self._up, len(chain))
        return chain[level - 1] if level > 0 else None

    def shown(self, outcome: Outcome) -> Outcome:
        """A ``state`` or ``tasks`` answer for the shown frame: the subgraph's values or
        tasks when a subgraph frame is shown (``outcome`` as it is otherwise)."""
        if not outcome.ok:
            return outcome
        chosen = self.selected(self.chain())
        if chosen is None:
            return outcome
        snap = chosen.snapshot
        where = f"In frame {chosen.label} (`up` shows the parent's)."
        if outcome.command == "tasks":
            return replace(outcome, value=frame_tasks(chosen), message=where)
        return replace(outcome, value=snap.values, message=where)

    def providers(self, names: dict[str, Provider]) -> dict[str, Provider]:
        """The session's expression ``names`` for the shown frame: a subgraph frame's
        ``state`` is the subgraph's values (a copy), as the ``state`` command shows them."""
        if "state" not in names:
            return names
        root_state = names["state"]

        def state() -> Any:
            chosen = self.selected(self.chain())
            if chosen is None:
                return root_state()
            from sgdebug.debugger.evaluation import safe_deepcopy

            return safe_deepcopy(chosen.snapshot.values)

        return {**names, "state": state}

    def up(self) -> Outcome:
        """Show the frame of the graph that runs the current one."""
        return self._move("up", 1)

    def down(self, instance: int | None = None) -> Outcome:
        """Show the frame of the subgraph the current one is running; ``instance`` (from 1):
        which of the subgraphs running beside each other there (Sends to one node)."""
        if instance is None:
            return self._move("down", -1)
        with self.core.lock:
            chain = self.chain()
            self._reset_if_moved()
            level = len(chain) - min(self._up, len(chain))  # (the level shown: 0 = root)
            count = chain[level].instance[1] if level < len(chain) else 0
            if not 1 <= instance <= count:
                return Outcome("down", False, self.core.status, f"down {instance}: "
                               + _instances(count))  # fmt: skip
            picks = (*self._picks[:level], *[0] * (level - len(self._picks)), instance - 1)
            with self._lock:
                self._picks = picks
                chain = self.chain()  # (below the chosen one, its own subgraphs)
                self._up = len(chain) - (level + 1)
            chosen = chain[level]
            return Outcome("down", True, self.core.status, f"Frame: {chosen.label}", value=chosen)

    def _move(self, verb: str, delta: int) -> Outcome:
        with self.core.lock:
            chain = self.chain()
            status = self.core.status
            if not chain:
                return Outcome(verb, False, status, f"{verb}: the run is not inside a subgraph")
            self._reset_if_moved()
            wanted = self._up + delta
            if wanted > len(chain):
                return Outcome(verb, False, status, f"{verb}: already at the parent graph's frame")
            if wanted < 0:
                inner = breadcrumb(chain[-1].path)
                return Outcome(
                    verb, False, status, f"{verb}: already at the innermost frame ({inner})"
                )
            with self._lock:
                self._up = wanted
            chosen = self.selected(chain)
            where = chosen.label if chosen is not None else breadcrumb(())
            return Outcome(verb, True, status, f"Frame: {where}", value=chosen)

    def _reset_if_moved(self) -> None:
        engine = self.core.engine
        stop = self.core.stop
        here = (engine.checkpoint_id, engine.step, stop)
        with self._lock:
            ran = stop is not self._at[2] and (stop is None or stop.kind != "edit")
            if here[:2] != self._at[:2] or ran:
                self._at, self._up, self._picks = here, 0, ()


def _instances(count: int) -> str:
    if count > 1:
        return f"{count} subgraphs run there: `down 1` to `down {count}`"
    return "one subgraph runs there: `down`" if count else "no subgraph runs below this frame"
