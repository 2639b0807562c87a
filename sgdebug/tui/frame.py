"""One frame of the TUI: everything the panes draw, built off the UI thread.

A :class:`FrameBuilder` reads the session once a command has finished (in the engine
worker, never while a verb runs) and turns it into ``sgdebug.inspect`` rows: channel rows,
task rows, the reducer diff of the last superstep, the history tree and each node's status.
The widgets only render a :class:`Frame`; they never call the session.

Cost per step stays flat as the history grows: the history tree is laid out from the
session's history entries (no snapshot values are loaded), and who last wrote each channel
is folded from the commits the builder sees, and after a jump (``goto``, a reopened session,
the REPL) from the ``changes`` of the entries on the branch (no snapshot is loaded either).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, cast

from sgdebug.debugger import Edited, Event, HistoryEntry, Started, Stepped, TaskRan
from sgdebug.debugger.history import last_changes
from sgdebug.inspect import (
    ChannelRow,
    HistoryTree,
    LastChange,
    StepDiff,
    TaskRow,
    fold_changes,
    fold_edit,
    history_tree,
    reducer_diff,
    task_rows,
)
from sgdebug.runtime import StateSnapshot

if TYPE_CHECKING:
    from sgdebug.debugger import Breakpoint, Session, SessionView
    from sgdebug.runtime import Task

__all__ = [
    "END_NODE",
    "START_NODE",
    "Frame",
    "FrameBuilder",
    "NodeState",
    "NodeStatus",
    "node_states",
    "with_running",
]

START_NODE = "__start__"
END_NODE = "__end__"
ANY_NODE = "*"
_JUMPS = frozenset({"goto", "attach"})
"""Commands after which the last writers are read again from the snapshots."""

NodeStatus = Literal["idle", "pending", "running", "done", "ran", "error", "finished"]
"""How a node of the graph stands.

* ``pending``: it has a task in the next superstep;
* ``running``: its task is running now (only while a verb runs);
* ``done``: its task ran in this superstep, its writes wait for the commit;
* ``ran``: it ran in the last committed superstep;
* ``error``: its task raised;
* ``finished``: the run reached END (only ``__end__`` has it).
"""


@dataclass(frozen=True, slots=True)
class NodeState:
    """What the graph pane marks on one node."""

    name: str
    status: NodeStatus
    """Its status (see :data:`NodeStatus`)."""
    before: bool = False
    """An enabled breakpoint stops before it."""
    after: bool = False
    """An enabled breakpoint stops after it."""


@dataclass(frozen=True, slots=True)
class Frame:
    """Everything the panes show, taken at one moment."""

    view: SessionView
    """The session's view (status, stop, values, tasks, breakpoints)."""
    channels: tuple[ChannelRow, ...]
    """The channel table."""
    tasks: tuple[TaskRow, ...]
    """The pending superstep's tasks."""
    step_diff: StepDiff | None
    """The reducer diff of the last committed superstep of this run."""
    history: HistoryTree | None
    """The snapshot tree's layout (its nodes hold no values: ask the session for those)."""
    entries: tuple[HistoryEntry, ...]
    """The session's snapshots, by number (what ``goto`` takes), oldest first."""
    nodes: tuple[NodeState, ...]
    """Every node's status and breakpoint marks."""
    durations: Mapping[str, float] = field(default_factory=dict)
    """Seconds each node's last task ran, when the engine timed it (LangGraph's debug
    events do)."""

    def node(self, name: str) -> NodeState:
        """The state of node ``name`` (idle when unknown)."""
        for state in self.nodes:
            if state.name == name:
                return state
        return NodeState(name, "idle")


class FrameBuilder:
    """Builds frames for one session; follows its events to keep the last writers current."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.changes: tuple[LastChange, ...] = ()
        """The last change of each channel, along the current branch."""
        self.durations: dict[str, float] = {}
        """Seconds each node's last task ran (from the engine's task reports)."""
        self._stale = True
        self._unsubscribe = session.subscribe(self._follow)

    def close(self) -> None:
        """Stop following the session."""
        self._unsubscribe()

    def forget(self) -> None:
        """Read the last writers from the snapshots at the next frame (after a jump)."""
        self._stale = True

    def build(self, commands: Sequence[str] = ()) -> Frame:
        """The frame for the session as it stands (call it when no verb is running)."""
        if _JUMPS & set(commands):
            self._stale = True
        session = self.session
        view = session.view()
        graph = session.model
        history = session.history() if session.started else None
        entries: tuple[HistoryEntry, ...] = history.value if history and history.ok else ()
        if self._stale:
            self.changes = last_changes(entries)
            self._stale = False
        before, after = breakpoint_nodes(view.breakpoints)
        tasks = task_rows(
            cast("Sequence[Task]", view.tasks),
            before=before,
            after=after,
            last_commit=view.last_commit,
        )
        record = view.last_commit
        return Frame(
            view=view,
            channels=self._channel_rows(),
            tasks=tasks,
            step_diff=reducer_diff(graph, record) if record is not None else None,
            history=_layout(entries, view.checkpoint_id) if entries else None,
            entries=entries,
            nodes=node_states(session.node_names, view),
            durations=dict(self.durations),
        )

    def _follow(self, event: Event) -> None:
        """Runs in the thread of the verb: fold what changed into the last writers."""
        if isinstance(event, Started):
            self.changes = ()
            self._stale = False
        elif isinstance(event, Stepped):
            self.changes = fold_changes([event.record], self.changes)
        elif isinstance(event, TaskRan) and event.task.duration is not None:
            self.durations[event.task.name] = event.task.duration
        elif isinstance(event, Edited):
            self.changes = fold_edit(event.keys, self.session.view().step - 1, self.changes)

    def _channel_rows(self) -> tuple[ChannelRow, ...]:
        session = self.session
        if not session.started:
            return ()
        rows = session.engine.channel_rows(self.changes)
        return _with_in_place(rows, session.view()) if session.engine.live else rows


def _with_in_place(rows: tuple[ChannelRow, ...], view: SessionView) -> tuple[ChannelRow, ...]:
    """Mark the rows whose latest change was a node changing the value in place."""
    latest = {m.channel: m for m in view.mutations if m.step <= view.step}
    out = []
    for row in rows:
        found = latest.get(row.name)
        if found is not None and (row.last_step is None or found.step >= row.last_step):
            row = replace(row, in_place=(found.step, found.nodes))
        out.append(row)
    return tuple(out)


def _layout(entries: Sequence[HistoryEntry], cursor: str | None) -> HistoryTree:
    """The tree of ``entries``, laid out by ``inspect`` from value-less stand-in snapshots."""
    by_index = {e.index: e for e in entries}
    stand_ins = []
    for entry in entries:
        parent = by_index.get(entry.parent_index) if entry.parent_index is not None else None
        stand_ins.append(
            StateSnapshot(
                values=None,
                next=(),
                config={"configurable": {"checkpoint_id": entry.checkpoint_id}},
                metadata={"step": entry.step, "source": entry.source},
                created_at=entry.created_at,
                parent_config=(
                    {"configurable": {"checkpoint_id": parent.checkpoint_id}} if parent else None
                ),
                tasks=(),
                interrupts=(),
            )
        )
    return history_tree(stand_ins, cursor=cursor)


def breakpoint_nodes(
    breakpoints: Sequence[Breakpoint],
) -> tuple[frozenset[str], frozenset[str]]:
    """Nodes with an enabled ``before`` and ``after`` breakpoint (``*``: every node)."""
    before = {b.target for b in breakpoints if b.enabled and b.kind == "before"}
    after = {b.target for b in breakpoints if b.enabled and b.kind == "after"}
    return frozenset(before), frozenset(after)


def node_states(names: Sequence[str], view: SessionView) -> tuple[NodeState, ...]:
    """Each node's status and marks, START and END included."""
    before, after = breakpoint_nodes(view.breakpoints)
    status: dict[str, NodeStatus] = {}
    if view.last_commit is not None:
        for name in view.last_commit.tasks:
            status[name] = "ran"
    for task in view.tasks:
        status[task.name] = "done" if task.state == "done" else "pending"
    if view.error is not None and view.error.node is not None:
        status[view.error.node] = "error"
    if view.status == "done":
        status[END_NODE] = "finished"
    states = []
    for name in (START_NODE, *names, END_NODE):
        real = name not in (START_NODE, END_NODE)
        states.append(
            NodeState(
                name,
                status.get(name, "idle"),
                before=real and bool({name, ANY_NODE} & before),
                after=real and bool({name, ANY_NODE} & after),
            )
        )
    return tuple(states)


def with_running(frame: Frame, names: Sequence[str]) -> Frame:
    """``frame`` with ``names`` marked as running (while a verb runs)."""
    running = set(names)
    nodes = tuple(replace(n, status="running") if n.name in running else n for n in frame.nodes)
    return replace(frame, nodes=nodes)
