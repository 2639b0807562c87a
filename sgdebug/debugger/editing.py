"""Checking a state edit before it is applied: known keys, each channel's verdict (a reducer
that raises on the value), and the pydantic schema's.

An edit that does not fit is refused with the reason (:class:`EditError`) before anything is
written, so a refused edit changes nothing (and never leaves writes a channel rejects in
the history, where LangGraph's ``update_state`` would record them before failing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.evaluation import safe_deepcopy
from sgdebug.inspect import GraphModel
from sgdebug.runtime import Overwrite, reducer_name
from sgdebug.runtime.channels import MISSING, BaseChannel, BinaryOperatorAggregate

__all__ = ["EditError", "as_updates", "check_keys", "replace_write", "validate_edit"]

Write = tuple[str, Any]


class EditError(ValueError):
    """An edit refused before it was applied; ``str()`` says why."""


def check_keys(graph: GraphModel, keys: Sequence[str]) -> None:
    """Refuse keys that are not channels of the state."""
    fields = graph.user_fields
    channels = [k for k, f in fields.items() if isinstance(f, BaseChannel)]
    for key in keys:
        field = fields.get(key)
        if field is None:
            known = ", ".join(channels) or "(none)"
            raise EditError(f"unknown key {key!r}: the state's keys are {known}")
        if not isinstance(field, BaseChannel):
            raise EditError(
                f"{key!r} is a managed value (computed for each step); it cannot be edited"
            )


def as_updates(value: Any) -> dict[str, Any]:
    """The ``update`` argument as a dict of key -> value."""
    if not isinstance(value, Mapping):
        raise EditError(f"update expects a dict of key: value, got {type(value).__name__}")
    bad = [k for k in value if not isinstance(k, str)]
    if bad:
        raise EditError(f"state keys are strings, got {bad[0]!r}")
    return dict(value)


def replace_write(graph: GraphModel, key: str, value: Any) -> Write:
    """The write that replaces ``key``'s value, bypassing its reducer if it has one."""
    channel = graph.channel_specs[key]
    if isinstance(channel, BinaryOperatorAggregate) and not isinstance(value, Overwrite):
        return (key, Overwrite(value))
    return (key, value)


def validate_edit(graph: GraphModel, current: Any, writes: Sequence[Write]) -> None:
    """Refuse writes a channel rejects (its reducer raises on the value), and writes that
    would leave a pydantic state invalid.

    Each write is tried on a copy of the current value. For the schema, only errors the edit
    introduces count: a run whose state is still incomplete (required keys not written yet)
    can be edited.
    """
    values = current if isinstance(current, Mapping) else {"__root__": current}
    tentative = dict(values)
    for key, value in writes:
        tentative[key] = _apply(graph, key, tentative.get(key, MISSING), value)
    schema = graph.state_schema
    if not _is_pydantic_model(schema) or not isinstance(current, Mapping):
        return
    before = {_error_key(e) for e in _errors(schema, current)}
    introduced = [e for e in _errors(schema, tentative) if _error_key(e) not in before]
    if introduced:
        raise EditError("the state schema rejects it: " + "; ".join(map(_describe, introduced)))


def _is_pydantic_model(schema: Any) -> bool:
    """Whether ``schema`` is a pydantic ``BaseModel`` class (by its classes: no import)."""
    return isinstance(schema, type) and any(
        c.__name__ == "BaseModel" and c.__module__.startswith("pydantic") for c in schema.__mro__
    )


def _apply(graph: GraphModel, key: str, old: Any, value: Any) -> Any:
    """``key``'s value once ``value`` is written to it (on copies: nothing is changed)."""
    spec = graph.channel_specs.get(key)
    if not isinstance(spec, BaseChannel):
        return value
    channel = spec.from_checkpoint(safe_deepcopy(old))
    try:
        channel.update([safe_deepcopy(value)])
    except Exception as exc:
        reducer = reducer_name(channel)
        who = f"the reducer of {key!r} ({reducer})" if reducer else f"{key!r}"
        raise EditError(f"{who} rejects it: {type(exc).__name__}: {exc}") from None
    return channel.peek()


def _errors(schema: Any, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    import pydantic

    fields = schema.model_fields
    data = {k: v for k, v in values.items() if k in fields and v is not MISSING}
    try:
        schema.model_validate(data)
    except pydantic.ValidationError as exc:
        return [dict(e) for e in exc.errors()]
    return []


def _error_key(error: Mapping[str, Any]) -> tuple[Any, ...]:
    return (tuple(error.get("loc", ())), error.get("type"))


def _describe(error: Mapping[str, Any]) -> str:
    loc = ".".join(str(p) for p in error.get("loc", ())) or "state"
    text = f"{loc}: {error.get('msg', 'invalid')}"
    if "input" in error:
        text += f" (got {error['input']!r})"
    return text
