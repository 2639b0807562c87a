"""Encoding for :mod:`sgdebug.runtime.checkpoint.serde`: a value to tagged, deterministic JSON."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime as dt
import gc
import json
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import Any, Final

from sgdebug.runtime.checkpoint._serde_lookup import class_info

__all__ = ["SerializationError", "Unresolved", "dumps", "gc_paused"]

Node = Any
"""A JSON-ready tree: dict, list, str, int, float, bool or None."""

_HINT: Final = (
    "supported: JSON types, bytes, tuples, sets, datetimes, Decimal, UUID, enums, "
    "dataclasses, pydantic models, named tuples"
)
_INT_MAX: Final = 10**4000  # larger ints are stored as hex (json's int/str digit limit)
_ATOMS: Final = frozenset({str, bool, type(None)})
_JSON: Final = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)
_JSON_ASCII: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


class SerializationError(TypeError):
    """A value cannot be stored; the message names the channel, the path and the type."""

    def __init__(self, message: str, *, channel: str | None, path: str, type_name: str) -> None:
        super().__init__(message)
        self.channel = channel
        self.path = path
        self.type_name = type_name


@dataclasses.dataclass(frozen=True, eq=False)
class Unresolved:
    """A stored object whose class is not available; ``dumps`` writes it back unchanged."""

    type: str
    """Dotted name of the missing class, e.g. ``"pkg.mod.Cls"``."""
    data: Any
    """The stored payload: a dict of field values, or an enum member's value."""
    reason: str
    """Why the class was not used."""
    kind: str = dataclasses.field(default="dc", repr=False)
    """The format tag (``dc``, ``pyd``, ``nt``, ``e`` or ``o``)."""
    ref: str = dataclasses.field(default="", repr=False)
    """``module:qualname`` as stored."""
    meta: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    """Other stored keys (an enum member's name, a model's fields-set)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unresolved) and dumps(self) == dumps(other)

    def __hash__(self) -> int:
        return hash(dumps(self))


class _Fail(Exception):
    """Internal: carries the offending value and its path out of the recursion."""

    def __init__(self, value: object, problem: str) -> None:
        super().__init__(problem)
        self.value = value
        self.problem = problem
        self.path: list[str] = []


_CYCLE: Final = "refers back to a container that holds it (reference cycle)"


def dumps(value: Any, *, channel: str | None = None) -> bytes:
    """Encode ``value``; raise :class:`SerializationError` if it cannot be stored."""
    with gc_paused():
        return _dumps(value, channel)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC: building a large acyclic tree otherwise triggers full collections
    over the whole heap (this halves the time for 100k small dicts)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _dumps(value: Any, channel: str | None) -> bytes:
    try:
        node = _enc(value, set())
    except _Fail as fail:
        raise _error(fail, channel) from None
    except RecursionError:
        where = f"cannot store channel {channel!r}" if channel is not None else "cannot serialise"
        raise SerializationError(
            f"{where}: value is nested too deeply", channel=channel, path="", type_name=""
        ) from None
    try:
        return _JSON.encode(node).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: fall back to \\u escapes
        return _JSON_ASCII.encode(node).encode("ascii")


def _error(fail: _Fail, channel: str | None) -> SerializationError:
    t = type(fail.value)
    name = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    path = "".join(reversed(fail.path))
    where = f"cannot store channel {channel!r}" if channel is not None else "cannot serialise"
    subject = f"value at {channel or ''}{path}" if path else "value"
    message = f"{where}: {subject} of type {name!r} {fail.problem}"
    return SerializationError(message, channel=channel, path=path, type_name=name)


def _enc(v: Any, active: set[int]) -> Node:
    t = type(v)
    if t is str or t is bool or v is None:
        return v
    if t is int:
        return v if -_INT_MAX < v < _INT_MAX else {"$": "i", "v": hex(v)}
    if t is float:
        return v if v - v == 0.0 else {"$": "f", "v": repr(v)}
    if t is dict:
        return _enc_dict(v, active)
    if t is list:
        return _enc_seq(v, active)
    simple = _SIMPLE.get(t)
    if simple is not None:
        return simple(v)
    if t is tuple:
        return {"$": "t", "v": _enc_seq(v, active)}
    if t is set or t is frozenset:
        return _enc_set(v, active)
    return _enc_object(v, t, active)


def _enter(v: object, active: set[int]) -> int:
    key = id(v)
    if key in active:
        raise _Fail(v, _CYCLE)
    active.add(key)
    return key


def _enc_dict(v: dict[Any, Any], active: set[int]) -> Node:
    key = _enter(v, active)
    out: dict[str, Node] = {}
    if "$" not in v:
        try:
            for k, x in v.items():
                if type(k) is not str:
                    break
                out[k] = x if type(x) in _ATOMS else _enc(x, active)
            else:
                active.discard(key)
                return out
        except _Fail as fail:
            fail.path.append(f"[{k!r}]")
            raise
    active.discard(key)
    return {"$": "d", "v": _enc_pairs(v, active)}


def _enc_pairs(v: dict[Any, Any], active: set[int]) -> Node:
    key = _enter(v, active)
    out: list[Node] = []
    for i, (k, x) in enumerate(v.items()):
        try:
            ek = _enc(k, active)
        except _Fail as fail:
            fail.path.append(f"[<key #{i}>]")
            raise
        try:
            out.append([ek, _enc(x, active)])
        except _Fail as fail:
            fail.path.append(f"[{k!r}]")
            raise
    active.discard(key)
    return out


def _enc_seq(v: list[Any] | tuple[Any, ...], active: set[int]) -> list[Node]:
    key = _enter(v, active)
    out: list[Node] = []
    append = out.append
    try:
        for x in v:
            append(x if type(x) in _ATOMS else _enc(x, active))
    except _Fail as fail:
        fail.path.append(f"[{len(out)}]")
        raise
    active.discard(key)
    return out


def _enc_set(v: set[Any] | frozenset[Any], active: set[int]) -> Node:
    key = _enter(v, active)
    try:
        items = [_enc(x, active) for x in v]
    except _Fail as fail:
        fail.path.append("{...}")
        raise
    active.discard(key)
    items.sort(key=_JSON_ASCII.encode)
    return {"$": "s" if type(v) is set else "fs", "v": items}


def _enc_fields(v: object, names: tuple[str, ...], active: set[int]) -> dict[str, Node]:
    key = _enter(v, active)
    out: dict[str, Node] = {}
    try:
        for name in names:
            try:
                x = getattr(v, name)
            except AttributeError:
                continue  # an unset field: stored without it, loads as Unresolved
            out[name] = _enc(x, active)
    except _Fail as fail:
        fail.path.append(f".{name}")
        raise
    active.discard(key)
    return out


def _enc_object(v: Any, t: Any, active: set[int]) -> Node:
    if t is Unresolved:
        meta = {k: _enc(x, active) for k, x in v.meta.items()}
        return {"$": v.kind, "c": v.ref, **meta, "v": _enc(v.data, active)}
    ref, kind, names = class_info(t)
    if kind is None:
        raise _Fail(v, f"is not serialisable ({_HINT})")
    if kind == "e":
        try:
            return {"$": "e", "c": ref, "n": v.name, "v": _enc(v.value, active)}
        except _Fail as fail:
            fail.path.append(".value")
            raise
    if kind != "pyd":
        return {"$": kind, "c": ref, "v": _enc_fields(v, names, active)}
    node: dict[str, Node] = {"$": "pyd", "c": ref, "fs": sorted(v.__pydantic_fields_set__)}
    if v.__pydantic_extra__:
        node["x"] = _enc(v.__pydantic_extra__, active)
    if getattr(v, "__pydantic_private__", None) is not None:  # {} and None compare unequal
        node["p"] = _enc(v.__pydantic_private__, active)
    node["v"] = _enc_fields(v, names, active)
    return node


def _enc_tz(tz: dt.tzinfo, at: dt.datetime | None) -> Node:
    zoneinfo = sys.modules.get("zoneinfo")
    key = getattr(tz, "key", None)
    if zoneinfo is not None and type(tz) is zoneinfo.ZoneInfo and key is not None:
        return ["z", key]
    offset = tz.utcoffset(at)
    if offset is None:
        raise _Fail(tz, f"has no UTC offset ({_HINT})")
    name = tz.tzname(at)
    micros = offset // dt.timedelta(microseconds=1)
    return ["o", micros] if name == dt.timezone(offset).tzname(None) else ["o", micros, name]


def _enc_clock(v: dt.datetime | dt.time) -> Node:
    tag = "dt" if type(v) is dt.datetime else "time"
    node: dict[str, Node] = {"$": tag, "v": v.replace(tzinfo=None).isoformat()}
    if v.tzinfo is not None:
        node["tz"] = _enc_tz(v.tzinfo, v if isinstance(v, dt.datetime) else None)
    if v.fold:
        node["fold"] = 1
    return node


_SIMPLE: Final[dict[type, Callable[[Any], Node]]] = {
    bytes: lambda v: {"$": "b", "v": base64.b64encode(v).decode("ascii")},
    dt.datetime: _enc_clock,
    dt.time: _enc_clock,
    dt.date: lambda v: {"$": "date", "v": v.isoformat()},
    dt.timedelta: lambda v: {"$": "td", "v": [v.days, v.seconds, v.microseconds]},
    Decimal: lambda v: {"$": "dec", "v": str(v)},
    uuid.UUID: lambda v: {"$": "uuid", "v": str(v)},
}
