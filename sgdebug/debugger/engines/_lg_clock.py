"""Each task's own time on the LangGraph engine, taken where the task runs.

The step's debug events say when a task was planned and when its result came back, but
they reach the engine only when the stream's consumer reads them: a task's time measured
between them is the whole step's, plus whatever ran between the reads (three parallel
tasks that upper-case a string read 5-7 ms each). :class:`TaskClock` is a LangChain
callback handler, given to the step's ``stream`` in its config: LangGraph starts a chain
run for every task, in the thread (or on the event loop) that runs it, with the task's
checkpoint namespace (``node:<task id>``, ``review:<id>|check:<id>`` inside a subgraph) in
its metadata. The outermost run of a task is timed (runs inside it, such as a subgraph's
graph or a node's own runnables, carry the same task id); every attempt under a retry
policy counts, as on the native engine.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

__all__ = ["TaskClock"]

_NAMESPACE = "langgraph_checkpoint_ns"


class TaskClock(BaseCallbackHandler):
    """Seconds each task ran, by task id (:meth:`seconds` takes a finished task's)."""

    run_inline = True  # (an async graph's handlers run on its event loop, not a worker)

    def __init__(self) -> None:
        self._task_of: dict[UUID, str | None] = {}
        """Every open run: the task it belongs to (``None``: a graph's run, no task's)."""
        self._open: dict[UUID, tuple[str, float]] = {}
        """The open runs that are a task's outermost: its task id and when it started."""
        self._seconds: dict[str, float] = {}

    def seconds(self, task_id: str) -> float | None:
        """The time task ``task_id`` ran (``None``: no run of it was seen), forgotten then."""
        return self._seconds.pop(task_id, None)

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        task = _task_id((metadata or {}).get(_NAMESPACE))
        self._task_of[run_id] = task
        parent = None if parent_run_id is None else self._task_of.get(parent_run_id)
        if task is not None and parent != task:
            self._open[run_id] = (task, time.perf_counter())

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._close(run_id)  # (an interrupt() ends its task's run this way too)

    def _close(self, run_id: UUID) -> None:
        self._task_of.pop(run_id, None)
        opened = self._open.pop(run_id, None)
        if opened is not None:
            task, start = opened
            self._seconds[task] = self._seconds.get(task, 0.0) + time.perf_counter() - start


def _task_id(namespace: Any) -> str | None:
    """The task id that ends a task's checkpoint namespace (``None``: not a task's)."""
    if not isinstance(namespace, str) or ":" not in namespace:
        return None
    return namespace.rpartition("|")[2].rpartition(":")[2] or None
