"""The remote engine: a graph served by a LangGraph server, behind the engine protocol.

The server runs the graph (``langgraph dev`` locally, the Agent Server in production); the
engine drives it through ``langgraph-sdk`` only. A run executes the pending superstep and
stops where the session could stop next (run-time ``interrupt_before``/``interrupt_after``,
see :mod:`~sgdebug.debugger.engines._remote_run`): before every step for ``step``, before
and after the nodes with breakpoints for ``continue``, so the session always sees the
pending tasks where it pauses; the run's ``debug`` stream tells each task that finished
(with its writes, inside subgraphs too) and each step that committed. The thread's state
and history are the server's (``/threads/{id}/state`` and ``/history``), edits are
``update_state`` (``as_node`` for ``update ... as NODE``), answers are
``Command(resume=...)`` runs, and a run from an older checkpoint forks the thread, as on a
local graph.

What a server cannot give is in :class:`Capabilities`: running one task of a superstep,
in-place mutation reports, and the graph's own Python objects (values arrive as JSON).

Network faults never escape: a moving call raises
:class:`~sgdebug.debugger.engines._remote_client.ServerFault` (an ``EngineRefused``: the
session refuses the command, changes nothing and can try again), and reads fall back on
what was read before (``Reads.fault`` says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.engine import Capabilities, EngineRefused, Observer, Settled
from sgdebug.debugger.engines import _lg_subgraphs as subgraphs
from sgdebug.debugger.engines import _remote_convert as convert
from sgdebug.debugger.engines._lg_model import (
    checkpoint_of,
    history_entries,
    pending_step,
    writers_of,
)
from sgdebug.debugger.engines._remote_client import Link, Server, ServerFault
from sgdebug.debugger.engines._remote_model import RemoteModel
from sgdebug.debugger.engines._remote_reads import Reads
from sgdebug.debugger.engines._remote_run import (
    EVERY_STEP,
    RunReader,
    Unobserved,
    as_list,
    pause_requested,
    run_stops,
)
from sgdebug.debugger.results import ErrorInfo, HistoryEntry, Mutation, TaskInfo
from sgdebug.debugger.runinfo import pregel_task_info
from sgdebug.debugger.subgraphs import LANGGRAPH_SUBGRAPH, SUBGRAPH
from sgdebug.inspect import ChannelRow, LastChange, snapshot_channel_rows
from sgdebug.runtime import Command, Interrupt, StateSnapshot

__all__ = ["RemoteEngine", "RemoteRunError", "connect"]

_TASK = "the server runs the tasks of a superstep together: `step` runs the whole superstep"
_MUTATIONS = "finding values a node changed in place needs sgdebug's runtime (--engine native)"
_OBJECTS = (
    "values come from the server as JSON (dicts, lists, strings, numbers), not as the "
    "graph's own Python classes: expressions see them as such"
)


def connect(server: Server) -> tuple[Link, dict[str, Any], RemoteModel]:
    """Reach ``server``: its assistant for the graph asked for, and the graph's model.
    ``ServerFault`` when it cannot be reached or has no such graph."""
    link = Link(server)
    assistants = link.call("listing the server's graphs", lambda c: c.assistants.search(limit=100))
    chosen = _choose(assistants or [], server.graph, server.url)
    aid = str(chosen["assistant_id"])
    flat = link.call("reading the graph", lambda c: c.assistants.get_graph(aid))
    xray = link.call("reading the graph", lambda c: c.assistants.get_graph(aid, xray=True))
    schemas = link.call("reading the graph's schema", lambda c: c.assistants.get_schemas(aid))
    state = (schemas or {}).get("state_schema") or (schemas or {}).get("input_schema")
    return link, chosen, RemoteModel(str(chosen.get("graph_id") or aid), flat, xray, state)


def _choose(assistants: Sequence[Mapping[str, Any]], graph: str | None, url: str) -> Any:
    """The assistant of ``graph`` (a graph id or an assistant id; the only graph for ``None``)."""
    graphs = sorted({str(a.get("graph_id")) for a in assistants})
    if graph is None:
        if len(graphs) == 1:
            return next(a for a in assistants if a.get("graph_id") == graphs[0])
        shown = ", ".join(graphs) or "none"
        raise ServerFault(f"the server at {url} serves several graphs: choose one with "
                          f"--graph NAME ({shown})")  # fmt: skip
    for key in ("assistant_id", "graph_id"):
        found = [a for a in assistants if str(a.get(key)) == graph]
        if found:  # a graph's own assistant (made by the server) before any other
            return next((a for a in found if a.get("metadata", {}).get("created_by") == "system"),
                        found[0])  # fmt: skip
    shown = ", ".join(graphs) or "none"
    raise ServerFault(f"the server at {url} has no graph or assistant {graph!r} (graphs: {shown})")


class RemoteEngine:
    """A thread of a graph on a LangGraph server, and the snapshot the session stands at."""

    def __init__(self, server: Server) -> None:
        self.link, assistant, self.model = connect(server)
        self.assistant_id = str(assistant["assistant_id"])
        version = str((assistant.get("metadata") or {}).get("langgraph_api_version") or "")
        self.capabilities = Capabilities(
            "remote",
            f"LangGraph server {server.url}, graph {self.model.name} (superstep by superstep)"
            + (f", langgraph-api {version}" if version else ""),
            (
                ("task", _TASK),
                ("mutations", _MUTATIONS),
                ("objects", _OBJECTS),
                (SUBGRAPH, LANGGRAPH_SUBGRAPH),
                ("finish", LANGGRAPH_SUBGRAPH),
            ),
        )
        self.graph: Any = server
        """What ``graph`` is in expressions: the server (its URL and graph)."""
        self.thread_id: str | None = None
        self.cursor: str | None = None
        self.mutations: list[Mutation] = []
        self.reads = Reads(self.link, self.model.name)
        self._live = False
        self._input: Any = None
        """What the next run sends: ``None`` (go on) or a resume ``Command``."""
        self._announced = False
        self._writers: dict[str, tuple[str, ...]] = {}

    @property
    def fault(self) -> str | None:
        """Why the last call to the server failed (``None``: the server answers)."""
        return self.link.fault

    # -- where the session stands ----------------------------------------------------------

    @property
    def live(self) -> bool:
        return self._live

    @property
    def checkpoint_id(self) -> str | None:
        return self.cursor

    @property
    def step(self) -> int:
        return pending_step(self.snapshot())

    def values(self) -> Any:
        snap = self._shown()
        return snap.values if snap is not None else {}

    def _shown(self) -> StateSnapshot | None:
        """The current snapshot; at the head, as the server shows the thread (the writes of
        tasks that finished beside an interrupted one applied)."""
        snap = self.snapshot()
        if snap is not None and snap.interrupts and self.is_latest():
            assert self.thread_id is not None
            return self.reads.state(self.thread_id, None) or snap
        return snap

    def tasks(self) -> tuple[TaskInfo, ...]:
        snap = self._shown()
        if snap is None:
            return ()
        latest = self.is_latest()
        infos = [
            pregel_task_info(t, snap.values, (f"branch:to:{t.name}",), latest=latest)
            for t in snap.tasks
        ]
        if latest and subgraphs.has_subgraph_tasks(snap):
            assert self.thread_id is not None and self.cursor is not None
            full = self.reads.subgraphs(self.thread_id, self.cursor)
            if full is not None:
                return subgraphs.with_subgraphs(infos, subgraphs.subgraph_states(full))
        return tuple(infos)

    def interrupts(self) -> tuple[Interrupt, ...]:
        snap = self._shown()
        if snap is None or not self.is_latest():
            return ()
        return tuple(snap.interrupts)

    def snapshot(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        checkpoint = checkpoint_id or self.cursor
        if self.thread_id is None or checkpoint is None:
            return None
        return self.reads.state(self.thread_id, checkpoint)

    def failure(self) -> ErrorInfo | None:
        return None

    def latest_id(self) -> str | None:
        if self.thread_id is None:
            return None
        snap = self.reads.state(self.thread_id, None)
        return checkpoint_of(snap.config) if snap is not None else self.cursor

    def is_latest(self) -> bool:
        return self.cursor is not None and self.cursor == self.latest_id()

    def find(self, thread_id: str, checkpoint_id: str | None = None) -> str | None:
        snap = self.reads.fetch(convert.thread_uuid(thread_id), checkpoint_id)
        return None if snap is None else checkpoint_of(snap.config)

    def threads(self) -> tuple[str, ...]:
        return self.reads.threads()

    def history(self) -> tuple[HistoryEntry, ...]:
        if self.thread_id is None:
            return ()
        return history_entries(self.reads.history(self.thread_id)[::-1], self.cursor)

    def snapshot_index(self) -> int | None:
        current = self.checkpoint_id
        if current is None:
            return None
        return next((e.index for e in self.history() if e.checkpoint_id == current), None)

    def channel_rows(self, changes: Sequence[LastChange]) -> tuple[ChannelRow, ...]:
        snap = self.snapshot()
        return () if snap is None else snapshot_channel_rows(self.model, snap, changes)

    def collect_mutations(self) -> list[Mutation]:
        return []

    # -- moving ----------------------------------------------------------------------------

    def start(self, thread_id: str, input: Any, checkpoint_id: str | None) -> None:
        thread_id = convert.thread_uuid(thread_id)
        if input is None:  # continue the thread from the snapshot
            if self.find(thread_id, checkpoint_id) is None:
                raise EngineRefused("Received no input for __start__")
            self._stand(thread_id, checkpoint_id, live=True)
            return
        self.link.call("creating a thread", lambda c: c.threads.create(
            thread_id=thread_id, if_exists="do_nothing",
            metadata={"graph_id": self.model.name}))  # fmt: skip
        # The input step runs on the server and the run stops before the first node.
        reader = RunReader(Unobserved(), None, None)
        self._run(thread_id, checkpoint_id, input, reader)
        if reader.error is not None:
            raise EngineRefused(reader.error)
        self._stand(thread_id, None, live=True)

    def open(self, thread_id: str, checkpoint_id: str) -> None:
        self._stand(convert.thread_uuid(thread_id), checkpoint_id, live=False)

    def materialise(self) -> None:
        if not self._live:
            assert self.thread_id is not None
            self._live, self._input, self._announced = True, None, False

    def advance(self, observer: Observer) -> Settled:
        self.materialise()
        while True:
            if not self._announced:
                self._announced = True
                tasks = self.tasks()
                if not tasks:
                    return Settled("done", self.step)
                if observer.planned(self.step, tasks):
                    return Settled("paused", self.step)
            settled = self._superstep(observer)
            if settled is not None:
                return settled

    def run_task(self, node: str | None, observer: Observer) -> Settled:
        raise EngineRefused(_TASK)

    def retry(self, observer: Observer) -> Settled:
        return self.advance(observer)

    def resume(self, answer: Any) -> None:
        assert self.thread_id is not None
        self._live, self._announced = True, False  # its plan is told again, as on LangGraph
        self._input = answer if isinstance(answer, Command) else Command(resume=answer)

    def edit(self, writes: Sequence[tuple[str, Any]]) -> int:
        assert self.thread_id is not None and self.cursor is not None
        done = [t for t in self.tasks() if t.done]
        values = {key: convert.value_json(value) for key, value in writes}
        writers = writers_of(self.history(), self.cursor, self._writers)
        self._update(values, writers[0])
        return len(done)

    def update_as(self, values: Mapping[str, Any], as_node: str) -> None:
        self._update({k: convert.value_json(v) for k, v in values.items()}, as_node)

    def drop(self) -> None:
        self._live = False
        self._input = None

    # -- machinery -------------------------------------------------------------------------

    def _update(self, values: Mapping[str, Any], as_node: str) -> None:
        """``update_state`` at the cursor, as ``as_node``; the session moves to its result."""
        assert self.thread_id is not None
        thread, cursor = self.thread_id, self.cursor
        made = self.link.call(f"editing thread {thread}", lambda c: c.threads.update_state(
            thread, dict(values), as_node=as_node, checkpoint_id=cursor))  # fmt: skip
        self.reads.forget()
        self.cursor = str(((made or {}).get("checkpoint") or {}).get("checkpoint_id") or "")
        self._writers[self.cursor] = (as_node,)
        self._announced = True

    def _run(self, thread: str, checkpoint: str | None, input: Any, reader: RunReader,
             stops: tuple[str | list[str], list[str]] = EVERY_STEP) -> None:  # fmt: skip
        """One run from ``checkpoint`` (the thread's head for ``None``: going on) on
        ``input``, stopping where ``stops`` say; its stream goes to ``reader``. A pause
        request ends it after the step being run (the server cancels the run then)."""
        command = convert.command_json(input) if isinstance(input, Command) else None
        sent = None if command is not None else input
        before, after = as_list(stops[0]), as_list(stops[1])
        observer = reader.observer
        try:
            for part in self.link.stream(f"running thread {thread}", lambda c: c.runs.stream(
                thread, self.assistant_id, input=sent, command=command, checkpoint_id=checkpoint,
                interrupt_before=before, interrupt_after=after, stream_mode=["debug"],
                stream_subgraphs=True, on_disconnect="cancel")):  # fmt: skip
                reader.see(str(part.event), part.data)
                if reader.commits and pause_requested(observer):
                    break  # leaving the stream cancels the run on the server
        finally:
            self.reads.forget()

    def _superstep(self, observer: Observer) -> Settled | None:
        """Run the pending step, and the steps after it up to where the session could stop
        (one run); ``None`` when it committed and the next step's plan is still to be told."""
        assert self.thread_id is not None and self.cursor is not None
        parent = self.cursor
        answer, self._input = self._input, None
        at = None if parent == self.latest_id() else parent  # an older one: fork it
        reader = RunReader(observer, parent, self.values(), self._moved_to)
        try:
            self._run(self.thread_id, at, answer, reader, run_stops(observer))
        except ServerFault:
            if not reader.commits:
                self._input = answer  # nothing ran: the same answer next time
            raise
        finally:
            self.cursor = self.latest_id()
        snap = self.snapshot()
        if reader.error is not None:  # a node raised: nothing of its step committed
            failed = _failed_task(snap) or _failed_task(self.snapshot(at or parent))
            return self._failed(reader.error, failed, self.step, observer)
        if not reader.commits or (snap is not None and snap.interrupts):
            found = self.interrupts()
            return (
                Settled("interrupted", self.step, found) if found else Settled("paused", self.step)
            )
        self._announced = False
        return None

    def _moved_to(self, checkpoint: str) -> None:
        """A step of the run committed ``checkpoint``: the session stands there now."""
        self.cursor = checkpoint
        self.reads.forget()

    def _failed(self, message: str, task: Any, step: int, observer: Observer) -> Settled:
        """A node raised on the server (``message``: its error as the server tells it)."""
        kind, _, text = message.partition(": ")
        info = ErrorInfo(
            node=getattr(task, "name", None),
            task_id=getattr(task, "id", None),
            error_type=kind if text else "Error",
            message=text or message,
            traceback="",
            step=step,
            state=self.values(),
        )
        if not observer.errored(info):  # no exception breakpoint: the run fails
            raise RemoteRunError(message)
        return Settled("error", step, error=info)

    def _stand(self, thread_id: str, checkpoint_id: str | None, *, live: bool) -> None:
        if thread_id != self.thread_id:
            self._writers.clear()
        self.thread_id = thread_id
        self.reads.forget()
        self.cursor = self.find(thread_id, checkpoint_id)
        self._live, self._input, self._announced = live, None, not live


class RemoteRunError(Exception):
    """A node raised on the server (its class is the server's: only its name and message
    travel)."""


def _failed_task(snap: StateSnapshot | None) -> Any:
    if snap is None:
        return None
    return next((t for t in snap.tasks if t.error is not None), None)
