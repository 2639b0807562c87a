"""A task's routing writes after its own writes: static edges, joins, conditional edges.

A conditional edge's path function sees the state with only this task's writes applied
(:func:`local_state`). A path that returns a node name gives the same routing writes every
time, so they are cached per node and branch; the sync and async versions share that cache
and everything else but the call of the path function.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.channels import (
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    UntrackedValue,
)
from sgdebug.runtime.engine._task import PLAIN, Task
from sgdebug.runtime.engine._task import _await as await_sync
from sgdebug.runtime.graph._node import Write, branch_destinations, route_writes

if TYPE_CHECKING:
    from sgdebug.runtime.channels import BaseChannel
    from sgdebug.runtime.engine._view import RunView
    from sgdebug.runtime.graph._specs import BranchSpec

__all__ = ["abranch_writes", "branch_writes", "local_state"]

_REPLACING = (LastValue, EphemeralValue, UntrackedValue)
"""Channels whose value after a single write is that write."""


_NO_ROUTES: dict[str, tuple[Write, ...]] = {}


class _WrittenTwice(Exception):
    """A task wrote one key twice: its writes are applied grouped by key."""


def branch_writes(
    run: RunView, task: Task, writes: Sequence[Write], raw: Any, out: list[Write]
) -> list[Write]:
    """Add the writes of ``task``'s static edges, joins and conditional edges to ``out``
    (the task's writes so far, a list of the caller's) and return it. The path functions
    see ``writes`` (the task's state writes, another list) applied."""
    node = task.node
    out += node.static_writes
    for branch, reader in node.branches:
        result = branch.path(local_state(run, task, writes, raw, reader))
        if type(result) is str:  # a node name seen before: its cached routes (see _routes)
            routes = node.route_cache.get(branch.name, _NO_ROUTES).get(result)
            if routes is not None:
                out.extend(routes)
                continue
        elif type(result) not in PLAIN and inspect.isawaitable(result):
            result = await_sync(result)
        out.extend(_routes(run, task, branch, result))
    return out


async def abranch_writes(
    run: RunView, task: Task, writes: Sequence[Write], raw: Any, out: list[Write]
) -> list[Write]:
    """:func:`branch_writes` on the event loop (async path functions are awaited)."""
    out += task.node.static_writes
    for branch, reader in task.node.branches:
        result = branch.path(local_state(run, task, writes, raw, reader))
        if inspect.isawaitable(result):
            result = await result
        out.extend(_routes(run, task, branch, result))
    return out


def _routes(run: RunView, task: Task, branch: BranchSpec, result: Any) -> Sequence[Write]:
    """The routing writes of a path function's ``result``."""
    target = run.graph.target
    if type(result) is not str:
        return route_writes(branch_destinations(branch, result), target)
    # A node name (or path-map key): its routing writes are the same every time.
    cache = task.node.route_cache.get(branch.name)
    if cache is None:
        cache = task.node.route_cache[branch.name] = {}
    routes = cache.get(result)
    if routes is None:
        routes = cache[result] = tuple(route_writes(branch_destinations(branch, result), target))
    return routes


def local_state(run: RunView, task: Task, writes: Sequence[Write], raw: Any, narrow: Any) -> Any:
    """The state as the branch's reader (``narrow``, else the state's) sees it with only this
    task's own writes applied. The channels made for it are kept on ``task.applied``: a
    step of this one task commits them as they are instead of reducing twice. If this
    fails (a reducer or the schema rejects the writes), the task's writes are dropped."""
    channels, state_keys = run.channels, run.graph.state_keys
    try:
        if task.applied is None:
            # The writes on their own: key -> new value, and key -> a copy of its channel
            # with them applied (for channels a write does not simply replace). Usually each
            # key is written once and applied as it comes (here: a call per branch costs);
            # a key written twice (or a failure) goes to the grouped application, which
            # decides which failure a step reports.
            overrides: dict[str, Any] = {}
            applied: dict[str, BaseChannel] = {}
            try:
                for key, value in writes:
                    if key not in state_keys:
                        continue
                    if key in overrides:
                        raise _WrittenTwice
                    channel = channels[key]
                    if type(channel) in _REPLACING:
                        overrides[key] = value
                    elif type(channel) is BinaryOperatorAggregate:
                        folded = applied[key] = channel.folded(value)
                        overrides[key] = folded.value
                    else:
                        copied = applied[key] = channel.copy()
                        copied.update((value,))
                        overrides[key] = copied.peek()
            except Exception:
                overrides, applied = _grouped_writes(run, writes)
            task.applied = applied
        else:
            overrides = {key: value for key, value in writes if key in state_keys}
            for key, channel in task.applied.items():
                overrides[key] = channel.peek()
        state = (narrow or run.graph.state_reader).read(channels, run.step, run.stop, overrides)
    except Exception:
        task.writes = []
        raise
    if narrow is None and isinstance(raw, dict) and isinstance(state, dict):
        return {**raw, **state}
    return state


def _grouped_writes(
    run: RunView, writes: Sequence[Write]
) -> tuple[dict[str, Any], dict[str, BaseChannel]]:
    channels, state_keys = run.channels, run.graph.state_keys
    grouped: dict[str, list[Any]] = {}
    for key, value in writes:
        if key in state_keys:
            grouped.setdefault(key, []).append(value)
    overrides: dict[str, Any] = {}
    applied: dict[str, BaseChannel] = {}
    for key, values in grouped.items():
        channel = channels[key]
        if len(values) == 1 and type(channel) in _REPLACING:
            overrides[key] = values[0]
        else:
            copied = applied[key] = channel.copy()
            copied.update(values)
            overrides[key] = copied.peek()
    return overrides, applied
