"""A run started inside another run's task (a subgraph's): its config, where it keeps its
checkpoints, and how it starts there.

As in LangGraph 1.2.22, a subgraph's run inherits its parent task's config (the thread,
the user's ``configurable`` keys and metadata, the recursion limit) and checkpoints with
its parent's saver, whatever the subgraph was compiled with: ``checkpointer=None`` or its
own saver store under the task's namespace (``"node:task_id"``, levels joined by ``|``),
so each run of the task has its own checkpoints; ``checkpointer=True`` stores under the
namespace without task ids, so the subgraph's state carries over from one invocation of
its parent to the next on the thread; ``checkpointer=False`` stores nothing. Under a
parent without a saver nothing is stored.

A subgraph's run that finds a checkpoint of its own continues from it: its parent's task
runs again after an interrupt or an error, and the subgraph's finished tasks do not run
again (with ``checkpointer=True``, only a checkpoint with work left is continued; a
finished one takes the new input on top of its state).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from sgdebug.runtime._compiled_api import merged_config
from sgdebug.runtime.checkpoint.base import split_thread_key, thread_key
from sgdebug.runtime.engine._context import current_scope
from sgdebug.runtime.engine._nesting import NS_SEP, Parent, checkpoint_ns
from sgdebug.runtime.errors import GraphInterrupt
from sgdebug.runtime.types import Command

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver, CheckpointRecord
    from sgdebug.runtime.engine._run import Run
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.graph._plan import GraphPlan
    from sgdebug.runtime.persist._persist import Persistence
    from sgdebug.runtime.types import StateSnapshot

__all__ = [
    "Replay",
    "runs_nested",
    "nested_run",
    "plan_for",
    "raise_stop",
    "recast",
    "replay_targets",
    "start_nested",
    "start_root",
    "storage",
    "target",
    "with_subgraph_states",
]

ROOT_TRUE = "checkpointer=True cannot be used for root graphs."
_INHERITED = ("configurable", "metadata", "recursion_limit")
"""What a subgraph's run takes from its parent task's config when its caller gives less."""


def recast(namespace: tuple[str, ...]) -> tuple[str, ...]:
    """The namespace without task ids: ``("a:1", "b:2")`` -> ``("a", "b")``."""
    return tuple(part.partition(":")[0] for part in namespace)


def runs_nested(parent: Parent, given: Mapping[str, Any] | None) -> bool:
    """Whether a graph invoked with config ``given`` while ``parent``'s task runs is that
    task's subgraph: given no ``configurable``, or its task's own (a node passing on its
    ``config``). One given a ``configurable`` of its own (``{"thread_id": ...}``) runs as
    a root graph, on that thread, as in LangGraph."""
    configurable = (given or {}).get("configurable")
    return configurable is None or configurable.get("checkpoint_ns") == parent.checkpoint_ns


def nested_run(
    graph: GraphPlan, parent: Parent, config: dict[str, Any]
) -> tuple[Parent, dict[str, Any]]:
    """The parent as the subgraph's run keeps it and the run's config: ``config`` over
    what its parent task's config gives (a node calling ``sub.invoke(x)`` without a config
    still runs ``sub`` on its thread).

    The run's namespace is its parent task's; as in LangGraph, the second graph a node
    runs in one attempt gets ``"|1"`` after it, the third ``"|2"``...; a
    ``checkpointer=True`` subgraph's has no task ids.
    """
    scope = current_scope()
    count, scope.subgraphs = scope.subgraphs, scope.subgraphs + 1
    if count:
        parent = replace(parent, namespace=(*parent.namespace, str(count)))
    if graph.options.checkpointer is True:
        parent = replace(parent, namespace=recast(parent.namespace))
    task_config = cast("RunState", parent.run).task_config(parent.task)
    inherited = {k: task_config[k] for k in _INHERITED if k in task_config}
    return parent, merged_config(inherited, config)


def storage(
    graph: GraphPlan, parent: Parent | None, config: dict[str, Any]
) -> tuple[BaseCheckpointSaver, str] | None:
    """The saver and saver key a run of ``graph`` checkpoints under, ``None`` if none.

    Raises ``ValueError`` for a root graph with a saver and no thread in ``config``.
    """
    from sgdebug.runtime.persist._threads import thread_of

    if parent is None:
        saver = graph.checkpointer
        if saver is True:
            raise RuntimeError(ROOT_TRUE)
        if saver is None:
            return None
        key, _ = thread_of(config)
        return saver, key
    if graph.options.checkpointer is False:
        return None
    persist = cast("Persistence | None", cast("RunState", parent.run).persist)
    if persist is None:
        return None
    root_thread = split_thread_key(persist.thread_id)[0]
    return persist.saver, thread_key(root_thread, checkpoint_ns(parent.namespace))


def start_nested(run: Run, input: Any, saver: BaseCheckpointSaver, key: str) -> None:
    """Position a subgraph's run on its checkpoints: continue from the last one if it has
    one (see the module docstring), else start from ``input``."""
    from sgdebug.runtime.persist._persist import Persistence
    from sgdebug.runtime.persist._sync_face import describe_run
    from sgdebug.runtime.persist._threads import continue_from

    parent = run.options.parent
    assert parent is not None
    persist = Persistence(saver, key)
    describe_run(persist.saver, run.graph.channel_specs, run.options.config)
    parents = cast("RunState", parent.run).task_config(parent.task)["configurable"]
    persist.nest(parents.get("checkpoint_map") or {})
    replay = persist.replay = cast("Persistence", cast("RunState", parent.run).persist).replay
    latest = saver.get_record(key)
    record = latest if replay is None else replay.record(saver, key)
    if record is None:
        run.persist = persist
        run.write_input(input)
        return
    run.restore(persist, persist.load(record))
    if run.graph.options.checkpointer is True and not run.next_tasks():
        run.write_input(input)  # a finished run of a persistent subgraph: new input on it
        return
    at_latest = latest is None or latest.id == record.id
    if not at_latest:  # replaying an earlier checkpoint: a fork of it, as a root's replay
        persist.save(run, "fork", step=record.step + 1)
        run.step = record.step + 2
    traveled = replay is not None and key in replay.traveled
    continue_from(run, persist, record, None, at_latest=at_latest and not traveled)


@dataclass(slots=True)
class Replay:
    """How the subgraphs of a root run replaying an earlier checkpoint find theirs: as in
    LangGraph, each subgraph's first run (per namespace without its last task id) starts
    from its latest checkpoint made before the root's replay point, later ones from their
    latest; a subgraph checkpoint the root was started on is used as it is."""

    point: str | None
    """The root checkpoint replayed (``None``: only ``targets``)."""
    targets: dict[str, str] = field(default_factory=dict)
    """Subgraph namespace -> the checkpoint its run starts from (time travel into it)."""
    visited: set[str] = field(default_factory=set)
    traveled: set[str] = field(default_factory=set)
    """Keys whose run starts from its target: time travel, so the writes recorded for the
    step after it (finished tasks, answers) are not used (its questions are asked again)."""

    def record(self, saver: BaseCheckpointSaver, key: str) -> CheckpointRecord | None:
        """The checkpoint a subgraph run filed under ``key`` starts from, if one (see
        :attr:`traveled`)."""
        ns = split_thread_key(key)[1]
        target = self.targets.pop(ns, None)
        if target is not None:
            self.traveled.add(key)
            return saver.get_record(key, target)
        stable = ns.rpartition(":")[0] if ":" in ns.rpartition(NS_SEP)[2] else ns
        if self.point is None or stable in self.visited:
            return saver.get_record(key)
        self.visited.add(stable)
        point = self.point
        found = next((r.id for r in saver.list_record_info(key) if r.id < point), None)
        return None if found is None else saver.get_record(key, found)


def start_root(graph: GraphPlan, run: Run, input: Any, config: dict[str, Any]) -> None:
    """Position a root graph's run on its thread (``persist._threads.start_run``); one
    that replays an earlier checkpoint, or starts from a subgraph's (see
    :func:`replay_targets`), tells its subgraphs where to start (:class:`Replay`)."""
    from sgdebug.runtime.persist._threads import start_run, thread_of

    config, targets = replay_targets(config)
    key, checkpoint_id = thread_of(config)
    point = None
    resuming = isinstance(input, Command) and input.resume is not None
    if checkpoint_id is not None and not resuming:  # time travel to the root's checkpoint
        record = graph.checkpointer.get_record(key, checkpoint_id)
        if record is not None:  # (an update's fork came after the subgraphs' checkpoints)
            forked = record.source in ("update", "fork") and record.parent_id is not None
            point = record.parent_id if forked else record.id
    start_run(graph, run, input, config)
    if (targets or point) and run.persist is not None:
        cast("Persistence", run.persist).replay = Replay(point, targets)


def replay_targets(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A root run given a subgraph checkpoint's config (``checkpoint_ns`` and
    ``checkpoint_id``: time travel into a subgraph) replays the root from the checkpoint
    its ``checkpoint_map`` names for ``""``, and each subgraph from its own; returns the
    root's config and the subgraphs' namespace -> checkpoint."""
    configurable = config.get("configurable") or {}
    ns = configurable.get("checkpoint_ns")
    checkpoint_id = configurable.get("checkpoint_id")
    levels = configurable.get("checkpoint_map") or {}
    if not ns or checkpoint_id is None or "" not in levels:
        return config, {}
    targets = {k: v for k, v in levels.items() if k}
    targets[ns] = checkpoint_id
    root = {k: v for k, v in configurable.items() if k != "checkpoint_ns"}
    root["checkpoint_id"] = levels[""]
    return {**config, "configurable": root}, targets


def raise_stop(run: Run) -> None:
    """A subgraph's run that stopped (``interrupt()``, or a static breakpoint) stops its
    parent's task: it raises ``GraphInterrupt`` with the interrupts (none for a
    breakpoint) instead of returning, as LangGraph's nested graphs do. One that ends
    otherwise raises what its saver's ``aput`` failed with (``AsyncFace.raise_failed``)."""
    if run.options.parent is None:
        return
    if run.status == "interrupted":
        raise GraphInterrupt(run.interrupts)
    if run.persist is not None and run.persist.astore is not None:  # (an AsyncFace's)
        from sgdebug.runtime.persist._async_face import AsyncFace

        saver = cast("Persistence", run.persist).saver
        if isinstance(saver, AsyncFace):
            saver.raise_failed()


def plan_for(graph: GraphPlan, config: Mapping[str, Any], *, strict: bool = False) -> GraphPlan:
    """The graph a config's ``checkpoint_ns`` names (``graph`` itself for ``""``): its
    subgraph nodes followed level by level, reading checkpoints with ``graph``'s saver.

    A namespace that names no subgraph node reads as ``graph`` (as LangGraph, nothing is
    stored under it: its snapshot is empty); with ``strict`` (an update), it raises
    ``ValueError``.
    """
    ns = ((config.get("configurable") or {}).get("checkpoint_ns")) or ""
    if not ns:
        return graph
    plan = graph
    names = recast(tuple(ns.split(NS_SEP)))
    for name in names:
        node = plan.nodes.get(name)
        found = next(iter(node.subgraphs), None) if node is not None else None
        if found is None:
            if strict:
                raise ValueError(f"Subgraph {NS_SEP.join(names)} not found")
            return graph
        plan = found
    view = copy.copy(plan)
    view.checkpointer = graph.checkpointer
    return view


def target(
    graph: GraphPlan, config: dict[str, Any], *, strict: bool = False
) -> tuple[GraphPlan, dict[str, Any]]:
    """:func:`plan_for` and the config to read it with: a ``checkpointer=True`` subgraph
    keeps its checkpoints under the namespace without task ids (see the module docstring),
    so a config naming one of its runs (``"sub:<task id>"``) reads ``"sub"``."""
    plan = plan_for(graph, config, strict=strict)
    if plan is graph or plan.options.checkpointer is not True:
        return plan, config
    configurable = dict(config["configurable"])
    parts = tuple(configurable["checkpoint_ns"].split(NS_SEP))
    configurable["checkpoint_ns"] = checkpoint_ns(recast(parts))
    return plan, {**config, "configurable": configurable}


def with_subgraph_states(graph: GraphPlan, snap: StateSnapshot) -> StateSnapshot:
    """``get_state(subgraphs=True)``: each task of a subgraph node carries the subgraph's
    latest snapshot under the task's namespace (recursively) instead of its config."""
    from sgdebug.runtime.persist._threads import get_state

    tasks = []
    for task in snap.tasks:
        if isinstance(task.state, dict):
            sub = get_state(*target(graph, task.state))
            task = task._replace(state=with_subgraph_states(graph, sub))
        tasks.append(task)
    return snap._replace(tasks=tuple(tasks))
