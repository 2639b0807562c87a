"""One frame: the immutable view of the session at the position the user is at.

:class:`FrameBuilder` reads the session once a command has finished (never while a verb
runs) and turns it into ``sgdebug.inspect`` rows: the channel table, the pending tasks, the
reducer diff of the step that made this snapshot, the history tree, each node's status, the
in-place mutations seen up to here and which commands can run now. Both front ends render a
:class:`Frame`; neither reads the session to draw.

Every part follows the position: after ``goto`` (or a reopened session, or the REPL moving
the session) the tasks, the graph's marks, the diff and the channel table all describe the
snapshot the session stands at. Cost per frame grows with the number of history entries
(which carry no values), never with the values: who last wrote each channel is folded from
the commits the builder sees, and after any move it did not see, from the ``changes`` of the
entries on the branch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final, Literal, cast

from sgdebug.debugger.events import (
    Edited,
    Event,
    HistoryChanged,
    Started,
    Stepped,
    TaskRan,
)
from sgdebug.debugger.history import entry_tree, last_changes
from sgdebug.debugger.results import HistoryEntry, Mutation, SessionView
from sgdebug.debugger.step_times import StepTiming
from sgdebug.debugger.subframes import SubgraphFrame, breadcrumb, frame_rows, subgraph_lines
from sgdebug.debugger.subgraphs import inner_statuses, is_path
from sgdebug.inspect import (
    ChannelRow,
    HistoryTree,
    LastChange,
    TaskRow,
    fold_changes,
    fold_edit,
    task_rows,
)

if TYPE_CHECKING:
    from sgdebug.debugger.breakpoints import Breakpoint
    from sgdebug.debugger.session import Session
    from sgdebug.inspect import StepDiff
    from sgdebug.runtime import CommitRecord, Task

__all__ = [
    "END_NODE",
    "START_NODE",
    "Frame",
    "FrameBuilder",
    "NodeState",
    "NodeStatus",
    "StepTiming",
    "breakpoint_nodes",
    "build_frame",
    "current_frame",
    "node_states",
    "with_running",
]

START_NODE: Final = "__start__"
END_NODE: Final = "__end__"
ANY_NODE: Final = "*"

NodeStatus = Literal["idle", "pending", "running", "done", "ran", "error", "finished"]
"""How a node of the graph stands.

* ``pending``: it has a task in the next superstep;
* ``running``: its task is running now (only while a verb runs);
* ``done``: its task ran in this superstep, its writes wait for the commit;
* ``ran``: its writes made the snapshot the session stands at;
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
    """Everything the front ends show, taken at one position of the session."""

    view: SessionView
    """The session's view (status, stop, values, tasks, breakpoints)."""
    channels: tuple[ChannelRow, ...]
    """The channel table at this snapshot."""
    tasks: tuple[TaskRow, ...]
    """The pending superstep's tasks."""
    step_diff: StepDiff | None
    """The reducer diff of the superstep that made this snapshot, when this session ran it
    (``None`` before any step, and at a snapshot reached by ``goto`` or reopening)."""
    history: HistoryTree | None
    """The snapshot tree's layout (its nodes hold no values: ask the session for those)."""
    entries: tuple[HistoryEntry, ...]
    """The session's snapshots, by number (what ``goto`` takes), oldest first."""
    nodes: tuple[NodeState, ...]
    """Every node's status and breakpoint marks."""
    mutations: tuple[Mutation, ...] = ()
    """In-place changes found up to this position (their step is at most this one's)."""
    unavailable: Mapping[str, str] = field(default_factory=dict)
    """Command name -> why it cannot run now (commands that can run are absent)."""
    durations: Mapping[str, float] = field(default_factory=dict)
    """Seconds each node's last task ran, when the engine timed it."""
    totals: Mapping[str, tuple[float, int]] = field(default_factory=dict)
    """Node -> (seconds all its timed tasks ran in this session, how many tasks)."""
    step_times: Mapping[str, StepTiming] = field(default_factory=dict)
    """Checkpoint id -> the timing of the superstep that made it (steps run this session)."""
    diff_note: str = ""
    """Why there is no ``step_diff`` here, and what shows one instead."""
    breadcrumb: str = ""
    """Where the shown frame is when the run stands inside a subgraph (``parent``, then the
    subgraph nodes, joined by ``subframes.BREADCRUMB_SEP``);
    empty when it does not."""
    subgraph: SubgraphFrame | None = None
    """The subgraph frame the channels and tasks show (``None``: the root graph's)."""

    def node(self, name: str) -> NodeState:
        """The state of node ``name`` (idle when unknown)."""
        for state in self.nodes:
            if state.name == name:
                return state
        return NodeState(name, "idle")

    @property
    def current(self) -> HistoryEntry | None:
        """The history entry the session stands at (``None`` off the history)."""
        index = self.view.snapshot_index
        if index is None or not 0 <= index < len(self.entries):
            return None
        return self.entries[index]


_ANYWHERE: Final = "\0anywhere"
"""The builder's position after a restart: whatever the session is at is the run's start."""


class FrameBuilder:
    """Builds frames for one session; follows its events to keep the last writers current."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.changes: tuple[LastChange, ...] = ()
        """The last change of each channel, along the current branch."""
        self.durations: dict[str, float] = {}
        """Seconds each node's last task ran (from the engine's task reports)."""
        self.totals: dict[str, tuple[float, int]] = {}
        """Node -> (seconds its tasks ran in all, how many were timed)."""
        for timing in session.step_times.times.values():  # kept by a reopened session
            for node, seconds in timing.tasks:
                self._time(node, seconds)
        self._at: str | None = None
        """The checkpoint ``changes`` lead to; any other position reads them again."""
        self._stale = True
        self._unsubscribe = session.subscribe(self._follow)

    def close(self) -> None:
        """Stop following the session."""
        self._unsubscribe()

    def forget(self) -> None:
        """Read the last writers from the history at the next frame."""
        self._stale = True

    def build(self) -> Frame:
        """The frame for the session as it stands: when no verb is running, or from the
        verb's own thread at a plan (a live frame while ``continue`` runs)."""
        session = self.session
        view = session.view()
        entries = _entries(session)
        if self._stale or self._at not in (_ANYWHERE, view.checkpoint_id):
            self.changes = last_changes(entries)
        self._stale, self._at = False, view.checkpoint_id
        frame = build_frame(session, view, entries, self.changes, dict(self.durations))
        times = dict(self.session.step_times.times)
        return replace(frame, totals=dict(self.totals), step_times=times)

    def _time(self, node: str, seconds: float) -> None:
        self.durations[node] = seconds
        total, count = self.totals.get(node, (0.0, 0))
        self.totals[node] = (total + seconds, count + 1)

    def _follow(self, event: Event) -> None:
        """Runs in the thread of the verb: fold what changed into the last writers."""
        if isinstance(event, Started):
            self.changes, self._at = (), _ANYWHERE
        elif isinstance(event, Stepped):
            self.changes = fold_changes([event.record], self.changes)
            self._at = event.checkpoint_id
        elif isinstance(event, TaskRan) and event.task.duration is not None:
            self._time(event.task.name, event.task.duration)
        elif isinstance(event, Edited):
            step = self.session.engine.step - 1
            self.changes = fold_edit(event.keys, step, self.changes)
            self._at = event.checkpoint_id
        elif isinstance(event, HistoryChanged) and event.checkpoint_id != self._at:
            self._stale = self._at != _ANYWHERE  # moved without a step or an edit: a jump


def current_frame(session: Session) -> Frame:
    """The frame of ``session`` where it stands, read afresh (a front end that does not keep
    a :class:`FrameBuilder`: the REPL)."""
    view = session.view()
    entries = _entries(session)
    return build_frame(session, view, entries, last_changes(entries), {})


def _entries(session: Session) -> tuple[HistoryEntry, ...]:
    """The history entries (read, not a verb: a frame is also built while a verb moves)."""
    return session.engine.history() if session.started else ()


def build_frame(
    session: Session,
    view: SessionView,
    entries: tuple[HistoryEntry, ...],
    changes: Sequence[LastChange],
    durations: Mapping[str, float],
) -> Frame:
    """The frame of ``session`` at ``view``'s position (``changes``: who last wrote what)."""
    from sgdebug.debugger.commands import COMMANDS

    before, after = breakpoint_nodes(view.breakpoints)
    record = view.last_commit
    tasks = task_rows(
        cast("Sequence[Task]", view.tasks), before=before, after=after, last_commit=record
    )
    mutations = tuple(m for m in view.mutations if m.step <= view.step)
    current = next((e for e in entries if e.current), None)
    if record is None and current is not None:  # gone back to it, or a reopened session's
        record = _stored_commit(session, current, entries)
    unavailable = {c.name: r for c in COMMANDS if (r := session.why_not(c.name)) is not None}
    shown = Frame(
        view=view,
        channels=_channel_rows(session, view, changes, mutations),
        tasks=tasks,
        step_diff=_step_diff(session, record),
        history=entry_tree(entries, view.checkpoint_id) if entries else None,
        entries=entries,
        nodes=(
            *node_states(session.node_names, view, current),
            *_inner_states(view, before, after),
        ),
        mutations=mutations,
        unavailable=unavailable,
        durations=durations,
        diff_note="" if record is not None else _diff_note(current),
    )
    return _in_subgraph(shown, session)


def _in_subgraph(frame: Frame, session: Session) -> Frame:
    """``frame`` showing the subgraph frame the session chose, when the run is inside one;
    its history entries with the checkpoints their steps' subgraphs stored."""
    if lines := subgraph_lines(session.engine) if session.core.topology_has_subgraphs else {}:
        entries = tuple(
            replace(e, subgraph_steps=lines.get(e.checkpoint_id, ())) for e in frame.entries
        )
        frame = replace(frame, entries=entries)
    chain = session.frames.chain()
    if not chain:
        return frame
    chosen = session.frames.selected(chain)
    if chosen is None:
        return replace(frame, breadcrumb=breadcrumb(()))
    channels, tasks = frame_rows(chosen)
    step = frame.view.step
    note = (
        f"The subgraph's steps run inside the parent's step {step}, as one task: "
        "`up` shows the parent's frame and its last diff."
    ) + (f"\n{chosen.note}" if chosen.note else "")
    return replace(
        frame, channels=channels, tasks=tasks, step_diff=None, diff_note=note,
        breadcrumb=chosen.label, subgraph=chosen,
    )  # fmt: skip


def _step_diff(session: Session, record: CommitRecord | None) -> StepDiff | None:
    """The reducer diff of ``record``'s superstep (the diff module is imported with the
    first one: the first screen has none)."""
    if record is None:
        return None
    from sgdebug.inspect import reducer_diff

    return reducer_diff(session.model, record)


def _stored_commit(
    session: Session, current: HistoryEntry, entries: Sequence[HistoryEntry]
) -> CommitRecord | None:
    """The commit that made the ``current`` snapshot, read back from it and its parent (a
    step's: an edit, a fork or the input has none)."""
    if current.source != "loop" or current.parent_index is None:
        return None
    engine = session.engine
    parent = entries[current.parent_index] if current.parent_index < len(entries) else None
    child = engine.snapshot(current.checkpoint_id)
    older = engine.snapshot(parent.checkpoint_id) if parent is not None else None
    if child is None or older is None:
        return None
    from sgdebug.inspect import stored_commit

    return stored_commit(older, child)


def _diff_note(current: HistoryEntry | None) -> str:
    if current is None or current.source == "input":
        return "No superstep committed yet in this run: press s to step."
    made = f"step {current.step}" if current.source == "loop" else f"an {current.source}"
    if current.source == "fork":
        made = "a fork (LangGraph's copy of an older snapshot, to branch from)"
    return (
        f"Snapshot #{current.index} was made by {made}, not by a step this session just ran: "
        "D diffs it with its parent (in the log)."
    )


def _channel_rows(
    session: Session,
    view: SessionView,
    changes: Sequence[LastChange],
    mutations: Sequence[Mutation],
) -> tuple[ChannelRow, ...]:
    if not session.started:
        return ()
    rows = session.engine.channel_rows(changes)
    return with_in_place(rows, mutations)


def with_in_place(
    rows: Sequence[ChannelRow], mutations: Sequence[Mutation]
) -> tuple[ChannelRow, ...]:
    """Mark the rows whose latest change was a node changing the value in place."""
    latest = {m.channel: m for m in mutations}
    out = []
    for row in rows:
        found = latest.get(row.name)
        if found is not None and (row.last_step is None or found.step >= row.last_step):
            row = replace(row, in_place=(found.step, found.nodes))
        out.append(row)
    return tuple(out)


def _inner_states(
    view: SessionView, before: frozenset[str], after: frozenset[str]
) -> tuple[NodeState, ...]:
    """The marks of a subgraph's nodes (by path): waiting there, or a breakpoint on one."""
    status = dict(inner_statuses(view.tasks))
    marked = sorted(p for p in before | after if is_path(p) and p not in status)
    return tuple(
        NodeState(path, status.get(path, "idle"), before=path in before, after=path in after)
        for path in (*status, *marked)
    )


def breakpoint_nodes(
    breakpoints: Sequence[Breakpoint],
) -> tuple[frozenset[str], frozenset[str]]:
    """Nodes with an enabled ``before`` and ``after`` breakpoint (``*``: every node)."""
    before = {b.target for b in breakpoints if b.enabled and b.kind == "before"}
    after = {b.target for b in breakpoints if b.enabled and b.kind == "after"}
    return frozenset(before), frozenset(after)


def node_states(
    names: Sequence[str], view: SessionView, current: HistoryEntry | None = None
) -> tuple[NodeState, ...]:
    """Each node's status and marks, START and END included; ``ran`` marks the nodes whose
    writes made the snapshot the session is at (``current``, or the run's last commit)."""
    before, after = breakpoint_nodes(view.breakpoints)
    status: dict[str, NodeStatus] = {}
    if view.last_commit is not None:
        ran: Sequence[str] = view.last_commit.tasks
    else:
        ran = current.ran if current is not None and current.source == "loop" else ()
    for name in ran:
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
