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
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from sgdebug.runtime._compiled_api import merged_config
from sgdebug.runtime.checkpoint.base import split_thread_key, thread_key
from sgdebug.runtime.engine._nesting import NS_SEP, Parent, checkpoint_ns
from sgdebug.runtime.errors import GraphInterrupt

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver
    from sgdebug.runtime.engine._run import Run
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.graph._plan import GraphPlan
    from sgdebug.runtime.persist._persist import Persistence
    from sgdebug.runtime.types import StateSnapshot

__all__ = [
    "nested_run",
    "plan_for",
    "raise_stop",
    "recast",
    "start_nested",
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


def nested_run(
    graph: GraphPlan, parent: Parent, config: dict[str, Any]
) -> tuple[Parent, dict[str, Any]]:
    """The parent as the subgraph's run keeps it (a ``checkpointer=True`` subgraph's
    namespace has no task ids) and the run's config: ``config`` over what its parent task's
    config gives (a node calling ``sub.invoke(x)`` without a config still runs ``sub`` on
    its thread)."""
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
    from sgdebug.runtime.persist._threads import continue_from

    parent = run.options.parent
    assert parent is not None
    persist = Persistence(saver, key)
    parents = cast("RunState", parent.run).task_config(parent.task)["configurable"]
    persist.nest(parents.get("checkpoint_map") or {})
    record = saver.get_record(key)
    if record is None:
        run.persist = persist
        run.write_input(input)
        return
    run.restore(persist, persist.load(record))
    if run.graph.options.checkpointer is True and not run.next_tasks():
        run.write_input(input)  # a finished run of a persistent subgraph: new input on it
        return
    continue_from(run, persist, record, None)


def raise_stop(run: Run) -> None:
    """A subgraph's run that stopped (``interrupt()``, or a static breakpoint) stops its
    parent's task: it raises ``GraphInterrupt`` with the interrupts (none for a
    breakpoint) instead of returning, as LangGraph's nested graphs do."""
    if run.status == "interrupted" and run.options.parent is not None:
        raise GraphInterrupt(run.interrupts)


def plan_for(graph: GraphPlan, config: Mapping[str, Any]) -> GraphPlan:
    """The graph a config's ``checkpoint_ns`` names (``graph`` itself for ``""``): its
    subgraph nodes followed level by level, reading checkpoints with ``graph``'s saver.

    A namespace that names no subgraph node reads as ``graph`` (as LangGraph, nothing is
    stored under it: its snapshot is empty).
    """
    ns = ((config.get("configurable") or {}).get("checkpoint_ns")) or ""
    if not ns:
        return graph
    plan = graph
    for name in recast(tuple(ns.split(NS_SEP))):
        node = plan.nodes.get(name)
        found = node.subgraph if node is not None else None
        if found is None:
            return graph
        plan = found
    view = copy.copy(plan)
    view.checkpointer = graph.checkpointer
    return view


def target(graph: GraphPlan, config: dict[str, Any]) -> tuple[GraphPlan, dict[str, Any]]:
    """:func:`plan_for` and the config to read it with: a ``checkpointer=True`` subgraph
    keeps its checkpoints under the namespace without task ids (see the module docstring),
    so a config naming one of its runs (``"sub:<task id>"``) reads ``"sub"``."""
    plan = plan_for(graph, config)
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
