"""Structural diffs of values, and :func:`apply` to replay one.

:func:`diff` compares two values: sequences (lists, tuples, strings, bytes) by a real
sequence diff (items appended, removed, replaced, or changed in place, with messages
matched by id), mappings key by key (recursively), sets by members, dataclasses /
pydantic models / named tuples / messages field by field. Anything else, or two values of
different types, is :class:`Replaced`. ``apply(old, diff(old, new)) == new`` always holds.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from sgdebug.inspect._diff_model import (
    SAME,
    Diff,
    FieldsDiff,
    KeyChange,
    MappingDiff,
    Replaced,
    Same,
    SeqOp,
    SequenceDiff,
    SetDiff,
)
from sgdebug.inspect._diff_text import DiffLine, diff_lines
from sgdebug.inspect._sequence import (
    Opcode,
    common_prefix,
    common_suffix,
    item_key,
    match,
    match_lines,
)
from sgdebug.inspect.preview import field_names, is_message, is_pydantic, preview
from sgdebug.runtime.channels import MISSING

__all__ = [
    "SAME",
    "Diff",
    "DiffLine",
    "FieldsDiff",
    "KeyChange",
    "MappingDiff",
    "Replaced",
    "Same",
    "SeqOp",
    "SequenceDiff",
    "SetDiff",
    "apply",
    "diff",
    "diff_lines",
    "summary",
]

MAX_DEPTH: Final = 40
"""Values nested deeper than this are compared as a whole (:class:`Replaced`)."""
_NEST_TEXT: Final = 40
_PREVIEW: Final = 80


def diff(old: Any, new: Any) -> Diff:
    """How ``new`` differs from ``old`` (``MISSING`` stands for an empty channel)."""
    return _diff(old, new, 0)


def _diff(old: Any, new: Any, depth: int) -> Diff:
    if old is new:
        return SAME
    if type(old) is not type(new) or old is MISSING or new is MISSING:
        return _replaced(old, new)
    if _equal(old, new):
        return SAME
    if depth > MAX_DEPTH:
        return _replaced(old, new)
    if isinstance(old, (str, bytes, bytearray)):
        return _text_diff(old, new)
    if _record_fields(old) is not None:
        return _fields_diff(old, new, depth)
    if isinstance(old, (list, tuple)):
        return _list_diff(old, new, depth)
    if isinstance(old, Mapping):
        return _mapping_diff(old, new, depth)
    if isinstance(old, (set, frozenset)):
        return _set_diff(old, new)
    return _replaced(old, new)


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _replaced(old: Any, new: Any) -> Replaced:
    return Replaced(old, new, preview(old, _PREVIEW), preview(new, _PREVIEW))


def _record_fields(value: Any) -> list[str] | None:
    named = getattr(value, "_fields", None)
    if isinstance(value, tuple) and isinstance(named, tuple):
        return [str(f) for f in named]
    return field_names(value)


# -- sequences -----------------------------------------------------------------------------


def _text_diff(old: Any, new: Any) -> Diff:
    p = common_prefix(old, new)
    s = common_suffix(old, new, p)
    a, b = old[p : len(old) - s], new[p : len(new) - s]
    codes: list[Opcode] | None = None
    if a and b:
        codes = match(a, b)
        if codes is None and isinstance(a, str) and ("\n" in a or "\n" in b):
            codes = match_lines(a, b)
    edits = [
        (i1 + p, i2 + p, j1 + p, j2 + p)
        for tag, i1, i2, j1, j2 in _codes(a, b, codes)
        if tag != "equal"
    ]
    if isinstance(old, str):
        edits = snap_to_words(old, new, edits)
    ops = [SeqOp(_tag(i1, i2, j1, j2), i1, i2, j1, j2, old[i1:i2], new[j1:j2])
           for i1, i2, j1, j2 in edits]  # fmt: skip
    texts = (old, new) if isinstance(old, str) else None
    return SequenceDiff(type(old).__name__, len(old), len(new), tuple(ops), texts)


def _tag(i1: int, i2: int, j1: int, j2: int) -> Literal["insert", "delete", "replace"]:
    return "insert" if i1 == i2 else "delete" if j1 == j2 else "replace"


Span = tuple[int, int, int, int]
"""An edit of a text: ``old[i1:i2]`` becomes ``new[j1:j2]``."""


def snap_to_words(old: str, new: str, edits: Sequence[Span]) -> list[Span]:
    """The edits widened to whole words (``'quick'`` -> ``'slow'``, not ``'qui'`` ->
    ``'sl'``) and merged where they meet; the text between them stays equal."""
    out: list[Span] = []
    for n, span in enumerate(edits):
        high = edits[n + 1][:3:2] if n + 1 < len(edits) else (len(old), len(new))
        while True:  # widening one end may put the other inside a word: until it holds
            i1, j1 = _word_start(old, new, out, span)
            i2, j2 = _word_end(old, new, (i1, span[1], j1, span[3]), high)
            if (i1, i2, j1, j2) == span:
                break
            span = (i1, i2, j1, j2)
        out.append(span)
    return out


def _word_end(old: str, new: str, edit: Span, high: tuple[int, int]) -> tuple[int, int]:
    """Where ``edit`` ends once widened to the end of its word (before ``high``, where
    the next edit starts)."""
    i1, i2, j1, j2 = edit
    while (
        i2 < high[0]
        and j2 < high[1]
        and _word(old[i2])
        and (_word(old, i2 - 1, i2, i1) or _word(new, j2 - 1, j2, j1))
    ):
        i2, j2 = i2 + 1, j2 + 1
    return i2, j2


def _word_start(old: str, new: str, out: list[Span], edit: Span) -> tuple[int, int]:
    """Where ``edit`` starts once widened to the start of its word; an earlier edit it
    then meets is taken off ``out`` and joined to it."""
    i1, i2, j1, j2 = edit
    while True:
        low_i, low_j = (out[-1][1], out[-1][3]) if out else (0, 0)
        while (
            i1 > low_i
            and j1 > low_j
            and _word(old[i1 - 1])
            and (_word(old, i1, i2) or _word(new, j1, j2))
        ):
            i1, j1 = i1 - 1, j1 - 1
        if not out or (i1, j1) != (low_i, low_j):
            return i1, j1
        i1, j1 = out.pop()[::2]  # they meet: one edit, which may start inside a word


def _word(text: str, start: int = 0, end: int | None = None, low: int = 0) -> bool:
    """Whether ``text[start]`` is a word character (with ``end``: and inside ``low:end``)."""
    if end is not None and not low <= start < end:
        return False
    return text[start].isalnum() or text[start] == "_"


def _codes(a: Sequence[Any], b: Sequence[Any], codes: list[Opcode] | None) -> list[Opcode]:
    """The matcher's opcodes, or one edit covering the whole middle."""
    if codes is not None:
        return codes
    if not a and not b:
        return []
    tag: Literal["insert", "delete", "replace"] = (
        "insert" if not a else "delete" if not b else "replace"
    )
    return [(tag, 0, len(a), 0, len(b))]


def _list_diff(old: Sequence[Any], new: Sequence[Any], depth: int) -> SequenceDiff:
    p = common_prefix(old, new)
    s = common_suffix(old, new, p)
    a, b = old[p : len(old) - s], new[p : len(new) - s]
    codes = match(a, b) if a and b else None
    ops: list[SeqOp] = []
    for tag, i1, i2, j1, j2 in _codes(a, b, codes):
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            ops.extend(_pairwise(a, b, (i1, i2, j1), p, depth))
        else:
            ops.append(SeqOp(tag, i1 + p, i2 + p, j1 + p, j2 + p, tuple(a[i1:i2]), tuple(b[j1:j2])))
    return SequenceDiff(type(old).__name__, len(old), len(new), tuple(ops))


def _pairwise(
    a: Sequence[Any], b: Sequence[Any], span: tuple[int, int, int], p: int, depth: int
) -> list[SeqOp]:
    """Edits between items matched one to one: in-place changes, or grouped replacements."""
    i1, i2, j1 = span
    ops: list[SeqOp] = []
    run: list[int] = []  # offsets of a pending group of plain replacements

    def flush() -> None:
        if run:
            lo, hi = run[0], run[-1] + 1
            ops.append(
                SeqOp(
                    "replace",
                    i1 + lo + p,
                    i1 + hi + p,
                    j1 + lo + p,
                    j1 + hi + p,
                    tuple(a[i1 + lo : i1 + hi]),
                    tuple(b[j1 + lo : j1 + hi]),
                )
            )
            run.clear()

    for k in range(i2 - i1):
        x, y = a[i1 + k], b[j1 + k]
        if x is y or _equal(x, y):
            flush()
            continue
        if _nestable(x, y):
            flush()
            i, j = i1 + k + p, j1 + k + p
            ops.append(SeqOp("change", i, i + 1, j, j + 1, (x,), (y,), _diff(x, y, depth + 1)))
        else:
            run.append(k)
    flush()
    return ops


def _nestable(x: Any, y: Any) -> bool:
    """Whether two matched items are better shown as one item changed than as a swap."""
    if type(x) is not type(y):
        return False
    key_x, key_y = item_key(x), item_key(y)
    if key_x[0] == "message" or key_y[0] == "message":
        return bool(key_x == key_y)
    if isinstance(x, (str, bytes)):
        return len(x) > _NEST_TEXT and len(y) > _NEST_TEXT
    return isinstance(x, (list, tuple, Mapping, set, frozenset)) or _record_fields(x) is not None


# -- mappings, sets, records ---------------------------------------------------------------


def _mapping_diff(old: Mapping[Any, Any], new: Mapping[Any, Any], depth: int) -> MappingDiff:
    keys = list(old)
    if keys == list(new):  # same keys in the same order: compare values at C speed
        values_old, values_new = list(old.values()), list(new.values())
        moved = map(operator.is_not, values_old, values_new)
        candidates = itertools.compress(range(len(keys)), moved)
        pairs = ((keys[i], values_old[i], values_new[i]) for i in candidates)
        return MappingDiff(type(old).__name__, (), (), _changed(pairs, depth))
    removed = tuple((k, v) for k, v in old.items() if k not in new)
    added = tuple((k, v) for k, v in new.items() if k not in old)
    common = ((k, v, new[k]) for k, v in old.items() if k in new)
    return MappingDiff(type(old).__name__, added, removed, _changed(common, depth))


def _changed(pairs: Iterable[tuple[Any, Any, Any]], depth: int) -> tuple[KeyChange, ...]:
    return tuple(
        KeyChange(key, _diff(a, b, depth + 1))
        for key, a, b in pairs
        if a is not b and not _equal(a, b)
    )


def _set_diff(old: set[Any] | frozenset[Any], new: set[Any] | frozenset[Any]) -> SetDiff:
    return SetDiff(type(old).__name__, _ordered(new - old), _ordered(old - new))


def _ordered(items: set[Any] | frozenset[Any]) -> tuple[Any, ...]:
    try:
        return tuple(sorted(items))
    except TypeError:
        return tuple(items)


def _fields_diff(old: Any, new: Any, depth: int) -> Diff:
    names = _record_fields(old) or []
    changed = []
    for name in names:
        a, b = getattr(old, name, MISSING), getattr(new, name, MISSING)
        if a is not b and not _equal(a, b):
            changed.append(KeyChange(name, _diff(a, b, depth + 1)))
    if not changed:  # they differ in something the fields do not show
        return _replaced(old, new)
    return FieldsDiff(type(old).__name__, tuple(changed))


# -- apply ---------------------------------------------------------------------------------


def apply(old: Any, change: Diff) -> Any:
    """The value ``change`` turns ``old`` into (a new object; ``old`` is not modified)."""
    if isinstance(change, Same):
        return old
    if isinstance(change, Replaced):
        return change.new
    if isinstance(change, SequenceDiff):
        return _apply_sequence(old, change)
    if isinstance(change, MappingDiff):
        return _apply_mapping(old, change)
    if isinstance(change, SetDiff):
        return type(old)((set(old) - set(change.removed)) | set(change.added))
    return _apply_fields(old, change)


def _apply_mapping(old: Mapping[Any, Any], change: MappingDiff) -> Any:
    # A shallow copy keeps a dict subclass's extras (a defaultdict's factory).
    out: dict[Any, Any] = copy.copy(old) if isinstance(old, dict) else dict(old)
    for key, _ in change.removed:
        del out[key]
    for item in change.changed:
        out[item.key] = apply(out[item.key], item.diff)
    out.update(change.added)
    return out if isinstance(old, dict) else type(old)(out)  # type: ignore[call-arg]


def _apply_sequence(old: Any, change: SequenceDiff) -> Any:
    pieces: list[Any] = []
    pos = 0
    for op in change.ops:
        pieces.append(old[pos : op.old_start])
        if op.tag == "change" and op.change is not None:
            item = apply(old[op.old_start], op.change)
            pieces.append((item,) if isinstance(old, tuple) else [item])
        else:
            pieces.append(op.added if isinstance(old, (str, bytes, bytearray)) else list(op.added))
        pos = op.old_end
    pieces.append(old[pos:])
    if isinstance(old, str):
        return "".join(pieces)
    if isinstance(old, (bytes, bytearray)):
        return type(old)(b"".join(pieces))
    flat = list(itertools.chain.from_iterable(pieces))
    return flat if type(old) is list else _rebuild(old, flat)


def _rebuild(old: Any, items: list[Any]) -> Any:
    if hasattr(old, "_fields"):
        return type(old)(*items)
    return type(old)(items)


def _apply_fields(old: Any, change: FieldsDiff) -> Any:
    updates = {c.key: apply(getattr(old, c.key), c.diff) for c in change.changed}
    if isinstance(old, tuple) and hasattr(old, "_replace"):
        return old._replace(**updates)
    if is_pydantic(old):
        return old.model_copy(update=updates)
    if is_message(old):  # pragma: no cover - messages are pydantic models
        return old.model_copy(update=updates)
    return dataclasses.replace(old, **updates)


# -- summary -------------------------------------------------------------------------------


def summary(change: Diff) -> str:
    """A few words for a diff: ``+2 items``, ``~1 key``, ``replaced``, ``unchanged``."""
    if isinstance(change, Same):
        return "unchanged"
    if isinstance(change, Replaced):
        return "replaced"
    if isinstance(change, SequenceDiff):
        unit = "char" if change.type_name in ("str", "bytes", "bytearray") else "item"
        plus = sum(len(op.added) for op in change.ops if op.tag != "change")
        minus = sum(len(op.removed) for op in change.ops if op.tag != "change")
        changed = sum(1 for op in change.ops if op.tag == "change")
        return _counts(plus, minus, changed, unit)
    if isinstance(change, MappingDiff):
        return _counts(len(change.added), len(change.removed), len(change.changed), "key")
    if isinstance(change, SetDiff):
        return _counts(len(change.added), len(change.removed), 0, "member")
    return _counts(0, 0, len(change.changed), "field")


def _counts(plus: int, minus: int, changed: int, unit: str) -> str:
    """``+2 -1 items``; one count of one is singular (``+1 item``, ``~1 key``)."""
    counts = [(sign, n) for sign, n in (("+", plus), ("-", minus), ("~", changed)) if n]
    plural = "" if [n for _, n in counts] == [1] else "s"
    return " ".join(f"{sign}{n:,}" for sign, n in counts) + f" {unit}{plural}"
