"""Subgraphs on the LangGraph engine: the tasks run inside them, and their own state.

A superstep is one ``stream(..., stream_mode=["debug"], subgraphs=True)`` call. Its debug
events come with a namespace: ``()`` for the parent graph's tasks, ``("review:<task id>",)``
for the tasks of the subgraph that the parent's ``review`` task runs (one more part per
level of nesting). :class:`StepEvents` tells the observer every task that finished, at any
level: a subgraph's task is named after the path to it (``review/draft``), with the
namespace as its ``path``, so a view that only knows the parent's nodes can ignore it.

When a run stops inside a subgraph (an ``interrupt()`` there, or a breakpoint:
:mod:`~sgdebug.debugger.engines._lg_breaks`), the parent's pending task
is the subgraph's whole run; :func:`subgraph_states` reads the subgraph's own snapshot
(``get_state(config, subgraphs=True)``) for :func:`with_subgraphs` to attach to the task.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.engine import Observer
from sgdebug.debugger.engines import _lg_convert as convert
from sgdebug.debugger.engines._lg_async import Driver
from sgdebug.debugger.results import TaskInfo
from sgdebug.debugger.subframes import SubgraphStep, read_subgraph_steps
from sgdebug.runtime import StateSnapshot

if TYPE_CHECKING:
    from sgdebug.debugger.engines._lg_clock import TaskClock

__all__ = ["StepEvents", "SubgraphStep", "edit_subgraph",
           "has_subgraph_tasks", "qualified_name", "subgraph_states", "subgraph_steps",
           "with_subgraphs"]  # fmt: skip

_PUSH = "__pregel_push"

Started = tuple[Any, tuple[str, ...], float]
"""A running task: its input, its triggers, when it started."""


def qualified_name(namespace: Sequence[str], name: str) -> str:
    """``name`` prefixed with the nodes whose subgraphs it runs in (``review/draft``)."""
    return "/".join([*(part.split(":", 1)[0] for part in namespace), name])


class StepEvents:
    """Reads one superstep's debug events and tells the observer each task that finished.

    ``names`` collects the parent graph's task names by id (for the step's commit record);
    ``clock`` gives each task's own time (the time between its events is the fallback).
    """

    def __init__(
        self, observer: Observer, names: dict[str, str], clock: TaskClock | None = None
    ) -> None:
        self._observer = observer
        self._names = names
        self._clock = clock
        self._started: dict[tuple[tuple[str, ...], str], Started] = {}

    def see(self, namespace: Sequence[str], event: Any) -> None:
        """One ``(namespace, "debug", event)`` item of the stream."""
        if not isinstance(event, Mapping):
            return
        where = tuple(namespace)
        payload = event.get("payload") or {}
        kind = event.get("type")
        if kind == "task":
            if not where:
                self._names[payload["id"]] = payload["name"]
            triggers = tuple(payload.get("triggers") or ())
            self._started[(where, payload["id"])] = (
                payload.get("input"), triggers, time.perf_counter()
            )  # fmt: skip
        elif kind == "task_result":
            self._observer.task_ran(self._finished(where, payload))

    def _finished(self, namespace: tuple[str, ...], payload: Mapping[str, Any]) -> TaskInfo:
        default: Started = (None, (), time.perf_counter())
        given, triggers, at = self._started.pop((namespace, payload["id"]), default)
        result = payload.get("result")
        error = payload.get("error")
        return TaskInfo(
            id=payload["id"],
            name=qualified_name(namespace, payload["name"]),
            path=namespace,
            namespace=namespace,
            input=given,
            triggers=triggers,
            send=_PUSH in triggers,
            done=error is None,
            writes=tuple(result.items()) if isinstance(result, Mapping) else (),
            error=error,
            interrupts=convert.interrupts(payload.get("interrupts") or ()),
            duration=self._seconds(payload["id"], at),
        )

    def _seconds(self, task_id: str, started: float) -> float:
        ran = self._clock.seconds(task_id) if self._clock is not None else None
        return ran if ran is not None else time.perf_counter() - started


def edit_subgraph(
    driver: Driver, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]]
) -> None:
    """``update_state`` on a subgraph's config: a new checkpoint of the subgraph, in its own
    namespace (the parent's checkpoint does not change)."""
    from sgdebug.debugger.engines._lg_model import to_langgraph

    driver.update_state(dict(config), {key: to_langgraph(value) for key, value in writes})


def has_subgraph_tasks(snap: StateSnapshot) -> bool:
    """Whether a task of ``snap`` runs a subgraph (``get_state`` gives such a task the
    subgraph's config as its ``state``)."""
    return any(task.state is not None for task in snap.tasks)


def subgraph_states(full: StateSnapshot) -> dict[str, StateSnapshot]:
    """Task id -> the subgraph's own snapshot, for the tasks of ``full`` (a snapshot read
    with ``subgraphs=True``) whose subgraph has started (has a checkpoint)."""
    found = {}
    for task in full.tasks:
        state = task.state
        if isinstance(state, StateSnapshot) and _started(state):
            found[task.id] = state
    return found


def with_subgraphs(
    tasks: Sequence[TaskInfo], states: Mapping[str, StateSnapshot]
) -> tuple[TaskInfo, ...]:
    """``tasks`` with each subgraph task's own snapshot attached."""
    return tuple(replace(t, subgraph=states[t.id]) if t.id in states else t for t in tasks)


def _started(state: StateSnapshot) -> bool:
    configurable = (state.config or {}).get("configurable") or {}
    return bool(configurable.get("checkpoint_id"))


def subgraph_steps(graph: Any, saver: Any, thread_id: str | None) -> tuple[SubgraphStep, ...]:
    """Every checkpoint the subgraphs of ``thread_id`` stored (see :func:`read_subgraph_steps`)."""
    return read_subgraph_steps(graph, saver, thread_id)
