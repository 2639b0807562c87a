"""Time limits of an async node's attempts (``add_node(timeout=...)``, ``TimeoutPolicy``).

An attempt runs as its own asyncio task, watched from the task that awaits it: past its
``run_timeout`` in all, or ``idle_timeout`` since its last sign of progress
(``runtime.heartbeat()``; with ``refresh_on="auto"`` also a custom stream write), it is
cancelled and fails with ``NodeTimeoutError`` (which a retry
policy retries by default). The limit is cooperative: a node that blocks the event loop is
only stopped at its next ``await``. Sync nodes cannot be cancelled and are refused at
compile time (``graph._policy``). Times come from ``time.monotonic`` (the event loop's clock).

A node's own ``asyncio.CancelledError`` (not one cancelling the run) fails the node with
``NodeCancelledError``, as in LangGraph (:func:`user_cancelled`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

from sgdebug.runtime.errors import NodeTimeoutError

if TYPE_CHECKING:
    from sgdebug.runtime._policies import TimeoutPolicy
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.graph._node import Write

__all__ = ["heartbeat_of", "progress_writer", "timed", "user_cancelled"]


Kind = Literal["idle", "run"]
"""Which limit an attempt went past."""


def _deadline(policy: TimeoutPolicy, start: float, beat: float) -> tuple[float, Kind]:
    """The earliest of the attempt's deadlines, and which limit it is."""
    run = idle = float("inf")
    if policy.run_timeout is not None:
        run = start + _seconds(policy.run_timeout)
    if policy.idle_timeout is not None:
        idle = beat + _seconds(policy.idle_timeout)
    return (idle, "idle") if idle < run else (run, "run")


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


async def timed(
    task: Task, policy: TimeoutPolicy, attempt: Callable[[], Awaitable[list[Write]]]
) -> list[Write]:
    """Run one ``attempt`` of ``task`` under ``policy``'s limits."""
    import asyncio

    start = task.beat = time.monotonic()
    inner = asyncio.ensure_future(attempt())
    try:
        while True:
            deadline, kind = _deadline(policy, start, task.beat)
            done, _ = await asyncio.wait((inner,), timeout=max(0.0, deadline - time.monotonic()))
            if done:
                return inner.result()
            now = time.monotonic()
            deadline, kind = _deadline(policy, start, task.beat)
            if now >= deadline:
                raise _timed_out(task.name, policy, now - start, kind)
    finally:
        if not inner.done():
            inner.cancel()
            await asyncio.wait((inner,))


def _timed_out(node: str, policy: TimeoutPolicy, elapsed: float, kind: Kind) -> NodeTimeoutError:
    idle, run = policy.idle_timeout, policy.run_timeout
    return NodeTimeoutError(
        node, elapsed, kind=kind,
        idle_timeout=None if idle is None else _seconds(idle),
        run_timeout=None if run is None else _seconds(run),
    )  # fmt: skip


def heartbeat_of(task: Task) -> Callable[[], None]:
    """``runtime.heartbeat`` for ``task``: marks progress for its idle limit."""

    def heartbeat() -> None:
        task.beat = time.monotonic()

    return heartbeat


def progress_writer(
    task: Task, policy: TimeoutPolicy, writer: Callable[[Any], None]
) -> Callable[[Any], None]:
    """``writer``, each of whose writes also marks progress for the idle limit, unless the
    policy counts only heartbeats (``refresh_on="heartbeat"``)."""
    if policy.idle_timeout is None or policy.refresh_on != "auto":
        return writer

    def write(chunk: Any) -> None:
        task.beat = time.monotonic()
        writer(chunk)

    return write


def user_cancelled(exc: BaseException) -> bool:
    """Whether ``exc`` is an ``asyncio.CancelledError`` the node raised itself, rather than
    the cancellation of the run's own task (which must go on propagating)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None or not isinstance(exc, asyncio.CancelledError):
        return False
    try:
        current = asyncio.current_task()
    except RuntimeError:  # no running loop: a sync node raised it
        return True
    return current is None or current.cancelling() == 0
