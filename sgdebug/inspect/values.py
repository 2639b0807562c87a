"""A lazily expanded tree of a value, for the value inspector.

:func:`value_tree` returns the root :class:`ValueNode`; a node's children are computed only
when :meth:`ValueNode.children` is called, a page at a time, so a 1,000,000-item list
costs one page of work. Each node knows its :class:`PathStep` path from the root, which
:func:`resolve` follows back to the value and :func:`path_expr` prints as Python.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from sgdebug.inspect.preview import (
    DEFAULT_WIDTH,
    count,
    field_names,
    is_message,
    preview,
    size_of,
    type_name,
)
from sgdebug.runtime.channels import MISSING

__all__ = ["PAGE_SIZE", "NodeKind", "PathStep", "ValueNode", "path_expr", "resolve", "value_tree"]

PAGE_SIZE: Final = 100
"""Children computed per :meth:`ValueNode.children` call by default."""
LABEL_WIDTH: Final = 32
"""Longest label (a mapping key's preview)."""
LONG_TEXT: Final = 200
"""Strings longer than this, or with several lines, expand to their lines."""

PathKind = Literal["key", "index", "attr", "member", "line"]
NodeKind = Literal["value", "more"]
_MESSAGE_KEEP: Final = frozenset({"type", "content"})


@dataclass(frozen=True, slots=True)
class PathStep:
    """One step from a value to a child of it."""

    kind: PathKind
    """``key`` (mapping), ``index`` (sequence), ``attr`` (field or attribute), ``member``
    (the n-th item of a set, in iteration order) or ``line`` (the n-th line of a string)."""
    key: Any
    """The key, index, attribute name or position."""


@dataclass(frozen=True, slots=True)
class ValueNode:
    """One node of a value tree; its children are built on demand."""

    label: str
    """What the parent calls it: ``'key'``, ``[3]``, ``content``, or ``…`` for a page marker."""
    type_name: str
    """The value's type name (``empty`` for an empty channel)."""
    preview: str
    """The value on one line (see :func:`~sgdebug.inspect.preview.preview`)."""
    has_children: bool
    """Whether :meth:`children` returns anything."""
    value: Any
    """The value itself (for a ``more`` marker: the container being paged)."""
    path: tuple[PathStep, ...] = ()
    """Steps from the tree's root value to this one."""
    size: int | None = None
    """Item or character count for containers and strings."""
    kind: NodeKind = "value"
    """``more`` marks the rest of a paged container; its children are the next page."""
    start: int = 0
    """For a ``more`` marker: the index its page starts at."""
    width: int = DEFAULT_WIDTH
    """Preview width of this node and its children."""

    def children(self, limit: int = PAGE_SIZE) -> tuple[ValueNode, ...]:
        """Up to ``limit`` children, then a ``more`` marker if any are left."""
        if not self.has_children:
            return ()
        start = self.start if self.kind == "more" else 0
        return _page(self.value, self.path, (start, max(1, limit)), self.width)


def value_tree(value: Any, label: str = "value", width: int = DEFAULT_WIDTH) -> ValueNode:
    """The root node of ``value``'s tree."""
    return _node(label, value, (), width)


def resolve(value: Any, path: tuple[PathStep, ...]) -> Any:
    """The value at ``path`` below ``value`` (raises ``LookupError`` if it is gone)."""
    for step in path:
        if step.kind in ("key", "index"):
            value = value[step.key]
        elif step.kind == "attr":
            try:
                value = getattr(value, step.key)
            except AttributeError as exc:
                raise LookupError(str(exc)) from exc
        elif step.kind == "member":
            value = _nth(iter(value), step.key)
        else:
            value = _nth(_lines(value), step.key)
    return value


def path_expr(path: tuple[PathStep, ...], root: str = "state") -> str:
    """``path`` as a Python expression on ``root``: ``state['messages'][2].content``."""
    out = [root]
    for step in path:
        if step.kind in ("key", "index"):
            out.append(f"[{step.key!r}]")
        elif step.kind == "attr":
            out.append(f".{step.key}")
        elif step.kind == "member":
            out.append(f"  # member {step.key}")
            break
        else:
            out.append(f".splitlines()[{step.key}]")
    return "".join(out)


# -- building nodes ------------------------------------------------------------------------


def _node(
    label: str, value: Any, path: tuple[PathStep, ...], width: int = DEFAULT_WIDTH
) -> ValueNode:
    return ValueNode(
        label=label,
        type_name=type_name(value),
        preview=preview(value, width),
        has_children=_expandable(value),
        value=value,
        path=path,
        size=size_of(value),
        width=width,
    )


def _expandable(value: Any) -> bool:
    if value is MISSING:
        return False
    if isinstance(value, str):
        return len(value) > LONG_TEXT or "\n" in value
    if isinstance(value, (bytes, bytearray)):
        return False
    if isinstance(value, (list, tuple, set, frozenset, Mapping)):
        return len(value) > 0
    names = _fields(value)
    return bool(names)


def _fields(value: Any) -> list[str] | None:
    """Field names a node shows for a record-like value (messages: the non-empty ones)."""
    named = getattr(value, "_fields", None)
    if isinstance(value, tuple) and isinstance(named, tuple):
        return [str(f) for f in named]
    names = field_names(value)
    if names is not None:
        if is_message(value):
            return [n for n in names if n in _MESSAGE_KEEP or getattr(value, n, None)]
        return names
    attrs = getattr(value, "__dict__", None)
    if getattr(type(value), "__repr__", None) is object.__repr__ and isinstance(attrs, dict):
        return [str(k) for k in attrs]
    return None


def _page(
    value: Any, path: tuple[PathStep, ...], span: tuple[int, int], width: int
) -> tuple[ValueNode, ...]:
    start, limit = span
    entries, total = _entries(value, start)
    nodes = [
        _node(label, child, (*path, step), width)
        for label, step, child in itertools.islice(entries, limit)
    ]
    end = start + len(nodes)
    if end < total:
        rest = total - end
        nodes.append(
            ValueNode(
                label="…",
                type_name=type_name(value),
                preview=f"{count(rest)} more",
                has_children=True,
                value=value,
                path=path,
                size=rest,
                kind="more",
                start=end,
                width=width,
            )
        )
    return tuple(nodes)


Entry = tuple[str, PathStep, Any]


def _entries(value: Any, start: int) -> tuple[Iterator[Entry], int]:
    """The children of ``value`` from ``start`` on, and how many there are in all."""
    if isinstance(value, str):
        lines = enumerate(itertools.islice(_lines(value), start, None), start)
        total = value.count("\n") + 1
        return ((f"line {i}", PathStep("line", i), line) for i, line in lines), total
    if isinstance(value, Mapping):
        keys = itertools.islice(iter(value), start, None)
        return ((preview(k, LABEL_WIDTH), PathStep("key", k), value[k]) for k in keys), len(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        indexed = enumerate(itertools.islice(value, start, None), start)
        return ((f"[{i}]", PathStep("index", i), v) for i, v in indexed), len(value)
    if isinstance(value, (set, frozenset)):
        members = enumerate(itertools.islice(value, start, None), start)
        return ((f"{{{i}}}", PathStep("member", i), v) for i, v in members), len(value)
    names = _fields(value) or []
    return (
        (name, PathStep("attr", name), getattr(value, name, MISSING)) for name in names[start:]
    ), len(names)


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` without splitting it all at once."""
    begin = 0
    while True:
        end = text.find("\n", begin)
        if end < 0:
            yield text[begin:]
            return
        yield text[begin:end]
        begin = end + 1


def _nth(items: Iterator[Any], n: int) -> Any:
    for item in itertools.islice(items, n, None):
        return item
    raise LookupError(n)
