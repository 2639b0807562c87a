"""The LangGraph engine: a real LangGraph compiled graph behind the engine protocol.

Fidelity by construction: every superstep is LangGraph's own. The engine drives the graph
through LangGraph's public API only: one ``stream(..., interrupt_before="*")`` call per
superstep (LangGraph plans the next step, then stops before it, so the session always sees
the pending tasks), ``get_state``/``get_state_history`` for the state and the history
tree, the checkpointer's stored task writes for the reducer diff of each step,
``update_state``/``bulk_update_state`` for edits and ``Command(resume=...)`` for answers.

The graph runs with its own checkpointer when it was compiled with one (so a thread of the
user's checkpoint database can be opened), else with LangGraph's ``InMemorySaver``. Its
compile-time ``interrupt_before``/``interrupt_after`` become the session's breakpoints.

Superstep granularity: LangGraph runs a step's tasks together, so running one task and the
in-place mutation reports are unavailable here (``Capabilities.missing`` says why).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.engine import Capabilities, EngineRefused, Observer, Settled
from sgdebug.debugger.engines import _lg_convert as convert
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import ErrorInfo, HistoryEntry, Mutation, TaskInfo
from sgdebug.debugger.runinfo import format_traceback, pregel_task_info
from sgdebug.inspect import ChannelRow, LastChange, snapshot_channel_rows
from sgdebug.runtime import Command, Interrupt, Overwrite, Send, StateSnapshot

__all__ = ["LangGraphEngine", "SUPPORTED"]

SUPPORTED = "1."
"""The LangGraph major version this engine drives."""
_TASK = "LangGraph runs the tasks of a superstep together: `step` runs the whole superstep"
_MUTATIONS = "finding values a node changed in place needs sgdebug's runtime (--engine native)"
_PUSH = "__pregel_push"
_TASKS = "__pregel_tasks"


def _capabilities(version: str) -> Capabilities:
    return Capabilities(
        "langgraph",
        f"LangGraph {version} (superstep by superstep)",
        (("task", _TASK), ("mutations", _MUTATIONS)),
    )


class LangGraphEngine:
    """A LangGraph graph: the session's thread and the snapshot it stands at."""

    def __init__(self, graph: Any, saver: Any = None, recursion_limit: int | None = None) -> None:
        from importlib.metadata import version

        from langgraph.checkpoint.base import BaseCheckpointSaver
        from langgraph.checkpoint.memory import InMemorySaver

        found = version("langgraph")
        if not found.startswith(SUPPORTED):
            raise ValueError(
                f"this graph needs LangGraph {found}, but sgdebug's LangGraph engine drives "
                f"LangGraph {SUPPORTED}x; install a 1.x release (pip install 'langgraph>=1,<2')"
            )
        self.capabilities = _capabilities(found)
        if saver is not None and not isinstance(saver, BaseCheckpointSaver):
            raise ValueError(
                "a session file (--session) stores sgdebug runtime checkpoints and cannot hold "
                "a LangGraph graph's history yet; leave out --session, or give the graph a "
                "checkpointer of its own and reopen its thread with --thread"
            )
        compiled = graph.compile() if hasattr(graph, "add_node") else graph
        own = compiled.checkpointer
        checkpointer = saver or (own if isinstance(own, BaseCheckpointSaver) else InMemorySaver())
        self.graph: Any = compiled.copy(
            update={
                "checkpointer": checkpointer,
                "interrupt_before_nodes": [],
                "interrupt_after_nodes": [],
            }
        )
        """The user's graph with the session's checkpointer and without its static interrupts
        (the session's breakpoints stand for them)."""
        self.saver: Any = checkpointer
        self.model = _Model(compiled, self.graph)
        self.recursion_limit = (
            recursion_limit or (compiled.config or {}).get("recursion_limit") or 25
        )
        self.thread_id: str | None = None
        self.cursor: str | None = None
        self.mutations: list[Mutation] = []
        self._live = False
        self._input: Any = None
        """What the next ``stream`` call sends: ``None`` (go on) or a resume ``Command``."""
        self._announced = False
        """Whether the observer was told the plan of the pending step."""
        self._base = 0
        """The step the current invocation started at (LangGraph's recursion limit counts
        from there)."""
        self._cache: dict[str, StateSnapshot] = {}
        self._writers: dict[str, tuple[str, ...]] = {}
        """Checkpoint -> the nodes an edit was applied as (so the next edit keeps the plan)."""

    # -- where the session stands ----------------------------------------------------------

    @property
    def live(self) -> bool:
        return self._live

    @property
    def checkpoint_id(self) -> str | None:
        return self.cursor

    @property
    def step(self) -> int:
        snap = self.snapshot()
        if snap is None:
            return -1
        return int((snap.metadata or {}).get("step", -1)) + 1

    def values(self) -> Any:
        snap = self.snapshot()
        return snap.values if snap is not None else {}

    def tasks(self) -> tuple[TaskInfo, ...]:
        snap = self.snapshot()
        if snap is None:
            return ()
        latest = self.is_latest()
        sends = self._sends(snap) if any(_is_push(t.path) for t in snap.tasks) else []
        infos = []
        for task in snap.tasks:
            given, triggers = self._input_of(task.name, task.path, snap.values, sends)
            infos.append(pregel_task_info(task, given, triggers, latest=latest or self._live))
        return tuple(infos)

    def interrupts(self) -> tuple[Interrupt, ...]:
        snap = self.snapshot()
        return tuple(snap.interrupts) if snap is not None else ()

    def snapshot(self, checkpoint_id: str | None = None) -> StateSnapshot | None:
        checkpoint = checkpoint_id or self.cursor
        if self.thread_id is None or checkpoint is None:
            return None
        found = self._cache.get(checkpoint)
        if found is None:
            found = convert.snapshot(self.graph.get_state(config_for(self.thread_id, checkpoint)))
            self._cache[checkpoint] = found
        return found

    def latest_id(self) -> str | None:
        return None if self.thread_id is None else self.find(self.thread_id)

    def is_latest(self) -> bool:
        return self.cursor is not None and self.cursor == self.latest_id()

    def find(self, thread_id: str, checkpoint_id: str | None = None) -> str | None:
        found = self.saver.get_tuple(config_for(thread_id, checkpoint_id))
        return None if found is None else str(found.config["configurable"]["checkpoint_id"])

    def threads(self) -> tuple[str, ...]:
        try:
            seen = (t.config["configurable"]["thread_id"] for t in self.saver.list(None))
            return tuple(dict.fromkeys(seen))
        except Exception:  # a saver that cannot list across threads
            return ()

    def history(self) -> tuple[HistoryEntry, ...]:
        if self.thread_id is None:
            return ()
        snaps = [convert.snapshot(s) for s in self.graph.get_state_history(self._thread())]
        snaps.reverse()
        ids = [_id(s.config) for s in snaps]
        index = {c: i for i, c in enumerate(ids)}
        by_id = dict(zip(ids, snaps, strict=True))
        parents = {_id(s.parent_config) for s in snaps if s.parent_config}
        entries = []
        for i, snap in enumerate(snaps):
            meta = snap.metadata or {}
            parent = _id(snap.parent_config) if snap.parent_config else None
            ran: tuple[str, ...] = ()
            if meta.get("source") == "loop" and parent in by_id:
                done = [t.name for t in by_id[parent].tasks if t.result is not None]
                ran = tuple(dict.fromkeys(done))
            entries.append(
                HistoryEntry(
                    index=i,
                    checkpoint_id=ids[i],
                    parent_index=index.get(parent) if parent else None,
                    step=int(meta.get("step", -1)),
                    source=str(meta.get("source", "loop")),
                    created_at=snap.created_at or "",
                    ran=ran,
                    current=ids[i] == self.cursor,
                    head=ids[i] not in parents,
                )
            )
        return tuple(entries)

    def channel_rows(self, changes: Sequence[LastChange]) -> tuple[ChannelRow, ...]:
        snap = self.snapshot()
        return () if snap is None else snapshot_channel_rows(self.model, snap, changes)

    def collect_mutations(self) -> list[Mutation]:
        return []

    # -- moving ----------------------------------------------------------------------------

    def start(self, thread_id: str, input: Any, checkpoint_id: str | None) -> None:
        self._cache.clear()
        if input is None:  # continue the thread from the snapshot
            if self.find(thread_id, checkpoint_id) is None:
                raise EngineRefused("Received no input for __start__")
            self._stand(thread_id, checkpoint_id, live=True)
            return
        config = config_for(thread_id, checkpoint_id)
        try:
            if isinstance(input, Command) or checkpoint_id is not None:
                # A Command input is applied by LangGraph's input step itself: run it.
                for _ in self.graph.stream(_lg(input), config, interrupt_before="*"):
                    pass
            else:
                # The input step alone, as ``stream`` records it: the hidden ``__start__``
                # task is the first step to run, as on the native engine.
                self.graph.update_state(config, input, as_node="__input__")
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self._stand(thread_id, None, live=True)

    def open(self, thread_id: str, checkpoint_id: str) -> None:
        self._stand(thread_id, checkpoint_id, live=False)

    def materialise(self) -> None:
        if not self._live:
            assert self.thread_id is not None
            self._stand(self.thread_id, self.cursor, live=True)

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
        pending = self.interrupts()
        value = answer.resume if isinstance(answer, Command) else answer
        if len(pending) > 1 and not (
            isinstance(value, Mapping) and {i.id for i in pending} <= set(value)
        ):
            ids = ", ".join(i.id for i in pending)
            raise EngineRefused(
                f"{len(pending)} interrupts wait for an answer: answer each by id, "
                f"`resume {{'<id>': value, ...}}` (ids: {ids})"
            )
        self._stand(self.thread_id, self.cursor, live=True)
        self._input = _lg(answer)

    def edit(self, writes: Sequence[tuple[str, Any]]) -> int:
        assert self.thread_id is not None and self.cursor is not None
        values = {key: _lg(value) for key, value in writes}
        writers = self._writers_here()
        done = [t for t in self.tasks() if t.done]
        try:
            if len(writers) == 1:
                config = self.graph.update_state(self._here(), values, as_node=writers[0])
            else:
                from langgraph.types import StateUpdate

                updates = [StateUpdate(values if i == 0 else None, node)
                           for i, node in enumerate(writers)]  # fmt: skip
                config = self.graph.bulk_update_state(self._here(), [updates])
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self._moved_to(config, writers)
        return len(done)

    def update_as(self, values: Mapping[str, Any], as_node: str) -> None:
        assert self.thread_id is not None
        try:
            config = self.graph.update_state(
                self._here(), {k: _lg(v) for k, v in values.items()}, as_node=as_node
            )
        except Exception as exc:
            raise EngineRefused(_describe(exc)) from exc
        self._moved_to(config, (as_node,))

    def drop(self) -> None:
        self._live = False
        self._input = None

    # -- machinery -------------------------------------------------------------------------

    def _superstep(self, observer: Observer) -> Settled | None:
        """Run the pending step (one ``stream`` call); ``None`` when it committed and the
        next step's plan is still to be told."""
        from langgraph.errors import GraphRecursionError

        assert self.thread_id is not None and self.cursor is not None
        parent, step, before = self.cursor, self.step, self.values()
        remaining = self._base + self.recursion_limit - step
        if remaining < 1:
            raise GraphRecursionError(
                f"Recursion limit of {self.recursion_limit} reached without hitting a stop "
                "condition. You can increase the limit by setting the `recursion_limit` config "
                "key."
            )
        answer, self._input = self._input, None
        # From the thread's head LangGraph goes on; naming an older checkpoint forks it.
        at = None if parent == self.latest_id() else parent
        config = self._config(self.thread_id, at, limit=remaining)
        names: dict[str, str] = {}
        try:
            self._stream(answer, config, names, observer)
        except GraphRecursionError:
            raise
        except Exception as exc:
            return self._failed(exc, observer)
        finally:
            self._cache.clear()
        latest = self.latest_id()
        assert latest is not None
        self.cursor = latest
        if latest == parent or (self.snapshot() or _NONE).interrupts:
            found = self.interrupts()
            if found:
                return Settled("interrupted", self.step, found)
            return Settled("paused", self.step)
        # The checkpoint the step ran from: ``parent``, or the fork LangGraph made of it.
        ran_from = _id((self.snapshot() or _NONE).parent_config) or parent
        stored = self.saver.get_tuple(config_for(self.thread_id, ran_from))
        writes = list(stored.pending_writes or ()) if stored is not None else []
        planned = self.snapshot(ran_from)
        names.update({t.id: t.name for t in planned.tasks} if planned is not None else {})
        versions = self.saver.get_tuple(config_for(self.thread_id, latest))
        channel_versions = versions.checkpoint["channel_versions"] if versions else {}
        after = self.values()
        record = convert.commit_record(
            step,
            before if isinstance(before, Mapping) else {},
            after if isinstance(after, Mapping) else {},
            writes,
            names,
            channel_versions,
        )
        observer.committed(record, latest)
        self._announced = False
        return None

    def _stream(
        self, answer: Any, config: dict[str, Any], names: dict[str, str], observer: Observer
    ) -> None:
        """One superstep through ``stream``; tells the observer each task that finished."""
        started: dict[str, tuple[Any, tuple[str, ...], float]] = {}
        for namespace, _mode, event in self.graph.stream(
            answer, config, interrupt_before="*", stream_mode=["debug"], subgraphs=True
        ):
            if namespace or not isinstance(event, Mapping):
                continue
            payload = event.get("payload") or {}
            if event.get("type") == "task":
                names[payload["id"]] = payload["name"]
                triggers = tuple(payload.get("triggers") or ())
                started[payload["id"]] = (payload.get("input"), triggers, time.perf_counter())
            elif event.get("type") == "task_result":
                given, triggers, at = started.get(payload["id"], (None, (), time.perf_counter()))
                result = payload.get("result")
                writes = tuple(result.items()) if isinstance(result, Mapping) else ()
                error = payload.get("error")
                observer.task_ran(
                    TaskInfo(
                        id=payload["id"], name=payload["name"], path=(), input=given,
                        triggers=triggers, send=_PUSH in triggers, done=error is None,
                        writes=writes, error=error,
                        interrupts=convert.interrupts(payload.get("interrupts") or ()),
                        duration=time.perf_counter() - at,
                    )
                )  # fmt: skip

    def _failed(self, exc: Exception, observer: Observer) -> Settled:
        """A step raised: a node's error is a failed step (``retry`` runs it again)."""
        snap = self.snapshot()
        failed = next((t for t in snap.tasks if t.error is not None), None) if snap else None
        if failed is None:
            raise exc
        info = ErrorInfo(
            node=failed.name,
            task_id=failed.id,
            error_type=type(exc).__name__,
            message=str(exc),
            traceback=format_traceback(exc),
            step=self.step,
            state=self.values(),
            exception=exc,
        )
        if not observer.errored(info):
            raise exc
        return Settled("error", self.step, error=info)

    def _stand(self, thread_id: str, checkpoint_id: str | None, *, live: bool) -> None:
        if thread_id != self.thread_id:
            self._writers.clear()
        self.thread_id = thread_id
        self.cursor = self.find(thread_id, checkpoint_id)
        self._live, self._input, self._announced = live, None, not live
        self._cache.clear()
        self._base = self.step

    def _moved_to(self, config: Mapping[str, Any], writers: tuple[str, ...]) -> None:
        self._cache.clear()
        self.cursor = _id(config)
        self._writers[self.cursor] = writers
        self._announced = True

    def _writers_here(self) -> tuple[str, ...]:
        """The nodes whose writes planned the pending step (an edit is applied as them)."""
        assert self.cursor is not None
        if self.cursor in self._writers:
            return self._writers[self.cursor]
        entries = {e.checkpoint_id: e for e in self.history()}
        entry = entries.get(self.cursor)
        while entry is not None:
            if entry.source == "input" or entry.step < 0:
                return ("__start__",)
            if entry.ran:
                return entry.ran
            if entry.checkpoint_id in self._writers:
                return self._writers[entry.checkpoint_id]
            parent = entry.parent_index
            entry = next((e for e in entries.values() if e.index == parent), None)
        return ("__start__",)

    def _input_of(
        self, name: str, path: tuple[Any, ...], values: Any, sends: Sequence[Any]
    ) -> tuple[Any, tuple[str, ...]]:
        """What a pending task receives, and what triggered it."""
        if name == "__start__":
            stored = self.saver.get_tuple(self._here())
            values = stored.checkpoint.get("channel_values", {}) if stored else {}
            return values.get("__start__"), ("__start__",)
        if _is_push(path):
            index = path[1] if len(path) > 1 and isinstance(path[1], int) else -1
            send = sends[index] if 0 <= index < len(sends) else None
            return (getattr(send, "arg", None), (_PUSH,))
        keys = self.model.input_keys(name)
        if isinstance(values, Mapping) and keys is not None:
            values = {k: v for k, v in values.items() if k in keys}
        return values, (f"branch:to:{name}",)

    def _sends(self, snap: StateSnapshot) -> list[Any]:
        assert self.thread_id is not None
        stored = self.saver.get_tuple(snap.config)
        if stored is None:
            return []
        return list(stored.checkpoint.get("channel_values", {}).get(_TASKS) or ())

    def _thread(self) -> dict[str, Any]:
        assert self.thread_id is not None
        return {"configurable": {"thread_id": self.thread_id}}

    def _here(self) -> dict[str, Any]:
        assert self.thread_id is not None
        return config_for(self.thread_id, self.cursor)

    def _config(self, thread_id: str, checkpoint_id: str | None, *, limit: int) -> dict[str, Any]:
        config = config_for(thread_id, checkpoint_id)
        config["recursion_limit"] = limit
        return config


class _Model:
    """The graph model of a LangGraph graph: its channels described as ours."""

    def __init__(self, user: Any, compiled: Any) -> None:
        builder = compiled.builder
        self._compiled = compiled
        self.name: str = compiled.get_name() if hasattr(compiled, "get_name") else "LangGraph"
        self.nodes: tuple[str, ...] = tuple(builder.nodes)
        fields: dict[str, Any] = {k: convert.channel(c, k) for k, c in builder.channels.items()}
        fields.update({k: convert.managed(m) for k, m in builder.managed.items()})
        self.user_fields: dict[str, Any] = fields
        specs = {k: convert.channel(c, k) for k, c in compiled.channels.items()}
        self.channel_specs: dict[str, Any] = {**specs, **fields}
        self.state_keys = frozenset(builder.channels)
        keys = tuple(builder.channels)
        self.stream_keys: str | tuple[str, ...] = "__root__" if keys == ("__root__",) else keys
        self.builder = builder
        self.state_schema = builder.state_schema
        self.interrupt_before_nodes = user.interrupt_before_nodes
        self.interrupt_after_nodes = user.interrupt_after_nodes

    def get_graph(self, xray: bool | int = False) -> Any:
        return self._compiled.get_graph(xray=xray)

    def input_keys(self, node: str) -> frozenset[str] | None:
        """The state keys node ``node`` reads (its input schema), when known."""
        spec = self.builder.nodes.get(node)
        schema = getattr(spec, "input_schema", None)
        channels = self.builder.schemas.get(schema) if schema is not None else None
        return frozenset(channels) if channels else None


_NONE = StateSnapshot(None, (), {}, None, None, None, (), ())


def _lg(value: Any) -> Any:
    """Our ``Command``/``Overwrite``/``Send`` as LangGraph's (other values unchanged)."""
    from langgraph import types

    if isinstance(value, Overwrite):
        return types.Overwrite(value.value)
    if isinstance(value, Send):
        return types.Send(value.node, value.arg)
    if isinstance(value, Command):
        goto = value.goto
        if isinstance(goto, Send):
            goto = types.Send(goto.node, goto.arg)
        return types.Command(graph=value.graph, update=value.update, resume=value.resume,
                             goto=goto)  # fmt: skip
    return value


def _is_push(path: tuple[Any, ...]) -> bool:
    return bool(path) and path[0] == _PUSH


def _id(config: Mapping[str, Any] | None) -> str:
    return str((config or {}).get("configurable", {}).get("checkpoint_id", ""))


def _describe(exc: BaseException) -> str:
    from sgdebug.debugger.evaluation import describe_error

    return describe_error(exc)
