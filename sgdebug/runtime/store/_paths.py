"""Which texts of a document semantic search embeds: field paths (``"title"``,
``"meta.author"``, ``"chapters[*].text"``, ``"authors[0].name"``, ``"{title,summary}"``,
``"*"``) split into tokens and followed through the document, as LangGraph's stores do."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["WHOLE", "texts_at", "tokenize_path"]

WHOLE = "$"
"""The path of the whole document (the default field)."""

_CLOSING = {"[": "]", "{": "}"}


def tokenize_path(path: str) -> list[str]:
    """``"a.b[0].{c,d}"`` -> ``["a", "b", "[0]", "{c,d}"]``: dots separate fields, a
    bracketed or braced group (nesting counted) is one token."""
    tokens: list[str] = []
    field = ""
    i = 0
    while i < len(path):
        char = path[i]
        if char in _CLOSING:
            if field:
                tokens.append(field)
                field = ""
            end = _group_end(path, i)
            tokens.append(path[i:end])
            i = end
            continue
        if char == ".":
            if field:
                tokens.append(field)
            field = ""
        else:
            field += char
        i += 1
    if field:
        tokens.append(field)
    return tokens


def _group_end(path: str, start: int) -> int:
    """The index just past the group opened at ``start`` (or the end of ``path``)."""
    opening, closing = path[start], _CLOSING[path[start]]
    depth, i = 1, start + 1
    while i < len(path) and depth:
        depth += (path[i] == opening) - (path[i] == closing)
        i += 1
    return i


def _dumped(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _leaf_text(value: Any) -> list[str]:
    """The text of the value a path ends at: scalars as ``str``, lists and dicts as JSON."""
    if isinstance(value, str | int | float | bool):
        return [str(value)]
    if isinstance(value, list | dict):
        return [_dumped(value)]
    return []


def texts_at(value: Any, path: str | list[str]) -> list[str]:
    """The texts found at ``path`` in ``value`` (``"$"``: the whole document as JSON)."""
    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    if not path or path == WHOLE:
        return [_dumped(value)]
    tokens = tokenize_path(path) if isinstance(path, str) else list(path)
    return _follow(value, tokens)


def _follow(value: Any, tokens: list[str]) -> list[str]:
    if not tokens:
        return _leaf_text(value)
    token, rest = tokens[0], tokens[1:]
    if token.startswith("[") and token.endswith("]"):
        return _indexed(value, token[1:-1], rest)
    if token.startswith("{") and token.endswith("}"):
        return _fields(value, token[1:-1]) if isinstance(value, dict) else []
    if token == "*":
        inner = value.values() if isinstance(value, dict) else value
        if not isinstance(value, dict | list):
            return []
        return [text for item in inner for text in _follow(item, rest)]
    if isinstance(value, dict) and token in value:
        return _follow(value[token], rest)
    return []


def _indexed(value: Any, index: str, rest: list[str]) -> list[str]:
    if not isinstance(value, list):
        return []
    if index == "*":
        return [text for item in value for text in _follow(item, rest)]
    try:
        position = int(index)
    except ValueError:
        return []
    if position < 0:
        position += len(value)
    return _follow(value[position], rest) if 0 <= position < len(value) else []


def _fields(value: dict[str, Any], listed: str) -> list[str]:
    """``{a,b.c}``: the text of each listed field path (dict keys only) that is present."""
    found: list[str] = []
    for field in (f.strip() for f in listed.split(",")):
        tokens = tokenize_path(field)
        if not tokens:
            continue
        current: Any = value
        for token in tokens:
            current = current.get(token) if isinstance(current, dict) else None
            if current is None:
                break
        if current is not None:
            found.extend(_leaf_text(current))
    return found
