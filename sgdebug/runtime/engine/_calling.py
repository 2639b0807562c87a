"""Running one task: calling its node and turning what it returns into writes.

The node's return value becomes state writes and ``Command`` routes
(:func:`~sgdebug.runtime.graph._node.return_writes`), then come the node's static edges
and conditional edges (:mod:`._branches`). The ``__start__`` task writes the graph input
instead of calling anything. :func:`run_task` records the outcome on the task.
"""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from sgdebug.runtime._constants import START
from sgdebug.runtime.checkpoint.base import id_text
from sgdebug.runtime.engine._branches import abranch_writes, branch_writes
from sgdebug.runtime.engine._context import (
    SCOPE,
    ScopeOwner,
    TaskScope,
    enter_scope,
    leave_scope,
)
from sgdebug.runtime.engine._error_handlers import ahand_over, hand_over
from sgdebug.runtime.engine._messages_mode import LIFTED_KEYS
from sgdebug.runtime.engine._nesting import NS_SEP
from sgdebug.runtime.engine._retry import aretried, retried
from sgdebug.runtime.engine._runtime import task_runtime
from sgdebug.runtime.engine._task import PLAIN, command_input_writes
from sgdebug.runtime.engine._task import _await as await_sync
from sgdebug.runtime.engine._timeouts import user_cancelled
from sgdebug.runtime.engine._view import RunView
from sgdebug.runtime.errors import GraphInterrupt, NodeCancelledError, ParentCommand
from sgdebug.runtime.graph._node import CompiledNode, Write, for_parent, return_writes
from sgdebug.runtime.types import Command

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task

__all__ = [
    "TaskOwner",
    "acall_task",
    "arun_task",
    "atask_runner",
    "atimed_run_task",
    "call_task",
    "run_task",
    "task_config",
    "task_runner",
    "timed_run_task",
]

_NO_ROUTES: tuple[Write, ...] = ()


class TaskOwner(RunView, ScopeOwner, Protocol):
    """The run a task belongs to: read through its view, and what the task's scope asks."""


def run_task(run: TaskOwner, task: Task, scope: TaskScope | None = None) -> None:
    """Execute one task (in this thread), recording its writes, error or interrupts.

    ``scope`` is a reused scope already current in this thread (see ``Run.advance``);
    without it, one is made current for the call.
    """
    # (One assignment per attribute, and no closure in this function: a tuple assignment
    # and a lambda's cells cost more than the rest of a small task's bookkeeping.)
    task.error = None
    task.interrupts = ()
    if task.writes:  # (a task not run yet has an empty list of its own: kept)
        task.writes = []
    task.applied = None
    if scope is None:
        scope = TaskScope(run, task, task.resume)
        token = SCOPE.set(scope)
    else:  # start the reused scope on this task's attempt
        scope.task = task
        scope.resume = task.resume
        scope.config = scope.pushed = None
        scope.counter = scope.subgraphs = 0
        token = None
    wrap = run.wrap
    if wrap is not None:
        entered = wrap.enter(run, task)
    try:
        if task.node.policy is None:
            task.writes = call_task(run, task, scope)
        else:
            task.writes = _call_retried(run, task, scope)
        task.done = True
    except GraphInterrupt as exc:
        task.interrupts, task.stopped = exc.interrupts, True
    except Exception as exc:
        _failed(task, exc)
    except BaseException as exc:
        _cancelled(task, exc)
    finally:
        if wrap is not None:
            wrap.leave(entered, run, task)
        if token is None:
            scope.task = None
        else:
            SCOPE.reset(token)
    if task.error is not None and task.node.policy is not None:
        hand_over(run, task, run_task)


def timed_run_task(run: TaskOwner, task: Task, scope: TaskScope | None = None) -> None:
    """:func:`run_task`, keeping how long it ran on the task (``Task.seconds``): what a
    watched run calls (the debugger shows the time); an unwatched one calls ``run_task``."""
    start = time.perf_counter()
    try:
        run_task(run, task, scope)
    finally:
        task.seconds = time.perf_counter() - start


class TaskRunner(Protocol):
    """:func:`run_task` or :func:`timed_run_task`."""

    def __call__(self, run: TaskOwner, task: Task, scope: TaskScope | None = None) -> None: ...


def task_runner(watched: bool) -> TaskRunner:
    """What runs a task of a run (``watched``: a debugger watches it, and sees
    ``Task.seconds``): decided per step, not per task, so the plain path reads no clock."""
    return timed_run_task if watched else run_task


def atask_runner(watched: bool) -> Callable[[TaskOwner, Task], Awaitable[None]]:
    """:func:`task_runner` for an async task."""
    return atimed_run_task if watched else arun_task


async def atimed_run_task(run: TaskOwner, task: Task) -> None:
    """:func:`arun_task`, timed as :func:`timed_run_task` (the time it was awaited, which
    counts the time other tasks ran on the loop while it waited)."""
    start = time.perf_counter()
    try:
        await arun_task(run, task)
    finally:
        task.seconds = time.perf_counter() - start


async def arun_task(run: TaskOwner, task: Task) -> None:
    """Execute one async task on the running event loop."""
    task.error, task.interrupts, task.writes, task.applied = None, (), [], None
    scope = TaskScope(run, task, task.resume)
    token = enter_scope(scope)
    wrap = run.wrap
    if wrap is not None:
        entered = await wrap.aenter(run, task)
    try:
        if task.node.policy is None:
            task.writes = await acall_task(run, task, scope)
        else:
            task.writes = await aretried(task, scope, lambda: acall_task(run, task, scope))
        task.done = True
    except GraphInterrupt as exc:
        task.interrupts, task.stopped = exc.interrupts, True
    except Exception as exc:
        _failed(task, exc)
    except BaseException as exc:
        _cancelled(task, exc)
    finally:
        if wrap is not None:
            await wrap.aleave(entered, run, task)
        leave_scope(token)
    if task.error is not None and task.node.policy is not None:
        await ahand_over(run, task, run_task, arun_task)


def _call_retried(run: TaskOwner, task: Task, scope: TaskScope) -> list[Write]:
    """:func:`call_task` under the node's retry policy."""
    return retried(task, scope, lambda: call_task(run, task, scope))


def _cancelled(task: Task, exc: BaseException) -> None:
    """A ``BaseException`` left the node: the node's own cancellation fails the task with
    ``NodeCancelledError``; anything else (the run cancelled, KeyboardInterrupt) goes on."""
    if not user_cancelled(exc):
        raise exc
    task.error = NodeCancelledError(task.name)
    task.error.__cause__ = exc


def _failed(task: Task, exc: Exception) -> None:
    if not isinstance(exc, ParentCommand):  # a command on its way up is not a failure
        exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
    task.error = exc


def call_task(run: RunView, task: Task, scope: TaskScope) -> list[Write]:
    """Run ``task``'s node and return all its writes (state, routing, edges)."""
    if task.name == START:
        return _start_writes(run, task)
    node = task.node
    try:
        if node.injection.names:
            value = node.action(task.input, **_injected(run, node, scope))
        else:
            value = node.action(task.input)
    except ParentCommand as exc:  # from a subgraph the node ran (as the node or in it)
        value = for_parent(exc)
    if type(value) not in PLAIN and inspect.isawaitable(value):
        value = await_sync(value)
    target = run.graph.target
    routes: Sequence[Write] = _NO_ROUTES  # (a Command's goto, a Send)
    raw: dict[str, Any] | None
    if type(value) is dict and not target.root and target.state_keys.issuperset(value):
        writes = list(value.items())  # the usual value: return_writes(), inlined (a call costs)
        raw = value
    else:
        routed: list[Write] = []
        writes = return_writes(value, target, routed)
        routes = routed
        raw = value if isinstance(value, dict) else None
    if scope.pushed:
        writes = scope.pushed + writes
    task.writes = writes
    return branch_writes(run, task, writes, raw, [*writes, *routes])  # (one list: all its writes)


async def acall_task(run: RunView, task: Task, scope: TaskScope) -> list[Write]:
    """:func:`call_task` for an async node."""
    node = task.node
    try:
        value = await node.action(task.input, **_injected(run, node, scope))
    except ParentCommand as exc:
        value = for_parent(exc)
    routes: list[Write] = []
    writes = return_writes(value, run.graph.target, routes)
    if scope.pushed:
        writes = scope.pushed + writes
    task.writes = writes
    raw = value if isinstance(value, dict) else None
    return await abranch_writes(run, task, writes, raw, writes + routes)


def _injected(run: RunView, node: CompiledNode, scope: TaskScope) -> dict[str, Any]:
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
        kwargs["store"] = run.store
    if "previous" in names:
        kwargs["previous"] = None
    if "error" in names:
        kwargs["error"] = scope.task.node_error
    return kwargs


def task_config(run: RunView, task: Task) -> dict[str, Any]:
    """The config a node of ``task`` receives.

    As LangGraph's: ``configurable`` keeps the run's keys (its thread, the user's) and
    names where the task stands: ``checkpoint_ns`` (the run's namespace plus
    ``"node:task_id"``: a subgraph the node runs checkpoints there), ``checkpoint_id``
    ``None``, and ``checkpoint_map`` (each level's namespace -> the checkpoint its step
    runs from); metadata adds the ``langgraph_*`` keys (and, in a subgraph, the run's
    ``checkpoint_ns``).
    """
    base = run.config
    namespace = run.namespace
    run_ns = NS_SEP.join(namespace)
    task_ns = f"{run_ns}{NS_SEP}{task.name}:{task.id}" if namespace else f"{task.name}:{task.id}"
    metadata = dict(base.get("metadata") or {})
    configurable = base.get("configurable")
    if configurable:  # LangGraph repeats these in the metadata
        for key in LIFTED_KEYS:
            if key in configurable and key not in metadata:
                metadata[key] = configurable[key]
    metadata.update(
        langgraph_step=run.step,
        langgraph_node=task.name,
        langgraph_triggers=task.triggers,
        langgraph_path=task.path,
        langgraph_checkpoint_ns=task_ns,
    )
    if namespace:  # (LangGraph keeps the outermost subgraph's)
        metadata.setdefault("checkpoint_ns", run_ns)
    config: dict[str, Any] = {"tags": list(base.get("tags") or []), "metadata": metadata}
    if "recursion_limit" in base:
        config["recursion_limit"] = base["recursion_limit"]
    configurable = dict(base.get("configurable") or {})
    levels = configurable.get("checkpoint_map") if namespace else None
    configurable["checkpoint_map"] = {**(levels or {}), run_ns: _step_checkpoint(run, task)}
    configurable["checkpoint_id"] = None
    configurable["checkpoint_ns"] = task_ns
    config["configurable"] = configurable
    return config


def _step_checkpoint(run: RunView, task: Task) -> str:
    """The id of the checkpoint ``task``'s step runs from; a run without a checkpointer
    has none stored, so it is made up: one per run and step, UUID-shaped."""
    if task.checkpoint_id is not None:
        return id_text(task.checkpoint_id)
    checkpoint_id = run.checkpoint_id
    if checkpoint_id is not None:
        return checkpoint_id
    return str(uuid.uuid5(uuid.NAMESPACE_OID, f"{task.id[:24]}:{run.step}"))


def _start_writes(run: RunView, task: Task) -> list[Write]:
    graph, value = run.graph, task.input
    if isinstance(value, Command):
        # The input step already applied the update; like LangGraph, the start task
        # writes it again as input (so a reducer key sees it twice), plus the goto.
        update = value.update
        writes = graph.input_writes(update) if isinstance(update, dict) else []
        writes += command_input_writes(graph.target, Command(goto=value.goto))
        raw = None
    else:
        writes = graph.input_writes(value)
        raw = value if isinstance(value, dict) else None
    return branch_writes(run, task, writes, raw, list(writes))
