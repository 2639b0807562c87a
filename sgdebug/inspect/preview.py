"""One-line value previews that stay cheap for huge values.

:func:`preview` never calls ``repr()`` on a container or a long string: it walks the value
lazily with a character budget, so a 1,000,000-item list or a 10 MB string previews in
microseconds. Only objects of unknown types fall back to their own ``repr`` (cut to the
budget), because nothing else can describe them.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, Literal

from sgdebug.runtime.channels import MISSING
from sgdebug.runtime.types import Overwrite, Send

__all__ = [
    "DEFAULT_WIDTH",
    "EMPTY",
    "count",
    "field_names",
    "is_message",
    "is_pydantic",
    "message_role",
    "preview",
    "size_of",
    "type_name",
]

DEFAULT_WIDTH: Final = 80
"""Default preview length in characters."""
EMPTY: Final = "<empty>"
"""Preview of an empty channel (``MISSING``)."""
MAX_DEPTH: Final = 3
"""Containers nested deeper than this preview as ``[…]``."""
ELLIPSIS: Final = "…"
_MIN_ITEM: Final = 3
_BIG_INT_BITS: Final = 256
_ID_ROOM: Final = 24


def preview(value: Any, width: int = DEFAULT_WIDTH) -> str:
    """``value`` on one line of at most ``width`` characters (``width`` >= 1).

    Containers show their first items and how many more there are
    (``[0, 1, 2, … 999,997 more]``); strings show their start and length; messages show
    role, content start and id; dataclasses and pydantic models show their fields.
    """
    width = max(1, width)
    return _cut(_render(value, width, 0, top=True), width)


def count(n: int) -> str:
    """``1000000`` -> ``'1,000,000'``."""
    return f"{n:,}"


def type_name(value: Any) -> str:
    """The short type name a view shows (``'empty'`` for ``MISSING``)."""
    if value is MISSING:
        return "empty"
    return type(value).__name__


def size_of(value: Any) -> int | None:
    """The item or character count of a sized container or string, else ``None``."""
    if isinstance(value, (str, bytes, bytearray, list, tuple, dict, set, frozenset, Mapping)):
        return len(value)
    return None


def is_pydantic(value: Any) -> bool:
    """Whether ``value`` is a pydantic model instance (without importing pydantic)."""
    module = sys.modules.get("pydantic")
    return module is not None and isinstance(value, module.BaseModel)


def is_message(value: Any) -> bool:
    """Whether ``value`` is a langchain-core message (without importing langchain-core)."""
    module = sys.modules.get("langchain_core.messages")
    return module is not None and isinstance(value, module.BaseMessage)


def message_role(message: Any) -> str:
    """A message's role as LangChain names it (``human``, ``ai``, ``tool``, ``system``...)."""
    return str(getattr(message, "type", None) or type(message).__name__)


# -- rendering ---------------------------------------------------------------------------


def _cut(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with a trailing ellipsis."""
    if "\n" in text or "\r" in text:
        text = text.replace("\r", " ").replace("\n", " ")
    if len(text) <= limit:
        return text
    kept = text[: max(0, limit - 1)].rstrip(ELLIPSIS)  # never two ellipses in a row
    return kept + ELLIPSIS


def _render(value: Any, limit: int, depth: int, *, top: bool = False) -> str:
    if limit <= 0:
        return ELLIPSIS
    kind = type(value)
    if value is None or kind is bool or kind is float:
        return repr(value)
    if kind is int:
        return _int(value)
    if isinstance(value, str):
        return _text(value, limit, top)
    if isinstance(value, (bytes, bytearray)):
        return _bytes(value, limit)
    if value is MISSING:
        return EMPTY
    special = _special(value, limit, depth)
    if special is not None:
        return special
    return _container(value, limit, depth) or _fallback(value, limit, depth)


def _int(value: int) -> str:
    bits = value.bit_length()
    if bits <= _BIG_INT_BITS:
        return repr(value)
    digits = int(bits * 0.30103) + 1
    return f"<int of ~{count(digits)} digits>"


def _text(value: str, limit: int, top: bool) -> str:
    """A quoted string, cut inside its quotes; long top-level strings show their length."""
    quoted = repr(value[: limit + 1])
    if len(value) <= limit and len(quoted) <= limit:
        return quoted
    quote = quoted[0]
    suffix = f" ({count(len(value))} chars)" if top and len(value) > limit else ""
    if len(suffix) > limit // 2:
        suffix = ""
    room = max(0, limit - len(suffix) - 3)
    return f"{quote}{quoted[1:-1][:room]}{ELLIPSIS}{quote}{suffix}"


def _bytes(value: bytes | bytearray, limit: int) -> str:
    quoted = repr(bytes(value[: limit + 1]))
    prefix = "bytearray(" if isinstance(value, bytearray) else ""
    close = ")" if prefix else ""
    if len(value) <= limit and len(quoted) + len(prefix) + len(close) <= limit:
        return prefix + quoted + close
    room = max(0, limit - 5 - len(prefix) - len(close))
    return f"{prefix}b{quoted[1]}{quoted[2:-1][:room]}{ELLIPSIS}{quoted[1]}{close}"


def _special(value: Any, limit: int, depth: int) -> str | None:
    """Previews of the runtime's own types and of messages; ``None`` for anything else."""
    if isinstance(value, Overwrite):
        return "Overwrite(" + _render(value.value, limit - 11, depth + 1) + ")"
    if isinstance(value, Send):
        node = _text(value.node, max(8, limit // 3), False)
        head = f"Send({node}, "
        return head + _render(value.arg, limit - len(head) - 1, depth + 1) + ")"
    if is_message(value):
        return _message(value, limit, depth)
    return None


def _message(message: Any, limit: int, depth: int) -> str:
    """``ai: 'content start…' → get_weather (id=ai-1)``."""
    role = message_role(message)
    ident = getattr(message, "id", None)
    tail = f" (id={ident})" if ident and limit >= 2 * _ID_ROOM else ""
    if len(tail) > _ID_ROOM:
        tail = tail[: _ID_ROOM - 2] + ELLIPSIS + ")"
    calls = getattr(message, "tool_calls", None) or ()
    names = [str(c.get("name", "?")) if isinstance(c, Mapping) else "?" for c in calls]
    call_text = f"→ {', '.join(names)}" if names else ""
    head = f"{role}: "
    room = limit - len(head) - len(tail) - len(call_text) - 1
    content = getattr(message, "content", "")
    body = _render(content, max(room, 5), depth + 1) if content or not names else ""
    text = " ".join(part for part in (body, call_text) if part)
    return _cut(head + text, max(1, limit - len(tail))) + tail


def _container(value: Any, limit: int, depth: int) -> str | None:
    """Lists, tuples, sets, mappings, dataclasses, pydantic models; ``None`` otherwise."""
    name = type(value).__name__
    if isinstance(value, (list, tuple)):
        fields = getattr(value, "_fields", None)
        if isinstance(value, tuple) and isinstance(fields, tuple):
            pairs = ((str(f), getattr(value, str(f), None)) for f in fields)
            return _items(f"{name}(", ")", pairs, len(fields), (limit, depth, "fields"))
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        if isinstance(value, tuple) and len(value) == 1:
            closing = ",)"
        return _items(opening, closing, iter(value), len(value), (limit, depth, "values"))
    if isinstance(value, (set, frozenset)):
        if not value:
            return f"{name}()"
        opening, closing = ("{", "}") if type(value) is set else (f"{name}({{", "})")
        return _items(opening, closing, iter(value), len(value), (limit, depth, "values"))
    if isinstance(value, Mapping):
        opening, closing = ("{", "}") if type(value) is dict else (f"{name}({{", "})")
        entries = _mapping_pairs(value)
        return _items(opening, closing, entries, len(value), (limit, depth, "mapping"))
    names = field_names(value)
    if names is None:
        return None
    pairs = ((n, getattr(value, n, MISSING)) for n in names)
    return _items(f"{name}(", ")", pairs, len(names), (limit, depth, "fields"))


def field_names(value: Any) -> list[str] | None:
    """The field names of a dataclass or pydantic model instance, else ``None``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [f.name for f in dataclasses.fields(value)]
    if is_pydantic(value):
        return list(type(value).model_fields)
    return None


def _mapping_pairs(value: Mapping[Any, Any]) -> Iterator[tuple[Any, Any]]:
    for key in value:
        yield key, value[key]


Mode = Literal["values", "mapping", "fields"]
"""How items render: bare values, ``key: value`` pairs, or ``name=value`` fields."""


def _items(
    opening: str, closing: str, items: Iterable[Any], total: int, how: tuple[int, int, Mode]
) -> str:
    """``opening item, item, … N more closing`` within the limit of ``how``."""
    limit, depth, mode = how
    if total == 0:
        return opening + closing
    if depth >= MAX_DEPTH:
        return f"{opening}{ELLIPSIS}{closing.lstrip(',')}"
    used = len(opening) + len(closing)
    parts: list[str] = []
    shown = 0
    for item in items:
        sep = ", " if parts else ""
        left = total - shown - 1
        reserve = len(f", {ELLIPSIS} {count(left)} more") if left else 0
        room = limit - used - len(sep) - reserve
        if room < _MIN_ITEM:
            break
        text = _item(item, room, depth, mode)
        parts.append(sep + text)
        used += len(sep) + len(text)
        shown += 1
    rest = total - shown
    more = ""
    if rest:
        more = f"{', ' if parts else ''}{ELLIPSIS} {count(rest)} more"
        if used + len(more) > limit:
            more = ELLIPSIS
    return _cut(opening + "".join(parts) + more + closing, limit)


def _item(item: Any, room: int, depth: int, mode: Mode) -> str:
    if mode == "values":
        return _cut(_render(item, room, depth + 1), room)
    key, value = item
    if mode == "fields":
        head = f"{key}="
    else:  # a key is worth more than its value: whole when ``: …`` still fits after it
        whole = _cut(_render(key, room, depth + 1), room)
        half = max(_MIN_ITEM, room // 2)
        fits = len(whole) <= room - 3
        head = (whole if fits else _cut(_render(key, half, depth + 1), half)) + ": "
    return _cut(head + _render(value, room - len(head), depth + 1), room)


def _fallback(value: Any, limit: int, depth: int) -> str:
    """Objects with a default repr show their attributes; others their own repr, cut."""
    kind = type(value)
    attrs = getattr(value, "__dict__", None)
    default_repr = getattr(kind, "__repr__", None) is object.__repr__
    if default_repr and isinstance(attrs, dict) and attrs:
        pairs = iter(attrs.items())
        return _items(f"{kind.__name__}(", ")", pairs, len(attrs), (limit, depth, "fields"))
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<{kind.__name__} (repr failed: {type(exc).__name__})>"
    return _cut(text, limit)
