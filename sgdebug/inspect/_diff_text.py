"""A diff as signed one-line entries (``-``/``+``), ready for any front end to print."""

from __future__ import annotations

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
from sgdebug.inspect.preview import DEFAULT_WIDTH, count, preview
from sgdebug.runtime.channels import MISSING

__all__ = ["DiffLine", "diff_lines"]

ITEMS_PER_OP: Final = 20
"""Items listed per insert/delete before ``… N more``."""
MAX_LINES: Final = 200
_KEY_WIDTH: Final = 40


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a rendered diff."""

    sign: Literal["-", "+", "…"]
    """``-`` old, ``+`` new, ``…`` lines left out."""
    path: str
    """Where, below the diffed value: ``[2].content``, ``['key']``, ``[10:14]`` (text)."""
    text: str
    """The value (or text slice) on one line."""


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
        text = change.type_name in ("str", "bytes", "bytearray")
        for op in change.ops:
            yield from _text_op(op, path, width) if text else _list_op(op, path, width)
    elif isinstance(change, MappingDiff):
        for key, value in change.removed:
            yield DiffLine("-", _key(path, key), preview(value, width))
        for item in change.changed:
            yield from _lines(item.diff, _key(path, item.key), width)
        for key, value in change.added:
            yield DiffLine("+", _key(path, key), preview(value, width))
    elif isinstance(change, SetDiff):
        for member in change.removed:
            yield DiffLine("-", path, preview(member, width))
        for member in change.added:
            yield DiffLine("+", path, preview(member, width))
    elif isinstance(change, FieldsDiff):
        for item in change.changed:
            yield from _lines(item.diff, f"{path}.{item.key}", width)


def _key(path: str, key: Any) -> str:
    return f"{path}[{preview(key, _KEY_WIDTH)}]"


def _text_op(op: SeqOp, path: str, width: int) -> Iterator[DiffLine]:
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
