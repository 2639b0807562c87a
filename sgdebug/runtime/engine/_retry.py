"""Trying a failed node again under its retry policies (``add_node(retry_policy=...)``).

Each attempt starts the node afresh: earlier attempts' writes are dropped and its
``interrupt()`` calls count from the first again; ``runtime.execution_info`` tells the node
which attempt it is. Between attempts the run waits the policy's interval, through
``time.sleep`` (``asyncio.sleep`` on the event loop) looked up at call time, so that a test
can patch the wait away. A node with no policy never comes here (``CompiledNode.policy``).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from sgdebug.runtime._policies import RetryPolicy, should_retry
from sgdebug.runtime.errors import GraphDrained, GraphInterrupt, ParentCommand
from sgdebug.runtime.graph._policy import sync_timeout_error

if TYPE_CHECKING:
    from sgdebug.runtime.engine._context import TaskScope
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.graph._node import Write

__all__ = ["aretried", "retried", "retry_wait"]

log = logging.getLogger("sgdebug.runtime")

Attempt = Callable[[], "list[Write]"]
"""One call of the node, returning all its writes."""
AAttempt = Callable[[], Awaitable["list[Write]"]]
"""One call of an async node (with its time limit, when it has one)."""


def retry_wait(policies: tuple[RetryPolicy, ...], exc: Exception, failures: int) -> float | None:
    """Seconds to wait before the attempt after ``failures`` failed ones, the last with
    ``exc``; ``None`` when no policy retries ``exc`` or the matching one is exhausted.

    The first policy whose ``retry_on`` matches decides; the interval starts at its
    ``initial_interval``, grows by ``backoff_factor`` per failure up to ``max_interval``, and
    with ``jitter`` gains ``random.uniform(0, 1)`` seconds.
    """
    policy = next((p for p in policies if should_retry(p, exc)), None)
    if policy is None or failures >= policy.max_attempts:
        return None
    interval = policy.initial_interval * policy.backoff_factor ** (failures - 1)
    interval = min(policy.max_interval, interval)
    return interval + random.uniform(0, 1) if policy.jitter else interval


def _failed(task: Task, exc: Exception, failures: int) -> float | None:
    if isinstance(exc, GraphInterrupt | ParentCommand | GraphDrained):
        return None  # an interrupt, a command for the parent graph, a drain: not failures
    assert task.node.policy is not None
    wait = retry_wait(task.node.policy.retry, exc, failures)
    if wait is not None:
        log.info(
            "Retrying task %s after %.2f seconds (attempt %d) after %s %s",
            task.name, wait, failures, type(exc).__name__, exc,
        )  # fmt: skip
    return wait


def _next_attempt(task: Task, scope: TaskScope, failures: int) -> None:
    task.writes = []
    task.attempt = failures + 1
    scope.counter = 0  # the node's interrupt() calls count from the first again


def retried(task: Task, scope: TaskScope, attempt: Attempt) -> list[Write]:
    """Run ``attempt`` until it succeeds or ``task``'s retry policies give up (re-raising).

    A sync node cannot have a time limit (only a ``Send``'s can reach one here): it fails.
    """
    assert task.node.policy is not None
    if task.node.policy.timeout is not None:
        raise sync_timeout_error(task.name)
    task.attempt, task.first_attempt = 1, time.time()
    failures = 0
    while True:
        try:
            return attempt()
        except Exception as exc:
            failures += 1
            wait = _failed(task, exc, failures)
            if wait is None:
                raise
        time.sleep(wait)
        _next_attempt(task, scope, failures)


async def aretried(task: Task, scope: TaskScope, attempt: AAttempt) -> list[Write]:
    """:func:`retried` for an async node: waits on the event loop; each attempt within the
    node's time limit, if it has one (``_timeouts``)."""
    import asyncio

    from sgdebug.runtime.engine._timeouts import timed

    assert task.node.policy is not None
    limit = task.node.policy.timeout
    task.attempt, task.first_attempt = 1, time.time()
    failures = 0
    while True:
        try:
            return await (attempt() if limit is None else timed(task, limit, attempt))
        except Exception as exc:
            failures += 1
            wait = _failed(task, exc, failures)
            if wait is None:
                raise
        await asyncio.sleep(wait)
        _next_attempt(task, scope, failures)
