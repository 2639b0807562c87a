"""What the session hands to front ends: frozen data only (outcomes, stops, tasks, views).

Values inside (state values, task inputs, ``CommitRecord`` s) are the runtime's objects,
passed through untouched so ``sgdebug.inspect`` can turn them into rows and previews.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sgdebug.debugger.breakpoints import Breakpoint
from sgdebug.runtime import CommitRecord, Interrupt, StateSnapshot

__all__ = [
    "Capabilities",
    "EngineName",
    "EdgeInfo",
    "ErrorInfo",
    "GraphSummary",
    "HistoryEntry",
    "Hit",
    "Mutation",
    "NodeMark",
    "Outcome",
    "SessionStatus",
    "SessionView",
    "Stop",
    "StopKind",
    "TaskInfo",
]

SessionStatus = Literal[
    "idle", "running", "paused", "error", "interrupted", "done", "aborted", "failed", "closed"
]
"""Where the session stands.

* ``idle``: no run yet (``restart`` starts one);
* ``running``: a verb is moving the run (another thread may call ``request_pause``);
* ``paused``: between supersteps (or between tasks of one), ready to move;
* ``error``: a node raised, or the step failed outside its nodes (a channel rejected its
  writes at commit, the state schema rejected a task's input); nothing was committed;
  ``retry``, edit state, or ``abort``;
* ``interrupted``: ``interrupt()`` in a node waits for ``resume EXPR``;
* ``done``: the run finished (nothing left to run);
* ``aborted``: the user gave up the run (``abort``);
* ``failed``: the run stopped on an error it cannot retry (the recursion limit), or on
  an exception while on-exception breaking is disabled; moving again restarts from the
  last snapshot;
* ``closed``: ``quit`` was called.
"""

StopKind = Literal[
    "start",
    "step",
    "task",
    "until",
    "breakpoint",
    "exception",
    "interrupt",
    "pause",
    "done",
    "edit",
    "goto",
    "aborted",
    "failed",
]
"""Why the run stopped where it is."""


EngineName = Literal["native", "langgraph", "remote"]
"""The engines a session can run a graph on (``--engine``; ``remote``: a graph on a
LangGraph server, chosen by attaching to it)."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What an engine can do; each missing feature carries the reason, for the user."""

    engine: EngineName
    """The engine's name, as ``--engine`` takes it."""
    description: str
    """One line for ``info`` and the status line (``LangGraph 1.2.22``, ...)."""
    missing: tuple[tuple[str, str], ...] = ()
    """``(feature, reason)`` for each feature it lacks: ``task`` (run one task of a
    superstep), ``mutations`` (in-place mutation reports), ``plan`` (pauses between plan,
    tasks and commit)."""

    def why_not(self, feature: str) -> str | None:
        """Why ``feature`` is unavailable on this engine (``None`` when it is available)."""
        for name, reason in self.missing:
            if name == feature:
                return reason
        return None


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An exception raised by a node (or by the run around it)."""

    node: str | None
    """The node that raised, ``None`` for an error outside any node."""
    task_id: str | None
    """The failing task's id."""
    error_type: str
    """The exception's class name."""
    message: str
    """``str(exception)``."""
    traceback: str
    """The user's traceback, without the runtime's own frames, with PEP 678 notes."""
    step: int
    """The superstep that failed (nothing of it was committed)."""
    state: Any
    """The state the failed step started from."""
    exception: BaseException | None = field(default=None, compare=False)
    """The exception object itself (``None`` after a session was reopened)."""
    phase: Literal["task", "plan", "commit"] = "task"
    """Where the step failed: in a node (``task``), building a task's input (``plan``: the
    state schema rejected a value; ``node`` is that task's), or applying the step's writes
    (``commit``: a reducer raised, two writes to a plain key; ``node`` is ``None``)."""
    channel: str | None = None
    """For ``commit``: the channel whose writes were rejected; for ``plan``: the key the
    schema rejected (``None`` when not known)."""
    channel_type: str = ""
    """The channel's kind (``LastValue``, ``BinaryOperatorAggregate``, ...), for ``commit``."""
    reducer: str | None = None
    """The channel's reducer (``operator.add``), for a reducer channel at ``commit``."""
    writers: tuple[str, ...] = ()
    """For ``commit``: the nodes whose writes reached ``channel``, in the order applied."""


@dataclass(frozen=True, slots=True)
class Hit:
    """A breakpoint that fired."""

    breakpoint: Breakpoint
    """The breakpoint, with its hit count after this hit."""
    nodes: tuple[str, ...] = ()
    """The tasks of the step that matched (before/after breakpoints)."""
    old: Any = None
    """For a watch: the channel's value before the commit (``MISSING`` when empty)."""
    new: Any = None
    """For a watch: the channel's value after the commit."""
    condition_error: str | None = None
    """The condition raised: the breakpoint fired so the user can see why."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Why the run stopped, and what the user should look at."""

    kind: StopKind
    step: int
    """The superstep the run is about to run (or that failed)."""
    hits: tuple[Hit, ...] = ()
    """Breakpoints that fired (several may fire at once)."""
    error: ErrorInfo | None = None
    """For ``exception`` and ``failed``."""
    interrupts: tuple[Interrupt, ...] = ()
    """For ``interrupt``: what the nodes asked."""
    node: str | None = None
    """For ``until`` and ``task``: the node."""


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """One task of the pending superstep."""

    id: str
    name: str
    path: tuple[Any, ...]
    input: Any
    """What the node receives (its state view, or a Send's argument)."""
    triggers: tuple[str, ...]
    send: bool
    """Created by a ``Send``."""
    done: bool
    """Ran successfully in this step (its writes wait for the commit)."""
    writes: tuple[tuple[str, Any], ...] = ()
    """Its writes once run (state writes, then routing)."""
    error: BaseException | str | None = None
    interrupts: tuple[Interrupt, ...] = ()
    duration: float | None = None
    """Seconds the task ran (once it ran; ``None`` when unknown)."""
    subgraph: StateSnapshot | None = None
    """For a task that runs a subgraph which has started (langgraph engine): the subgraph's
    own snapshot (its values, next nodes, tasks and interrupts), as ``get_state(config,
    subgraphs=True)`` gives it; ``None`` otherwise."""
    namespace: tuple[str, ...] = ()
    """The checkpoint namespace of the graph the task runs in: ``()`` for the root graph,
    ``("research:<task id>",)`` for a task inside the subgraph the parent's ``research`` task
    runs (one part per level)."""

    @property
    def frame(self) -> tuple[str, ...]:
        """The nodes whose subgraphs the task runs in (``("research",)``; ``()``: the root)."""
        return tuple(part.split(":", 1)[0] for part in self.namespace)

    @property
    def state(self) -> Literal["pending", "done", "error", "interrupted"]:
        """``pending``, ``done``, ``error`` or ``interrupted``."""
        if self.error is not None:
            return "error"
        if self.interrupts:
            return "interrupted"
        return "done" if self.done else "pending"


@dataclass(frozen=True, slots=True)
class Mutation:
    """A value a node changed in place during a step."""

    step: int
    channel: str
    nodes: tuple[str, ...]
    """The nodes of that step that were given the value (one of them mutated it)."""
    written: bool = False
    """Whether the channel was also written that step (its reducer then added the write to
    the changed value: the item appears twice)."""


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One snapshot of the session's thread."""

    index: int
    """Its number in creation order (what ``goto``/``diff``/``show`` take); 0 is the input."""
    checkpoint_id: str
    parent_index: int | None
    """The snapshot it follows (its parent in the history tree)."""
    step: int
    source: str
    """``input``, ``loop`` (a superstep), ``update`` (an edit) or ``fork``."""
    created_at: str
    ran: tuple[str, ...]
    """The tasks whose writes made it (for ``loop`` snapshots)."""
    current: bool
    """The session is positioned here."""
    head: bool
    """No snapshot follows it: the end of a branch."""
    changes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """What made it changed: (state key, the nodes that wrote it) for a ``loop`` snapshot,
    (state key, ``("(update)",)``) for an ``update``; empty for ``input`` and ``fork``.
    Read from the stored writes and versions, without loading any value."""
    subgraph_steps: tuple[str, ...] = ()
    """The checkpoints subgraphs stored while this snapshot's pending step ran them, one
    line each (``research step 1 loop ran gather → summarize``), oldest first; the history
    tree shows them under it."""


@dataclass(frozen=True, slots=True)
class NodeMark:
    """A node of the graph with what the session knows about it."""

    name: str
    before: bool
    """An enabled ``before`` breakpoint applies to it."""
    after: bool
    """An enabled ``after`` breakpoint applies to it."""
    pending: bool
    """It has a task in the pending superstep."""


@dataclass(frozen=True, slots=True)
class EdgeInfo:
    """An edge of the drawing (``conditional`` for a branch's possible targets)."""

    source: str
    target: str
    conditional: bool


@dataclass(frozen=True, slots=True)
class GraphSummary:
    """The graph's nodes (with breakpoint and pending marks) and edges."""

    nodes: tuple[NodeMark, ...]
    edges: tuple[EdgeInfo, ...]
    mermaid: str
    """The Mermaid source of the drawing."""


@dataclass(frozen=True, slots=True)
class SessionView:
    """Everything a front end draws, taken at one moment."""

    label: str
    status: SessionStatus
    stop: Stop | None
    thread_id: str | None
    checkpoint_id: str | None
    """The snapshot the session is positioned at."""
    snapshot_index: int | None
    step: int
    """The superstep the pending tasks belong to."""
    values: Any
    """The current state (channel values; what ``state`` shows)."""
    tasks: tuple[TaskInfo, ...]
    """The pending superstep's tasks."""
    interrupts: tuple[Interrupt, ...]
    breakpoints: tuple[Breakpoint, ...]
    last_commit: CommitRecord | None
    """The last superstep's commit (per-channel old/writes/new) in this run."""
    error: ErrorInfo | None
    mutations: tuple[Mutation, ...]
    """In-place mutations found so far in this session's runs."""
    input: Any
    engine: Capabilities | None = None
    """The engine running the graph and what it can do."""
    notes: tuple[str, ...] = ()
    """What the session says once on open (a reopened session whose graph changed since it
    was saved: which keys differ)."""
    fault: str | None = None
    """Why the engine's server did not answer its last call (remote engine; ``None`` when it
    answers): the values shown are the last ones read."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one verb did."""

    command: str
    """The verb's name (``step``, ``print``, ...)."""
    ok: bool
    """``False`` when the verb was refused or failed and nothing changed."""
    status: SessionStatus
    """The session's status afterwards."""
    message: str = ""
    """A one-paragraph summary, or the reason it was refused."""
    stop: Stop | None = None
    """Set by verbs that move the run or the cursor."""
    value: Any = None
    """The data a query returns (a value, a snapshot, history entries, a diff, ...)."""
    commits: tuple[CommitRecord, ...] = ()
    """The supersteps committed by this verb, in order."""
    notes: tuple[str, ...] = ()
    """Extra lines worth showing (in-place mutations found, condition errors, ...)."""
    whole: bool = False
    """The user asked for all of the value (``print --all``, ``state --all``): front ends
    print it whole, not the bounded outline they print of a large value."""
    ran: tuple[str, ...] = ()
    """What ran during the verb that its message does not tell (each task that finished
    inside a subgraph: ``in subgraph research: gather wrote notes``), in the order it ran:
    front ends print these lines before the message, so the log reads in order."""
