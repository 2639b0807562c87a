"""The graph's channel layout, kept in a session file to notice when the graph changed.

A session file's history was made by the graph as it was then. Reopened with a changed
graph (a key added or removed, a reducer changed), the session keeps working where it can
(stored values of removed keys are ignored, new keys start empty) and says so once, on
open: :func:`layout_notes` names the keys that differ.
"""

from __future__ import annotations

from collections.abc import Mapping

from sgdebug.inspect import GraphModel
from sgdebug.runtime import reducer_name
from sgdebug.runtime.channels import BaseChannel

__all__ = ["channel_layout", "layout_notes"]


def channel_layout(model: GraphModel) -> dict[str, str]:
    """Each state key and how it merges writes: ``LastValue``,
    ``BinaryOperatorAggregate(operator.add)``, ``managed RemainingSteps``, ..."""
    layout: dict[str, str] = {}
    for key, field in model.user_fields.items():
        if isinstance(field, BaseChannel):
            reducer = reducer_name(field)
            kind = type(field).__name__
            layout[key] = f"{kind}({reducer})" if reducer else kind
        else:
            layout[key] = f"managed {getattr(field, '__name__', type(field).__name__)}"
    return layout


def layout_notes(saved: Mapping[str, str], current: Mapping[str, str]) -> tuple[str, ...]:
    """What differs between the layout a session was saved with and the graph's now (one
    note; none when they are the same)."""
    added = [k for k in current if k not in saved]
    removed = [k for k in saved if k not in current]
    changed = [f"{k!r} ({saved[k]} -> {current[k]})"
               for k in current if k in saved and saved[k] != current[k]]  # fmt: skip
    parts = []
    if added:
        parts.append("added " + ", ".join(map(repr, added)))
    if removed:
        parts.append("removed " + ", ".join(map(repr, removed)) + " (stored values ignored)")
    if changed:
        parts.append("changed " + ", ".join(changed))
    if not parts:
        return ()
    return (
        "note: the graph's state changed since this session was saved: "
        + "; ".join(parts)
        + ". The history was made by the old graph; `restart` runs the new one.",
    )
