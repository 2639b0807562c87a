"""Reducer diffs of a superstep's commit, and diffs between two snapshots.

:func:`reducer_diff` explains one :class:`~sgdebug.runtime.CommitRecord`: for every state
channel the commit changed, the old value, each task's write in the order the reducer
applied them, the reducer, the new value and a structural :func:`~sgdebug.inspect.diff.diff`.
:func:`snapshot_diff` compares the values of any two snapshots (what the ``diff`` command
answers) and :func:`snapshot_diff_lines` gives it as signed lines, state keys by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from sgdebug.inspect.diff import Diff, DiffLine, MappingDiff, diff, diff_lines, summary
from sgdebug.inspect.preview import DEFAULT_WIDTH, preview
from sgdebug.runtime import ChannelChange, CommitRecord, StateSnapshot, TaskWrite
from sgdebug.runtime.channels import MISSING, BinaryOperatorAggregate, operator_name
from sgdebug.runtime.channels.binop import overwrite_value

if TYPE_CHECKING:
    from sgdebug.inspect.graph_model import GraphModel

__all__ = [
    "ChannelDiff",
    "SnapshotDiff",
    "StepDiff",
    "WriteRow",
    "is_snapshot",
    "reducer_diff",
    "snapshot_diff",
    "snapshot_diff_lines",
    "stored_commit",
]

_SNAPSHOT_FIELDS: Final = ("values", "next", "config", "metadata")


@dataclass(frozen=True, slots=True)
class WriteRow:
    """One task's write to a channel, in application order."""

    task_id: str
    """The writing task."""
    task_name: str
    """Its node."""
    value: Any
    """What it wrote (an ``Overwrite`` stays wrapped)."""
    preview: str
    """:attr:`value` on one line."""
    overwrite: bool
    """Whether it is an ``Overwrite`` (replaces the value, bypassing the reducer)."""
    superseded: bool
    """Whether it left no trace: before or after an ``Overwrite`` in the same step."""


@dataclass(frozen=True, slots=True)
class ChannelDiff:
    """What one commit did to one channel."""

    channel: str
    """Channel name."""
    kind: str
    """The channel's kind (``reducer add``, ``LastValue``, ``EphemeralValue``...)."""
    reducer: str | None
    """The reducer's function name, for reducer channels."""
    applied: str
    """How the new value came about: ``reducer add``, ``overwrite``, ``last value``,
    ``cleared`` (no writes, value gone) or ``updated``."""
    old: Any
    """Value before the commit (``MISSING`` when empty)."""
    new: Any
    """Value after the commit (``MISSING`` when empty)."""
    old_preview: str
    """:attr:`old` on one line."""
    new_preview: str
    """:attr:`new` on one line."""
    writes: tuple[WriteRow, ...]
    """The writes, in the order they were applied."""
    version: int
    """The channel's version after the commit."""
    diff: Diff
    """Structural diff from :attr:`old` to :attr:`new`."""
    summary: str
    """A few words for :attr:`diff` (``+1 item``, ``+2 items``, ``replaced``)."""


@dataclass(frozen=True, slots=True)
class StepDiff:
    """The effect of one superstep's commit on the state."""

    step: int
    """The committed superstep."""
    tasks: tuple[str, ...]
    """Nodes whose writes were committed, in application order."""
    channels: tuple[ChannelDiff, ...]
    """One entry per changed channel, in schema order."""


@dataclass(frozen=True, slots=True)
class SnapshotDiff:
    """How the state of one snapshot differs from another's."""

    old_id: str | None
    """Checkpoint id of the older side (``None`` for plain values)."""
    new_id: str | None
    """Checkpoint id of the newer side."""
    old_step: int | None
    """Step of the older side."""
    new_step: int | None
    """Step of the newer side."""
    diff: Diff
    """Structural diff of the values (a :class:`MappingDiff` for keyed states)."""
    channels: tuple[str, ...]
    """State keys added, removed or changed."""


def reducer_diff(
    graph: GraphModel,
    record: CommitRecord,
    *,
    internal: bool = False,
    width: int = DEFAULT_WIDTH,
) -> StepDiff:
    """Explain ``record``; internal channels (``branch:to:*``, ``__start__``...) only when
    ``internal``."""
    specs = graph.channel_specs
    changes = [c for c in record.changes if internal or c.channel in graph.state_keys]
    rows = tuple(_channel_diff(c, specs.get(c.channel), width) for c in changes)
    return StepDiff(record.step, tuple(record.tasks), rows)


def _channel_diff(change: ChannelChange, spec: Any, width: int) -> ChannelDiff:
    reducer = None
    if isinstance(spec, BinaryOperatorAggregate):
        reducer = operator_name(spec.operator)
    writes = _writes(change, reducer is not None, width)
    structural = diff(change.old, change.new)
    return ChannelDiff(
        channel=change.channel,
        kind=spec.describe() if spec is not None else "?",
        reducer=reducer,
        applied=_applied(change, reducer, writes),
        old=change.old,
        new=change.new,
        old_preview=preview(change.old, width),
        new_preview=preview(change.new, width),
        writes=writes,
        version=change.version,
        diff=structural,
        summary=summary(structural),
    )


def _writes(change: ChannelChange, reduces: bool, width: int) -> tuple[WriteRow, ...]:
    flags = [reduces and overwrite_value(w.value)[0] for w in change.writes]
    any_overwrite = any(flags)
    return tuple(
        WriteRow(
            w.task_id,
            w.task_name,
            w.value,
            preview(w.value, width),
            flag,
            any_overwrite and not flag,
        )
        for w, flag in zip(change.writes, flags, strict=True)
    )


def _applied(change: ChannelChange, reducer: str | None, writes: tuple[WriteRow, ...]) -> str:
    if not writes:
        return "cleared" if change.new is MISSING else "updated"
    if any(w.overwrite for w in writes):
        return "overwrite"
    if reducer is not None:
        return f"reducer {reducer}"
    return "last value"


def stored_commit(parent: StateSnapshot, child: StateSnapshot) -> CommitRecord | None:
    """The commit that made ``child`` from ``parent``, read back from the snapshots: each
    state key's old and new value and the writes of ``parent``'s tasks (their stored
    results), in the order a commit applies them (by task path). ``None`` unless ``child``
    was made by a step (``loop``) with keyed state on both sides.

    What :func:`reducer_diff` explains for a snapshot the session did not just make (a
    snapshot gone back to, or one of a reopened session).
    """
    if (child.metadata or {}).get("source") != "loop":
        return None
    old, new = parent.values, child.values
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return None
    writes: dict[str, list[TaskWrite]] = {}
    ran = sorted((t for t in parent.tasks if isinstance(t.result, Mapping)), key=_applied_order)
    for task in ran:
        for key, value in cast("Mapping[Any, Any]", task.result).items():
            writes.setdefault(str(key), []).append(TaskWrite(task.id, task.name, value))
    changes = []
    for key in dict.fromkeys([*old, *new, *writes]):
        before, after = old.get(key, MISSING), new.get(key, MISSING)
        if key not in writes and (before is after or _equal(before, after)):
            continue
        changes.append(ChannelChange(str(key), before, tuple(writes.get(key, ())), after, 0))
    step = (child.metadata or {}).get("step")
    names = tuple(dict.fromkeys(t.name for t in ran))
    return CommitRecord(step if isinstance(step, int) else -1, tuple(changes), names)


def _applied_order(task: Any) -> tuple[tuple[int, str], ...]:
    """A task's path as a sort key: numbers as numbers (a commit applies writes by path)."""
    return tuple((0, f"{part:020d}") if isinstance(part, int) else (1, str(part))
                 for part in task.path)  # fmt: skip


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # (a value that cannot be compared counts as changed)
        return False


def snapshot_diff(old: StateSnapshot | Any, new: StateSnapshot | Any) -> SnapshotDiff:
    """Diff the values of two snapshots (or two plain state values)."""
    old_values, old_id, old_step = _side(old)
    new_values, new_id, new_step = _side(new)
    change = diff(old_values, new_values)
    keys: tuple[str, ...] = ()
    if isinstance(change, MappingDiff):
        keys = tuple(
            str(k)
            for k in [
                *(k for k, _ in change.added),
                *(k for k, _ in change.removed),
                *(c.key for c in change.changed),
            ]
        )
    elif change.kind != "same":
        keys = ("__root__",)
    return SnapshotDiff(old_id, new_id, old_step, new_step, change, keys)


def snapshot_diff_lines(
    change: SnapshotDiff, *, width: int = DEFAULT_WIDTH, limit: int = 200
) -> tuple[DiffLine, ...]:
    """``change`` as ``-``/``+`` lines (:func:`~sgdebug.inspect.diff.diff_lines`), each
    state key by its bare name (``count``, ``messages[2].content``), at most ``limit``."""
    root = change.diff
    if not isinstance(root, MappingDiff):
        return diff_lines(root, width=width, limit=limit)
    lines = [DiffLine("-", str(k), preview(v, width)) for k, v in root.removed]
    for item in root.changed:
        lines += diff_lines(item.diff, str(item.key), width=width, limit=limit)
    lines += [DiffLine("+", str(k), preview(v, width)) for k, v in root.added]
    if len(lines) > limit:
        lines[limit:] = [DiffLine("…", "", "more changes not shown")]
    return tuple(lines)


def _side(value: StateSnapshot | Any) -> tuple[Any, str | None, int | None]:
    if is_snapshot(value):
        configurable = (value.config or {}).get("configurable") or {}
        step = (value.metadata or {}).get("step")
        return value.values, configurable.get("checkpoint_id"), step
    return value, None, None


def is_snapshot(value: Any) -> bool:
    """Whether ``value`` is a ``StateSnapshot`` (sgdebug's or LangGraph's)."""
    fields = getattr(value, "_fields", None)
    return isinstance(value, tuple) and isinstance(fields, tuple) and fields[:4] == _SNAPSHOT_FIELDS
