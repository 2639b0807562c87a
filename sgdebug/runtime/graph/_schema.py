"""From a state schema to channels: which key is which kind of channel, and how input converts."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, NotRequired, Required, get_origin, get_type_hints

from sgdebug.runtime._constants import ROOT
from sgdebug.runtime.channels import BaseChannel, BinaryOperatorAggregate, LastValue
from sgdebug.runtime.managed import ManagedValue, managed_kind

Field = BaseChannel | type[ManagedValue]
"""What a state key becomes: a channel, or the manager class of a managed value."""


def has_fields(schema: Any) -> bool:
    """Whether ``schema`` is a keyed state (TypedDict, dataclass, pydantic model, ...)."""
    return (isinstance(schema, type) and bool(getattr(schema, "__annotations__", None))) or (
        isinstance(schema, type) and _is_pydantic(schema)
    )


def schema_hints(schema: Any) -> dict[str, Any]:
    """The annotations of every key of ``schema``, with ``Annotated`` extras kept."""
    try:
        hints = get_type_hints(schema, include_extras=True)
    except Exception:
        hints = dict(getattr(schema, "__annotations__", {}))
    return {
        name: hint
        for name, hint in hints.items()
        if name != "__slots__" and get_origin(hint) is not ClassVar and hint is not ClassVar
    }


def fields_of(schema: Any) -> dict[str, Field]:
    """The channel (or managed value) for every key of ``schema``.

    A schema without annotations (``int``, ``Annotated[list, operator.add]``) is one channel
    named ``__root__``.
    """
    if not has_fields(schema):
        return {ROOT: channel_for(ROOT, schema)}
    out: dict[str, Field] = {}
    for name, hint in schema_hints(schema).items():
        manager = managed_kind(hint)
        out[name] = manager if manager is not None else channel_for(name, hint)
    return out


def channel_for(key: str, hint: Any) -> BaseChannel:
    """The channel a single annotation asks for (explicit channel, reducer, or LastValue)."""
    while get_origin(hint) in (Required, NotRequired):
        hint = hint.__args__[0]
    if get_origin(hint) is Annotated:
        inner, meta = hint.__origin__, hint.__metadata__
        for item in meta:
            if isinstance(item, BaseChannel):
                item.key = key
                return item
            if isinstance(item, type) and issubclass(item, BaseChannel):
                channel = item(inner)
                channel.key = key
                return channel
        reducer = meta[-1]
        if callable(reducer):
            params = _positional_params(reducer)
            if params == 2:
                return BinaryOperatorAggregate(hint, reducer, key=key)
            raise ValueError(
                f"Invalid reducer signature. Expected (a, b) -> c. Got {_signature(reducer)}"
            )
    return LastValue(hint, key=key)


def _positional_params(fn: Any) -> int:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError) as exc:  # a builtin such as max: LangGraph raises the same
        exc.add_note(
            f"A reducer must take two arguments, (a, b) -> c, and {fn!r} has no signature "
            "to check; wrap it, e.g. `lambda a, b: max(a, b)`."
        )
        raise
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in kinds for p in params)


def _signature(fn: Any) -> str:
    return str(inspect.signature(fn))  # _positional_params has checked that it has one


def same_field(old: Field, new: Field) -> bool:
    """Whether a second declaration of a key agrees with the first (LangGraph's rule)."""
    if isinstance(old, BinaryOperatorAggregate) and isinstance(new, BinaryOperatorAggregate):
        return (
            old.operator is new.operator
            or _is_lambda(old.operator)
            or _is_lambda(new.operator)
            or old.operator == new.operator
        )
    return type(old) is type(new)


def _is_lambda(fn: Any) -> bool:
    return getattr(fn, "__name__", None) == "<lambda>"


def _is_pydantic(schema: Any) -> bool:
    module = sys.modules.get("pydantic")
    return module is not None and isinstance(schema, type) and issubclass(schema, module.BaseModel)


def is_pydantic_model(schema: Any) -> bool:
    """Whether ``schema`` is a pydantic ``BaseModel`` subclass (without importing pydantic)."""
    return _is_pydantic(schema)


def is_dataclass_type(schema: Any) -> bool:
    """Whether ``schema`` is a dataclass type."""
    return isinstance(schema, type) and dataclasses.is_dataclass(schema)


def coerce_to_schema(schema: Any, values: Mapping[str, Any]) -> Any:
    """Turn a node's input dict into an instance of its dataclass / pydantic schema."""
    if is_dataclass_type(schema) or _is_pydantic(schema):
        return schema(**values)
    return values


def object_writes(obj: Any, keys: Any) -> list[tuple[str, Any]] | None:
    """The writes of an annotated object returned by a node or given as input.

    Dataclasses write every field; pydantic models write fields that are set, not ``None``,
    or whose default is not ``None``. Returns ``None`` for objects that are neither.
    """
    cls = type(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(k, getattr(obj, k)) for k in keys if hasattr(obj, k)]
    if _is_pydantic(cls):
        fields = cls.model_fields
        set_fields = obj.model_fields_set
        out = []
        for k in keys:
            if not hasattr(obj, k):
                continue
            value = getattr(obj, k)
            info = fields.get(k)
            default_not_none = info is not None and info.default is not None
            if value is not None or k in set_fields or default_not_none:
                out.append((k, value))
        return out
    if getattr(cls, "__annotations__", None) and not isinstance(obj, Mapping):
        return [(k, getattr(obj, k)) for k in keys if hasattr(obj, k)]
    return None
