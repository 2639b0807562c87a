"""Sequence matching for diffs: common prefix/suffix at C speed, then a bounded matcher.

Private to :mod:`sgdebug.inspect.diff`. Trimming the common ends first with slice
comparisons (galloping, then bisecting) keeps a one-item append to a 1,000,000-item list,
or a small edit in a 10 MB string, to a few slice compares; only the differing middle goes
through :class:`difflib.SequenceMatcher`, and only when it is small enough.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from sgdebug.inspect.preview import is_message, preview

__all__ = ["MATCH_LIMIT", "Opcode", "common_prefix", "common_suffix", "item_key", "match"]

MATCH_LIMIT: Final = 4000
"""Longest middle (items, or characters / lines for text) that is matched item by item;
above it the middle is reported as one replacement, which is exact but coarse."""
_GALLOP_START: Final = 16
_KEY_WIDTH: Final = 60

Tag = Literal["equal", "insert", "delete", "replace"]
Opcode = tuple[Tag, int, int, int, int]


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many leading items ``a`` and ``b`` share (by ``==``, identity first)."""
    n = min(len(a), len(b))
    lo, step = 0, _GALLOP_START
    while lo < n:
        hi = min(n, lo + step)
        if a[lo:hi] == b[lo:hi]:
            lo, step = hi, step * 2
            continue
        while hi - lo > 1:  # a[lo:hi] differs, a[:lo] is shared
            mid = (lo + hi) // 2
            if a[lo:mid] == b[lo:mid]:
                lo = mid
            else:
                hi = mid
        return lo
    return n


def common_suffix(a: Sequence[Any], b: Sequence[Any], skip: int) -> int:
    """How many trailing items ``a[skip:]`` and ``b[skip:]`` share."""
    la, lb = len(a), len(b)
    n = min(la, lb) - skip
    lo, step = 0, _GALLOP_START
    while lo < n:
        hi = min(n, lo + step)
        if a[la - hi : la - lo] == b[lb - hi : lb - lo]:
            lo, step = hi, step * 2
            continue
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
                lo = mid
            else:
                hi = mid
        return lo
    return n


def item_key(item: Any) -> Any:
    """What list items are matched by: messages by id, hashable values by value, others
    by a bounded preview (a collision only makes the alignment coarser, never wrong)."""
    ident = _message_id(item)
    if ident is not None:
        return ("message", ident)
    try:
        hash(item)
    except TypeError:
        return (type(item).__name__, preview(item, _KEY_WIDTH))
    return (type(item).__name__, item)


def _message_id(item: Any) -> Any:
    if is_message(item):
        return getattr(item, "id", None)
    if isinstance(item, Mapping) and "id" in item and "content" in item:
        ident = item["id"]
        if isinstance(ident, str) and ("role" in item or "type" in item):
            return ident
    return None


def match(a: Sequence[Any], b: Sequence[Any]) -> list[Opcode] | None:
    """Opcodes turning ``a`` into ``b`` (matched by :func:`item_key`), or ``None`` when the
    sequences are too long to match."""
    if len(a) > MATCH_LIMIT or len(b) > MATCH_LIMIT:
        return None
    if isinstance(a, str) and isinstance(b, str):
        keys_a: Sequence[Any] = a
        keys_b: Sequence[Any] = b
    else:
        keys_a, keys_b = [item_key(x) for x in a], [item_key(x) for x in b]
    matcher = difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False)
    return [(tag, i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def match_lines(a: str, b: str) -> list[Opcode] | None:
    """Opcodes between two texts matched line by line, in character offsets."""
    lines_a, lines_b = a.splitlines(keepends=True), b.splitlines(keepends=True)
    if len(lines_a) > MATCH_LIMIT or len(lines_b) > MATCH_LIMIT:
        return None
    matcher = difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False)
    starts_a, starts_b = _offsets(lines_a), _offsets(lines_b)
    return [
        (tag, starts_a[i1], starts_a[i2], starts_b[j1], starts_b[j2])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]


def _offsets(lines: list[str]) -> list[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out
