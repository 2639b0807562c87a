"""The ``Runtime`` a node receives, and ``get_runtime()`` for code that does not take one."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._server_info import server_info
from sgdebug.runtime.engine._context import Runtime, TaskScope, current_scope
from sgdebug.runtime.engine._nesting import NS_SEP
from sgdebug.runtime.engine._timeouts import heartbeat_of

if TYPE_CHECKING:
    from sgdebug.runtime.engine._view import RunView

__all__ = ["DEFAULT_RUNTIME", "ExecutionInfo", "get_runtime", "task_runtime"]

DEFAULT_RUNTIME = Runtime()
"""The runtime outside any run: no context, a writer that writes nowhere."""


@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """What is running: ``runtime.execution_info`` inside a node."""

    checkpoint_id: str
    """The checkpoint the task's step was planned from (``""`` without a checkpointer)."""
    checkpoint_ns: str
    """The task's checkpoint namespace: ``node:task_id``."""
    task_id: str
    """The running task's id."""
    thread_id: str | None = None
    """The run's thread, ``None`` without a checkpointer."""
    run_id: str | None = None
    """The config's ``run_id``, when it has one."""
    node_attempt: int = 1
    """Which attempt of the node this is (1: the first)."""
    node_first_attempt_time: float | None = None
    """When the first attempt started (Unix seconds)."""

    def patch(self, **overrides: Any) -> ExecutionInfo:
        """A copy with the given fields replaced."""
        return replace(self, **overrides)


def task_runtime(run: RunView, scope: TaskScope) -> Runtime:
    """The runtime of the task ``scope`` runs for ``run``."""
    config = run.config
    configurable = config.get("configurable") or {}
    checkpointed = run.graph.checkpointer is not None or run.checkpoint_id is not None
    info = ExecutionInfo(
        checkpoint_id=run.checkpoint_id or "",
        checkpoint_ns=NS_SEP.join((*run.namespace, f"{scope.task.name}:{scope.task.id}")),
        task_id=scope.task.id,
        thread_id=configurable.get("thread_id") if checkpointed else None,
        run_id=None if config.get("run_id") is None else str(config["run_id"]),
        node_attempt=scope.task.attempt,
        node_first_attempt_time=scope.task.first_attempt or time.time(),
    )
    task = scope.task
    policy = task.node.policy
    heartbeat = DEFAULT_RUNTIME.heartbeat
    if policy is not None and policy.timeout is not None:
        heartbeat = heartbeat_of(task)
    control = getattr(getattr(run, "options", None), "control", None)  # a Run's RunOptions
    server = server_info(configurable) if configurable else None
    return Runtime(run.context, run.store, scope.writer, heartbeat, None, info, server, control)


def get_runtime(context_schema: Any = None) -> Runtime:
    """The runtime of the running task (``context_schema`` only types the result)."""
    scope = current_scope()
    owner: RunView = scope.owner  # type: ignore[assignment]  # every task scope's owner is a Run
    return task_runtime(owner, scope)
