"""Calling one task's node and turning what it returns into writes.

The node's return value becomes state writes and ``Command`` routes
(:func:`~sgdebug.runtime.graph._node.return_writes`); the run then adds the node's static
edges and conditional edges (``Run.branch_writes``). The ``__start__`` task writes the
graph input instead of calling anything.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import START
from sgdebug.runtime.engine._context import TaskScope
from sgdebug.runtime.engine._runtime import task_runtime
from sgdebug.runtime.engine._task import PLAIN, command_input_writes
from sgdebug.runtime.engine._task import _await as await_sync
from sgdebug.runtime.errors import ParentCommand
from sgdebug.runtime.graph._node import CompiledNode, Write, return_writes
from sgdebug.runtime.types import Command

if TYPE_CHECKING:
    from sgdebug.runtime.engine._run import Run, Task

__all__ = ["acall_task", "call_task", "task_config"]


def call_task(run: Run, task: Task, scope: TaskScope) -> list[Write]:
    """Run ``task``'s node and return all its writes (state, routing, edges)."""
    if task.name == START:
        return _start_writes(run, task)
    node = task.node
    try:
        if node.injection.names:
            value = node.action(task.input, **_injected(run, node, scope))
        else:
            value = node.action(task.input)
    except ParentCommand as exc:
        if node.subgraph is None:
            raise
        value = Command(update=exc.command.update, goto=exc.command.goto)
    if type(value) not in PLAIN and inspect.isawaitable(value):
        value = await_sync(value)
    routes: list[Write] = []
    writes = return_writes(value, run.graph.target, routes)
    task.writes = writes
    branched = run.branch_writes(task, writes, value if isinstance(value, dict) else None)
    return writes + routes + branched if routes else writes + branched


async def acall_task(run: Run, task: Task, scope: TaskScope) -> list[Write]:
    """:func:`call_task` for an async node."""
    node = task.node
    value = await node.action(task.input, **_injected(run, node, scope))
    routes: list[Write] = []
    writes = return_writes(value, run.graph.target, routes)
    task.writes = writes
    raw = value if isinstance(value, dict) else None
    return writes + routes + await run.abranch_writes(task, writes, raw)


def _injected(run: Run, node: CompiledNode, scope: TaskScope) -> dict[str, Any]:
    """The keyword arguments the node's signature asks for (``config``, ``writer`` ...)."""
    names = node.injection.names
    if not names:
        return {}
    kwargs: dict[str, Any] = {}
    if "config" in names:
        kwargs["config"] = scope.get_config()
    if "writer" in names:
        kwargs["writer"] = scope.writer
    if "runtime" in names:
        kwargs["runtime"] = task_runtime(run, scope)
    if "store" in names:
        kwargs["store"] = None
    if "previous" in names:
        kwargs["previous"] = None
    return kwargs


def task_config(run: Run, task: Task) -> dict[str, Any]:
    """The config a node of ``task`` receives."""
    base = run.options.config
    metadata = dict(base.get("metadata") or {})
    metadata.update(
        langgraph_step=run.step,
        langgraph_node=task.name,
        langgraph_triggers=task.triggers,
        langgraph_path=task.path,
        langgraph_checkpoint_ns=f"{task.name}:{task.id}",
    )
    config: dict[str, Any] = {"tags": list(base.get("tags") or []), "metadata": metadata}
    if "recursion_limit" in base:
        config["recursion_limit"] = base["recursion_limit"]
    config["configurable"] = dict(base.get("configurable") or {})
    return config


def _start_writes(run: Run, task: Task) -> list[Write]:
    graph, value = run.graph, task.input
    if isinstance(value, Command):
        # The input step already applied the update; like LangGraph, the start task
        # writes it again as input (so a reducer key sees it twice), plus the goto.
        update = value.update
        writes = graph.input_writes(update) if isinstance(update, dict) else []
        writes += command_input_writes(run, Command(goto=value.goto))
        raw = None
    else:
        writes = graph.input_writes(value)
        raw = value if isinstance(value, dict) else None
    return writes + run.branch_writes(task, writes, raw)
