"""A value as a few lines of text: whole when it is small, else a bounded outline.

:func:`outline` is what text front ends print for ``print`` and ``state``: a small value
pretty-printed whole (as ``pprint`` prints it); a large one as its type and size and one
line per item for the first items (their previews, as the value inspector shows them),
then how many are left. The cost is bounded too: a value is measured by walking at most
:data:`BUDGET` of its parts, and only the items shown are formatted, so a 1,000,000-item
list or a 50 MB string costs what a small value does.
"""

from __future__ import annotations

import pprint
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from sgdebug.inspect.preview import count, field_names, size_of, type_name
from sgdebug.inspect.values import value_tree
from sgdebug.runtime.channels import MISSING

__all__ = ["BUDGET", "ITEMS", "Outline", "outline"]

BUDGET: Final = 4_000
"""A value whose text is longer than about this many characters is outlined."""
ITEMS: Final = 10
"""Items an outline shows."""
_UNITS: Final = {"str": "chars", "bytes": "bytes", "bytearray": "bytes"}


@dataclass(frozen=True, slots=True)
class Outline:
    """A value as lines of text."""

    lines: tuple[str, ...]
    """The text, one line per item (no trailing newline)."""
    whole: bool
    """Whether the lines show all of the value (``False``: an outline; ask for it whole)."""

    @property
    def text(self) -> str:
        """The lines joined."""
        return "\n".join(self.lines)


def outline(value: Any, width: int = 100, items: int = ITEMS) -> Outline:
    """``value`` whole when it is small, else its type, size and first ``items`` items."""
    if _fits(value, BUDGET):
        text = _pformat(value, width)
        if len(text) <= 2 * BUDGET:  # an object whose own repr is long is outlined too
            return Outline(tuple(text.splitlines() or [""]), True)
    root = value_tree(value, width=max(20, width - 8))
    lines = [_heading(value)]
    children = root.children(limit=max(1, items))
    if len(children) == 1 and children[0].kind == "value" and children[0].size == root.size:
        children = ()  # a one-line string: its only "line" is itself
    shown = [c for c in children if c.kind == "value"]
    lines += [f"  {c.label}: {c.preview}" for c in shown] or [f"  {root.preview}"]
    rest = next((c for c in children if c.kind == "more"), None)
    if rest is not None and rest.size is not None:
        lines.append(f"  … {count(rest.size)} more")
    return Outline(tuple(lines), False)


def _pformat(value: Any, width: int) -> str:
    try:
        return pprint.pformat(value, width=width, sort_dicts=False)
    except Exception:
        return object.__repr__(value)


def _heading(value: Any) -> str:
    """``list of 1,000,000 items:``, ``str of 52,428,800 chars:``."""
    kind = type_name(value)
    size = size_of(value)
    if size is None:
        fields = field_names(value)
        return f"{kind} of {count(len(fields))} fields:" if fields else f"{kind}:"
    unit = _UNITS.get(kind, "keys" if isinstance(value, Mapping) else "items")
    if isinstance(value, str) and "\n" in value:
        return f"str of {count(size)} chars, {count(value.count(chr(10)) + 1)} lines:"
    return f"{kind} of {count(size)} {unit}:"


def _fits(value: Any, budget: int) -> bool:
    """Whether ``value``'s text is about ``budget`` characters or less; looks at no more
    than ``budget`` of its parts (each part counts at least one)."""
    stack = [value]
    used = 0
    while stack:
        item = stack.pop()
        used += 1
        if item is MISSING or item is None or isinstance(item, bool | int | float):
            used += 4
        elif isinstance(item, str | bytes | bytearray):
            used += len(item)
        elif isinstance(item, Mapping):
            used += len(item)
            if used <= budget:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            used += len(item)
            if used <= budget:
                stack.extend(item)
        else:
            used += _fields_of(item, stack)
        if used > budget:
            return False
    return True


def _fields_of(item: Any, stack: list[Any]) -> int:
    """Push a dataclass's or pydantic model's field values; the characters of the rest."""
    names = field_names(item)
    if names is None:
        return 16  # an object of its own: its repr is measured after formatting
    stack.extend(getattr(item, name, None) for name in names)
    return sum(len(name) + 2 for name in names)
