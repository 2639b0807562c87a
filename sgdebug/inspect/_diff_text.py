"""A diff as signed one-line entries (``-``/``+``), ready for any front end to print."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from sgdebug.inspect._diff_model import (
    Diff,
    FieldsDiff,
    MappingDiff,
    Replaced,
    SeqOp,
    SequenceDiff,
    SetDiff,
)
from sgdebug.inspect.preview import DEFAULT_WIDTH, ELLIPSIS, count, preview
from sgdebug.runtime.channels import MISSING

__all__ = ["DiffLine", "diff_lines"]

ITEMS_PER_OP: Final = 20
"""Items listed per insert/delete before ``… N more``."""
MAX_LINES: Final = 200
_KEY_WIDTH: Final = 40
_CONTEXT_WORDS: Final = 3
"""Words shown either side of a text edit too long to show whole."""
_WORDS: Final = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a rendered diff."""

    sign: Literal["-", "+", "…"]
    """``-`` old, ``+`` new, ``…`` lines left out."""
    path: str
    """Where, below the diffed value: ``[2].content``, ``['key']``, ``[10:14]`` (bytes)."""
    text: str
    """The value on one line (a text edit among its words: ``'…brown fox jumps…'``)."""


def diff_lines(
    change: Diff, path: str = "", *, width: int = DEFAULT_WIDTH, limit: int = MAX_LINES
) -> tuple[DiffLine, ...]:
    """``change`` as ``-``/``+`` lines, at most ``limit`` (then one ``…`` line)."""
    out: list[DiffLine] = []
    for line in _lines(change, path, width):
        if len(out) >= limit:
            out.append(DiffLine("…", path, "more changes not shown"))
            break
        out.append(line)
    return tuple(out)


def _lines(change: Diff, path: str, width: int) -> Iterator[DiffLine]:
    if isinstance(change, Replaced):
        if change.old is not MISSING:
            yield DiffLine("-", path, preview(change.old, width))
        if change.new is not MISSING:
            yield DiffLine("+", path, preview(change.new, width))
    elif isinstance(change, SequenceDiff):
        yield from _sequence_lines(change, path, width)
    elif isinstance(change, MappingDiff):
        yield from _mapping_lines(change, path, width)
    elif isinstance(change, SetDiff):
        for member in change.removed:
            yield DiffLine("-", path, preview(member, width))
        for member in change.added:
            yield DiffLine("+", path, preview(member, width))
    elif isinstance(change, FieldsDiff):
        for item in change.changed:
            yield from _lines(item.diff, f"{path}.{item.key}", width)


def _sequence_lines(change: SequenceDiff, path: str, width: int) -> Iterator[DiffLine]:
    if change.texts is not None:
        yield from _text_lines(change.texts, change.ops, path, width)
        return
    text = change.type_name in ("bytes", "bytearray")
    for op in change.ops:
        yield from _bytes_op(op, path, width) if text else _list_op(op, path, width)


def _mapping_lines(change: MappingDiff, path: str, width: int) -> Iterator[DiffLine]:
    for key, value in change.removed:
        yield DiffLine("-", _key(path, key), preview(value, width))
    for item in change.changed:
        yield from _lines(item.diff, _key(path, item.key), width)
    for key, value in change.added:
        yield DiffLine("+", _key(path, key), preview(value, width))


def _key(path: str, key: Any) -> str:
    return f"{path}[{preview(key, _KEY_WIDTH)}]"


def _text_lines(
    texts: tuple[str, str], ops: Sequence[SeqOp], path: str, width: int
) -> Iterator[DiffLine]:
    """Old and new whole when both fit on a line; else each edit among its words."""
    old, new = texts
    if len(repr(old)) <= width and len(repr(new)) <= width:
        yield DiffLine("-", path, repr(old))
        yield DiffLine("+", path, repr(new))
        return
    for op in ops:
        if op.removed:
            yield DiffLine("-", path, _among_words(old, op.old_start, op.old_end, width))
        if op.added:
            yield DiffLine("+", path, _among_words(new, op.new_start, op.new_end, width))


def _among_words(text: str, start: int, end: int, width: int) -> str:
    """``text[start:end]`` quoted with up to three words either side (fewer when the line
    would be too long), ``…`` where the text goes on."""
    for words in range(_CONTEXT_WORDS, -1, -1):
        quoted = _excerpt(text, start, end, words)
        if len(quoted) <= width:
            return quoted
    return quoted[: max(1, width - 2)] + ELLIPSIS + quoted[-1]


def _excerpt(text: str, start: int, end: int, words: int) -> str:
    before = [m.start() for m in _WORDS.finditer(text, 0, start)][-words:] if words else []
    first = before[0] if before else start
    if not text[:first].strip():
        first = 0
    last = end
    for match in itertools.islice(_WORDS.finditer(text, end), words):
        last = match.end()
    if not text[last:].strip():
        last = len(text)
    quoted = repr(text[first:last])
    if first > 0:
        quoted = quoted[0] + ELLIPSIS + quoted[1:]
    if last < len(text):
        quoted = quoted[:-1] + ELLIPSIS + quoted[-1]
    return quoted


def _bytes_op(op: SeqOp, path: str, width: int) -> Iterator[DiffLine]:
    if op.removed:
        yield DiffLine("-", f"{path}[{op.old_start}:{op.old_end}]", preview(op.removed, width))
    if op.added:
        yield DiffLine("+", f"{path}[{op.new_start}:{op.new_end}]", preview(op.added, width))


def _list_op(op: SeqOp, path: str, width: int) -> Iterator[DiffLine]:
    if op.tag == "change" and op.change is not None:
        yield from _lines(op.change, f"{path}[{op.new_start}]", width)
        return
    yield from _items("-", op.removed, op.old_start, path, width)
    yield from _items("+", op.added, op.new_start, path, width)


def _items(
    sign: Literal["-", "+"], items: Sequence[Any], start: int, path: str, width: int
) -> Iterator[DiffLine]:
    for offset, item in enumerate(items[:ITEMS_PER_OP]):
        yield DiffLine(sign, f"{path}[{start + offset}]", preview(item, width))
    if len(items) > ITEMS_PER_OP:
        rest = len(items) - ITEMS_PER_OP
        yield DiffLine(sign, f"{path}[{start + ITEMS_PER_OP}:]", f"… {count(rest)} more")
