"""Channel table rows: kind, version, last change and a preview for every state key.

The runtime keeps only the last :class:`~sgdebug.runtime.CommitRecord`, so who last wrote a
channel is folded from the records a caller collected (:func:`fold_changes`, and
:func:`fold_edit` for an edit) or read back from a thread's snapshots
(:func:`changes_from_history`). All give :class:`LastChange` tuples that
:func:`channel_rows` and :func:`snapshot_channel_rows` accept; an edit's writer is
:data:`UPDATE_WRITER`, the source the history shows for the snapshot it made.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final, Literal

from sgdebug.inspect.preview import DEFAULT_WIDTH, preview
from sgdebug.runtime import CommitRecord, StateSnapshot
from sgdebug.runtime.channels import (
    MISSING,
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    Topic,
    operator_name,
)
from sgdebug.runtime.managed import ManagedValue

if TYPE_CHECKING:
    from sgdebug.inspect.graph_model import GraphModel
    from sgdebug.runtime import CompiledStateGraph, Run

__all__ = [
    "UPDATE_WRITER",
    "ChannelCategory",
    "ChannelRow",
    "LastChange",
    "changes_from_history",
    "channel_kind",
    "channel_rows",
    "fold_changes",
    "fold_edit",
    "snapshot_changes",
    "snapshot_channel_rows",
]

UPDATE_WRITER: Final = "(update)"
"""Writer name for a change made by ``update_state`` / an edit rather than by a node."""

ChannelCategory = Literal["value", "reducer", "ephemeral", "topic", "managed", "internal"]


@dataclass(frozen=True, slots=True)
class LastChange:
    """The last commit that changed a channel."""

    channel: str
    """Channel name."""
    step: int
    """The superstep whose commit changed it."""
    writers: tuple[str, ...]
    """Nodes whose writes were applied, in order, without repeats (empty: cleared)."""


@dataclass(frozen=True, slots=True)
class ChannelRow:
    """One row of the channel table."""

    name: str
    """The state key (or internal channel name)."""
    kind: str
    """``LastValue``, ``reducer add``, ``EphemeralValue``, ``Topic``, ``managed RemainingSteps``."""
    category: ChannelCategory
    """Coarse kind, for styling."""
    reducer: str | None
    """The reducer function's name for reducer channels."""
    version: int | None
    """The channel's version (``None`` when never written, or unknown for a snapshot)."""
    last_step: int | None
    """The step that last changed it, if known."""
    writers: tuple[str, ...]
    """The nodes that wrote it in that step."""
    value: Any
    """The current value (``MISSING`` when empty; for a managed value, what the next task sees
    or ``MISSING`` when unknown)."""
    preview: str
    """The value on one line."""
    empty: bool
    """Whether the channel holds no value."""
    changed: bool
    """Whether the last commit changed it."""
    in_place: tuple[int, tuple[str, ...]] | None = None
    """(step, nodes) of the latest in-place change of its value found in the run, when
    that is its latest change (the debugger fills it in from the run's mutation reports)."""


def channel_kind(field: BaseChannel | type[ManagedValue] | Any) -> tuple[str, ChannelCategory]:
    """The display kind and category of a channel or managed-value class."""
    if isinstance(field, type) and issubclass(field, ManagedValue):
        name = field.__name__.removesuffix("Manager")
        return f"managed {name}", "managed"
    if not isinstance(field, BaseChannel):
        return type(field).__name__, "value"
    kind = field.describe()
    if isinstance(field, BinaryOperatorAggregate):
        return kind, "reducer"
    if isinstance(field, EphemeralValue):
        return kind, "ephemeral"
    if isinstance(field, Topic):
        return kind, "topic"
    return kind, "value"


def _reducer_name(field: Any) -> str | None:
    if isinstance(field, BinaryOperatorAggregate):
        return operator_name(field.operator)
    return None


# -- who changed what ----------------------------------------------------------------------


def fold_changes(
    records: Iterable[CommitRecord], start: Sequence[LastChange] = ()
) -> tuple[LastChange, ...]:
    """``start`` updated with ``records`` (oldest first): the last change of each channel."""
    last = {c.channel: c for c in start}
    for record in records:
        for change in record.changes:
            writers = tuple(dict.fromkeys(w.task_name for w in change.writes))
            last[change.channel] = LastChange(change.channel, record.step, writers)
    return tuple(last.values())


def fold_edit(
    keys: Iterable[str], step: int, start: Sequence[LastChange] = ()
) -> tuple[LastChange, ...]:
    """``start`` updated with an edit of ``keys`` recorded at ``step`` (the step of the
    ``update`` snapshot it made: ``run.step - 1``), written by :data:`UPDATE_WRITER`."""
    last = {c.channel: c for c in start}
    for key in keys:
        last[key] = LastChange(key, step, (UPDATE_WRITER,))
    return tuple(last.values())


def changes_from_history(path: Sequence[StateSnapshot]) -> tuple[LastChange, ...]:
    """Last changes along ``path``, snapshots from the oldest to the one viewed (see
    :func:`snapshot_changes`; :meth:`HistoryTree.path_to` gives the path of a snapshot)."""
    last: dict[str, LastChange] = {}
    for parent, child in itertools.pairwise(path):
        step = int((child.metadata or {}).get("step", -1))
        for key, writers in snapshot_changes(parent, child):
            last[key] = LastChange(key, step, writers)
    return tuple(last.values())


def snapshot_changes(
    parent: StateSnapshot, child: StateSnapshot
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """What made ``child`` from ``parent``: (key, writers) pairs.

    A ``loop`` snapshot's changes are the results of its parent's finished tasks; an
    ``update`` snapshot's are the keys whose values differ from its parent's, written by
    :data:`UPDATE_WRITER`; an ``input`` or ``fork`` snapshot has none.
    """
    source = (child.metadata or {}).get("source")
    if source == "loop":
        writers: dict[str, list[str]] = {}
        for task in parent.tasks:
            for key in task.result or {}:
                writers.setdefault(key, []).append(task.name)
        return tuple((key, tuple(dict.fromkeys(names))) for key, names in writers.items())
    if source == "update":
        return tuple((key, (UPDATE_WRITER,)) for key in _changed_keys(parent.values, child.values))
    return ()


def _changed_keys(old: Any, new: Any) -> list[str]:
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return [] if old is new or _same(old, new) else ["__root__"]
    keys = list(dict.fromkeys([*old, *new]))
    return [k for k in keys if not _same(old.get(k, MISSING), new.get(k, MISSING))]


def _same(a: Any, b: Any) -> bool:
    try:
        return a is b or bool(a == b)
    except Exception:
        return False


# -- rows ----------------------------------------------------------------------------------


def channel_rows(
    graph: CompiledStateGraph,
    run: Run,
    changes: Sequence[LastChange] = (),
    *,
    internal: bool = False,
    width: int = DEFAULT_WIDTH,
) -> tuple[ChannelRow, ...]:
    """Rows for a live run: state keys in schema order (managed values included), then the
    internal channels when ``internal``. ``changes`` says who last changed what; the run's
    last commit is folded in on top, and the edits made since (:data:`UPDATE_WRITER`
    changes at that commit's step, ``run.step - 1``) on top of it. The rows an edit
    since the last commit changed are the ``changed`` ones, else those the commit changed."""
    record = run.last_commit
    edits = _edits_at(changes, run.step - 1)
    last = _lookup(fold_changes([record] if record else (), changes)) | edits
    changed = set(edits) or ({c.channel for c in record.changes} if record else set())
    rows = []
    for name in _names(graph, internal):
        field = graph.user_fields.get(name, graph.channel_specs.get(name))
        if isinstance(field, type) and issubclass(field, ManagedValue):
            value = field.compute(run.step, run.stop)
        else:
            channel = run.channels.get(name)
            value = channel.peek() if channel is not None else MISSING
        facts = _Facts(run.versions.get(name), last.get(name), name in changed)
        row = _row(name, field, value, facts, width)
        if name not in graph.user_fields:
            row = replace(row, category="internal")
        rows.append(row)
    return tuple(rows)


def snapshot_channel_rows(
    graph: GraphModel,
    snapshot: StateSnapshot,
    changes: Sequence[LastChange] = (),
    *,
    versions: Mapping[str, int] | None = None,
    width: int = DEFAULT_WIDTH,
) -> tuple[ChannelRow, ...]:
    """Rows for a stored snapshot: values from ``snapshot.values``, versions from
    ``versions`` when the engine can read them (the stored checkpoint's); a row is
    ``changed`` when its last change is the snapshot's own step (for an ``update``
    snapshot, when the update changed it)."""
    known = versions or {}
    values = snapshot.values
    step = (snapshot.metadata or {}).get("step")
    last = _lookup(changes)
    edits = _edits_at(changes, step) if isinstance(step, int) else {}
    rows = []
    for name in _names(graph, False):
        field = graph.user_fields[name]
        if isinstance(values, Mapping):
            value = values.get(name, MISSING)
        else:
            value = values if name == "__root__" else MISSING
        change = last.get(name)
        fresh = change is not None and change.step == step and (not edits or name in edits)
        rows.append(_row(name, field, value, _Facts(known.get(name), change, fresh), width))
    return tuple(rows)


def _names(graph: GraphModel | CompiledStateGraph, internal: bool) -> list[str]:
    names = list(graph.user_fields)
    if internal:
        names += [k for k in graph.channel_specs if k not in graph.user_fields]
    return names


def _lookup(changes: Iterable[LastChange]) -> dict[str, LastChange]:
    return {c.channel: c for c in changes}


def _edits_at(changes: Iterable[LastChange], step: int) -> dict[str, LastChange]:
    """The changes an edit made at ``step`` (an edit after step N's commit is at step N)."""
    return {c.channel: c for c in changes if c.step == step and c.writers == (UPDATE_WRITER,)}


@dataclass(frozen=True, slots=True)
class _Facts:
    version: int | None
    change: LastChange | None
    changed: bool


def _row(name: str, field: Any, value: Any, facts: _Facts, width: int) -> ChannelRow:
    kind, category = channel_kind(field)
    change = facts.change
    return ChannelRow(
        name=name,
        kind=kind,
        category=category,
        reducer=_reducer_name(field),
        version=facts.version,
        last_step=change.step if change else None,
        writers=change.writers if change else (),
        value=value,
        preview=preview(value, width),
        empty=value is MISSING,
        changed=facts.changed,
    )
