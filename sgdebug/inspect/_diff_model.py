"""The data of a structural diff: what :func:`sgdebug.inspect.diff.diff` returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

__all__ = [
    "SAME",
    "Diff",
    "FieldsDiff",
    "KeyChange",
    "MappingDiff",
    "Replaced",
    "Same",
    "SeqOp",
    "SequenceDiff",
    "SetDiff",
]


@dataclass(frozen=True, slots=True)
class Same:
    """The two values are equal."""

    kind: ClassVar[str] = "same"


SAME: Final = Same()


@dataclass(frozen=True, slots=True)
class Replaced:
    """The value was replaced as a whole (different types, or not comparable by parts)."""

    old: Any
    """The old value (``MISSING`` when the channel was empty)."""
    new: Any
    """The new value (``MISSING`` when the channel is now empty)."""
    old_preview: str
    """One-line preview of :attr:`old`."""
    new_preview: str
    """One-line preview of :attr:`new`."""
    kind: ClassVar[str] = "replaced"


@dataclass(frozen=True, slots=True)
class SeqOp:
    """One edit of a sequence: indices are into the old and the new sequence."""

    tag: Literal["insert", "delete", "replace", "change"]
    """``change`` edits one item in place (see :attr:`change`)."""
    old_start: int
    """First old index touched."""
    old_end: int
    """One past the last old index touched."""
    new_start: int
    """First new index."""
    new_end: int
    """One past the last new index."""
    removed: Sequence[Any]
    """The old items ``old[old_start:old_end]`` (a ``str``/``bytes`` for text)."""
    added: Sequence[Any]
    """The new items ``new[new_start:new_end]`` (a ``str``/``bytes`` for text)."""
    change: Diff | None = None
    """For ``change``: the diff of the one item."""


@dataclass(frozen=True, slots=True)
class SequenceDiff:
    """Edits turning one list / tuple / str / bytes into another, in index order."""

    type_name: str
    """``list``, ``tuple``, ``str``, ``bytes``..."""
    old_len: int
    """Length of the old sequence."""
    new_len: int
    """Length of the new sequence."""
    ops: tuple[SeqOp, ...]
    """The edits; the stretches between them are unchanged. For ``str``, each edit covers
    whole words."""
    texts: tuple[str, str] | None = None
    """For ``str``: the old and the new text (for showing an edit among its words)."""
    kind: ClassVar[str] = "sequence"


@dataclass(frozen=True, slots=True)
class KeyChange:
    """A key (or field) present on both sides whose value changed."""

    key: Any
    """The mapping key or field name."""
    diff: Diff
    """How its value changed."""


@dataclass(frozen=True, slots=True)
class MappingDiff:
    """Keys added, removed and changed (recursively)."""

    type_name: str
    """``dict`` or the mapping's type name."""
    added: tuple[tuple[Any, Any], ...]
    """``(key, new value)`` for keys only in the new mapping, in its order."""
    removed: tuple[tuple[Any, Any], ...]
    """``(key, old value)`` for keys only in the old mapping, in its order."""
    changed: tuple[KeyChange, ...]
    """Keys on both sides whose values differ, in the old mapping's order."""
    kind: ClassVar[str] = "mapping"


@dataclass(frozen=True, slots=True)
class SetDiff:
    """Members added and removed."""

    type_name: str
    """``set`` or ``frozenset``."""
    added: tuple[Any, ...]
    """Members only in the new set."""
    removed: tuple[Any, ...]
    """Members only in the old set."""
    kind: ClassVar[str] = "set"


@dataclass(frozen=True, slots=True)
class FieldsDiff:
    """Fields changed in a dataclass, pydantic model, message or named tuple."""

    type_name: str
    """The record's type name (``AIMessage``...)."""
    changed: tuple[KeyChange, ...]
    """The fields whose values differ, in field order."""
    kind: ClassVar[str] = "fields"


Diff = Same | Replaced | SequenceDiff | MappingDiff | SetDiff | FieldsDiff
"""Any diff; dispatch on the class or on its ``kind``."""
