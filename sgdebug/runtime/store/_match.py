"""Which items a search keeps (``filter=``) and which namespaces a listing keeps
(prefix/suffix patterns), as LangGraph's in-memory store decides: pure functions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sgdebug.runtime.store._ops import MatchCondition

__all__ = ["matches_filter", "namespace_matches"]


def _as_number(value: Any) -> float:
    return float(value)


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda value, wanted: bool(value == wanted),
    "$ne": lambda value, wanted: bool(value != wanted),
    "$gt": lambda value, wanted: _as_number(value) > _as_number(wanted),
    "$gte": lambda value, wanted: _as_number(value) >= _as_number(wanted),
    "$lt": lambda value, wanted: _as_number(value) < _as_number(wanted),
    "$lte": lambda value, wanted: _as_number(value) <= _as_number(wanted),
}


def _compare(value: Any, wanted: Any) -> bool:
    """Whether a stored ``value`` matches ``wanted``: a dict with ``$`` keys applies those
    operators, another dict matches key by key, a list element by element, else ``==``."""
    if isinstance(wanted, dict):
        if any(key.startswith("$") for key in wanted):
            return all(_apply(value, op, operand) for op, operand in wanted.items())
        if not isinstance(value, dict):
            return False
        return all(_compare(value.get(key), sub) for key, sub in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(_compare(v, w) for v, w in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def _apply(value: Any, operator: str, operand: Any) -> bool:
    compare = _OPERATORS.get(operator)
    if compare is None:
        raise ValueError(f"Unsupported operator: {operator}")
    return compare(value, operand)


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value matches every key of a search's ``filter``."""
    if not filter:
        return True
    return all(_compare(value.get(key), wanted) for key, wanted in filter.items())


def _labels_match(labels: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    return all(want == "*" or have == want for have, want in zip(labels, pattern, strict=False))


def namespace_matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether ``namespace`` starts (``prefix``) or ends (``suffix``) with the condition's
    labels, ``"*"`` matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        return _labels_match(namespace, path)
    if condition.match_type == "suffix":
        return _labels_match(namespace[::-1], path[::-1])
    raise ValueError(f"Unsupported match type: {condition.match_type}")
