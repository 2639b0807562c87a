"""Planning a superstep: which tasks the channels trigger, as free functions over a run's view.

A node has a pulled task when a channel it is triggered by moved past the version the node
last ran on and holds a value; every pending ``Send`` is a pushed task. Only the nodes the
last commit could have triggered are looked at (``GraphPlan.trigger_to_nodes``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from sgdebug.runtime._constants import INTERRUPT, PUSH, START, TASKS
from sgdebug.runtime.channels import MISSING, EphemeralValue, Topic
from sgdebug.runtime.engine._task import Task, TaskIds, make_task
from sgdebug.runtime.graph._policy import with_timeout

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import PendingWrite
    from sgdebug.runtime.engine._view import RunView

__all__ = ["apply_prefill", "plan_tasks", "push_tasks", "stops_at"]

log = logging.getLogger("sgdebug.runtime")
_NO_VERSIONS: dict[str, int] = {}
_NO_HITS: frozenset[str] = frozenset()
_SPECIAL = frozenset(("__error__", "__interrupt__", "__resume__"))
"""Pending writes about a task attempt, not channel writes."""


def push_tasks(run: RunView, ids: TaskIds) -> list[Task]:
    """One task per pending ``Send`` (a send to an unknown node is logged and skipped)."""
    channel = run.channels[TASKS]
    if not channel.is_available():
        return []
    tasks = []
    nodes = run.graph.nodes
    for index, packet in enumerate(channel.get()):
        node = nodes.get(packet.node)
        if node is None:
            log.warning("Ignoring unknown node name %s in pending sends", packet.node)
            continue
        if packet.timeout is not None:  # the Send's own time limit replaces the node's
            node = with_timeout(node, packet.timeout)
        tasks.append(ids.task(node, (PUSH, index, False), packet.arg, (PUSH,)))
    return tasks


def _candidates(run: RunView, add_order: bool, hits: AbstractSet[str]) -> Sequence[str]:
    """The nodes that may have a pulled task: those the last commit triggered (``hits``:
    the trigger channels it moved; every node when it is not known or with ``add_order``)."""
    graph = run.graph
    if add_order:
        return tuple(graph.nodes)
    if run.updated is None:
        return graph.sorted_names
    trigger_map = graph.trigger_to_nodes
    return sorted({n for ch in hits for n in trigger_map[ch]})


def plan_tasks(run: RunView, ids: TaskIds, *, add_order: bool = False) -> list[Task]:
    """The tasks of the run's next step: ``Send`` tasks first (in send order), then pulled
    nodes (by name; with ``add_order``, every node considered in the order it was added):
    those whose triggers moved since they last ran, each with its input read."""
    graph = run.graph
    channels, versions, nodes = run.channels, run.versions, graph.nodes
    sends = channels[TASKS]
    tasks = (
        push_tasks(run, ids)
        if (sends.values if type(sends) is Topic else sends.is_available())
        else []
    )
    all_seen, step, stop, updated = run.versions_seen, run.step, run.stop, run.updated
    hits = _NO_HITS if add_order or updated is None else graph.trigger_keys.intersection(updated)
    names: Sequence[str]
    if len(hits) == 1:  # the usual step: one channel moved triggers its nodes (no call)
        (hit,) = hits
        names = graph.trigger_to_nodes[hit]
    else:
        names = _candidates(run, add_order, hits)
    # (One function for both kinds: a call per step costs more than this loop's setup.)
    for name in names:
        node = nodes[name]
        seen = all_seen.get(name) or _NO_VERSIONS
        for trigger in node.triggers:
            if versions.get(trigger, 0) <= seen.get(trigger, 0):
                continue
            channel = channels[trigger]  # a branch channel's value read directly
            if type(channel) is EphemeralValue:
                if channel.value is MISSING:
                    continue
            elif not channel.is_available():
                continue
            if name == START:
                state = channels[START].get()
            else:
                try:
                    state = node.reader.read(channels, step, stop)
                except Exception as exc:
                    exc.add_note(f"Before task with name '{name}' and path '{node.pull_path}'")
                    raise
            if ids.base is None:  # ids.task(), inlined: the one call of a hot loop
                ids.count += 1
                task = make_task(f"{ids.prefix}{ids.count:012x}", name, node.pull_path, state,
                                 node.triggers, node)  # fmt: skip
            else:
                task = make_task(None, name, node.pull_path, state, node.triggers, node, ids.base)
            tasks.append(task)
            break
    return tasks


def apply_prefill(tasks: Sequence[Task], prefill: Mapping[str, list[PendingWrite]]) -> set[str]:
    """Give tasks the writes a checkpoint recorded for them (their answers to interrupts,
    and their results if they finished); returns the ids of the finished ones."""
    cached: set[str] = set()
    for task in tasks:
        recorded = prefill.get(task.id)
        if not recorded:
            continue
        channels = {w.channel for w in recorded}
        if "__resume__" in channels:
            task.resume = [v for w in recorded if w.channel == "__resume__" for v in w.value]
        regular = [w for w in recorded if w.channel not in _SPECIAL]
        if not regular:
            continue
        task.writes = [(w.channel, w.value) for w in regular if w.channel != "__no_writes__"]
        task.done = True
        cached.add(task.id)
    return cached


def stops_at(run: RunView, nodes: tuple[str, ...] | str, tasks: Sequence[Task]) -> bool:
    """Whether a static breakpoint on ``nodes`` (``"*"``: all) stops before/after ``tasks``:
    one of them is such a node, and a channel moved since the run last stopped."""
    if not nodes:
        return False
    seen: Mapping[str, int] = run.versions_seen.get(INTERRUPT, _NO_VERSIONS)
    if not any(v > seen.get(k, 0) for k, v in run.versions.items()):
        return False
    if nodes == "*":
        return any(t.name != START for t in tasks)
    return any(t.name in nodes for t in tasks)
