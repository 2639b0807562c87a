"""Applying a step's writes to channels, as free functions: reducers, versions, the record.

:func:`step_writes` groups a step's writes by channel and :func:`apply_writes` folds them
into their channels, moving the versions of the channels that changed; the usual step (one
task that wrote each key once) skips the grouping (:func:`lone_writes`,
:func:`apply_single`, same rules). :func:`clear_unwritten`, :func:`consume_triggers` and
:func:`finish_channels` do the rest of a commit's channel work. A :class:`Moved` collects
which channels' versions moved and which of them now hold a value (those trigger nodes).
:func:`commit_record` describes a commit for pause hooks.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, NamedTuple

from sgdebug.runtime._constants import PULL
from sgdebug.runtime.channels import (
    MISSING,
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
)
from sgdebug.runtime.engine._records import ChannelChange, CommitRecord, TaskWrite

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task

__all__ = [
    "Moved",
    "apply_single",
    "apply_writes",
    "clear_unwritten",
    "commit_record",
    "consume_triggers",
    "finish_channels",
    "lone_writes",
    "step_writes",
]

log = logging.getLogger("sgdebug.runtime")
_NOTHING: frozenset[str] = frozenset()
_new = tuple.__new__


class Moved(NamedTuple):
    """The channels one application of writes moved to ``version``.

    A tuple whose set and list fill up (:meth:`at` makes an empty one): a commit makes
    one per superstep, and a tuple is made without calling Python code.
    """

    versions: dict[str, int]
    """The run's channel versions (moved in place)."""
    version: int
    """The version the moved channels get."""
    updated: set[str]
    """Moved and available: they trigger the nodes they feed."""
    unlisted: list[str]
    """Moved, but empty now (cleared, consumed)."""

    @classmethod
    def at(cls, versions: dict[str, int], version: int) -> Moved:
        """Nothing moved yet; channels that move go to ``version`` in ``versions``."""
        return _new(cls, (versions, version, set(), []))

    def bump(self, key: str, available: bool) -> None:
        """``key``'s channel changed: move its version; ``available``: it holds a value."""
        self.versions[key] = self.version
        if available:
            self.updated.add(key)
        else:
            self.unlisted.append(key)

    def all(self) -> set[str]:
        """Every channel whose version moved."""
        return self.updated.union(self.unlisted) if self.unlisted else self.updated


def step_writes(
    tasks: Sequence[Task],
    channels: Mapping[str, BaseChannel],
    seen: dict[str, dict[str, int]],
    versions: Mapping[str, int],
    owned: bool,
) -> tuple[dict[str, list[Any]], dict[str, list[Task]] | None, AbstractSet[str]]:
    """What a commit applies, in one pass over the step's tasks (in task-path order):

    * the writes by channel, in task order (a write to an unknown channel is logged and
      dropped); with ``owned``, also the task of each write (for the commit record);
    * ``seen`` updated with the trigger versions each pulled task ran on (a new dict per
      node, not an update: saved checkpoints share the one they hold);
    * the channels the pulled tasks consume (barriers they were triggered by).
    """
    grouped: dict[str, list[Any]] = {}
    consumed = _NOTHING  # (a set only for a step that read a barrier)
    for task in tasks:
        if task.path[0] == PULL:
            mark = dict(seen.get(task.name) or ())
            for trigger in task.triggers:
                if trigger in versions:
                    mark[trigger] = versions[trigger]
            seen[task.name] = mark
            if task.node.consumes:
                consumed = consumed.union(task.node.consumes)
        for key, value in task.writes:
            if key not in channels:
                log.warning(
                    "Task %s with path %s wrote to unknown channel %s, ignoring it.",
                    task.name, task.path, key,
                )  # fmt: skip
            elif key in grouped:
                grouped[key].append(value)
            else:
                grouped[key] = [value]
    if not owned:
        return grouped, None, consumed
    owners: dict[str, list[Task]] = defaultdict(list)
    for task in tasks:
        for key, _ in task.writes:
            if key in channels:
                owners[key].append(task)
    return grouped, owners, consumed


def lone_writes(
    task: Task,
    known: frozenset[str],
    seen: dict[str, dict[str, int]],
    versions: Mapping[str, int],
) -> tuple[dict[str, Any], AbstractSet[str]] | None:
    """:func:`step_writes` for a step of ``task`` alone that wrote each key once, to
    ``known`` channels (the usual step): its writes by key, one value each, not grouped
    (see :func:`apply_single`), and the channels it consumes, with ``seen`` updated as
    :func:`step_writes` does. ``None``, and nothing changed, for any other writes."""
    writes = task.writes
    single = dict(writes)
    if len(single) != len(writes) or not known.issuperset(single):
        return None
    if task.path[0] != PULL:
        return single, _NOTHING
    mark = dict(seen.get(task.name) or ())
    for trigger in task.triggers:
        if trigger in versions:
            mark[trigger] = versions[trigger]
    seen[task.name] = mark
    return single, frozenset(task.node.consumes) if task.node.consumes else _NOTHING


def apply_single(
    channels: dict[str, BaseChannel],
    single: Mapping[str, Any],
    moved: Moved,
    applied: Mapping[str, BaseChannel] | None = None,
) -> None:
    """:func:`apply_writes` for one write per key (``single``: key -> its one value, from
    :func:`lone_writes`), by the same rules, without a list per key."""
    versions, version, updated, _ = moved
    for key, value in single.items():
        if applied and key in applied:
            _take_applied(channels, key, applied[key], moved)
            continue
        channel = channels[key]
        if type(channel) is LastValue or type(channel) is EphemeralValue:
            channel.value = value  # the usual write: update(), inlined
            versions[key] = version
            updated.add(key)
        elif channel.update((value,)):
            moved.bump(key, channel.is_available())


def apply_writes(
    channels: dict[str, BaseChannel],
    grouped: Mapping[str, Sequence[Any]],
    moved: Moved,
    applied: Mapping[str, BaseChannel] | None = None,
) -> None:
    """Fold each key's writes (in order) into its channel through its reducer.

    ``applied``: channels that already hold exactly these writes (made for a lone task's
    conditional edges); they replace the live ones instead of reducing twice.
    """
    versions, version, updated, _ = moved
    for key, values in grouped.items():
        if applied and key in applied:
            _take_applied(channels, key, applied[key], moved)
            continue
        channel = channels[key]
        if len(values) == 1 and (type(channel) is LastValue or type(channel) is EphemeralValue):
            channel.value = values[0]  # the usual write: update(), inlined
            versions[key] = version
            updated.add(key)
        elif channel.update(values):
            moved.bump(key, channel.is_available())


def _take_applied(
    channels: dict[str, BaseChannel], key: str, channel: BaseChannel, moved: Moved
) -> None:
    """``channel`` already holds the step's writes to ``key`` (made for a lone task's
    conditional edges): it replaces the live one, and the key moves as a write would."""
    versions, version, updated, unlisted = moved
    channels[key] = channel
    versions[key] = version  # moved.bump(), inlined
    if (
        channel.value is not MISSING
        if type(channel) is BinaryOperatorAggregate
        else channel.is_available()
    ):
        updated.add(key)
    else:
        unlisted.append(key)


def consume_triggers(
    channels: Mapping[str, BaseChannel], keys: Iterable[str], moved: Moved
) -> None:
    """Channels that ran nodes are told so (a barrier resets)."""
    for key in keys:
        if key in channels and channels[key].consume():
            moved.bump(key, False)


def clear_unwritten(
    channels: Mapping[str, BaseChannel],
    dirty: Iterable[str],
    written: Mapping[str, Any],
    moved: Moved,
) -> None:
    """Volatile channels (``dirty``) that were not written this step get an empty update."""
    versions, version = moved.versions, moved.version
    for key in dirty:  # (a fan-out's every branch channel: moved.bump() inlined)
        channel = channels[key]
        if key not in written and channel.update(()):
            versions[key] = version
            if channel.is_available():
                moved.updated.add(key)
            else:
                moved.unlisted.append(key)


def finish_channels(channels: Mapping[str, BaseChannel], moved: Moved) -> None:
    """Nothing would run next: channels that wait for the end (deferred nodes) may fire."""
    for key, channel in channels.items():
        if channel.finish():
            moved.bump(key, True)


def commit_record(
    channels: Mapping[str, BaseChannel],
    versions: Mapping[str, int],
    before: Mapping[str, Any],
    grouped: Mapping[str, Sequence[Any]],
    owners: Mapping[str, Sequence[Task]],
) -> tuple[ChannelChange, ...]:
    """What a commit did to each channel that changed: old value, writes, new value."""
    changes = []
    for key, channel in channels.items():
        new = channel.checkpoint()
        if key not in grouped and new is before[key]:
            continue
        tasks = owners.get(key, ())
        writes = tuple(
            TaskWrite(t.id, t.name, v) for t, v in zip(tasks, grouped.get(key, ()), strict=False)
        )
        changes.append(ChannelChange(key, before[key], writes, new, versions.get(key, 0)))
    return tuple(changes)


def empty_record(step: int) -> CommitRecord:
    """The record of a commit nobody watches (not built: it costs time)."""
    return CommitRecord(step, ())
