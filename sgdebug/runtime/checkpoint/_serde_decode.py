"""Decoding for :mod:`sgdebug.runtime.checkpoint.serde`: tagged JSON back to a value, safely."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import json
import sys
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

from sgdebug.runtime.checkpoint._serde_encode import Unresolved, gc_paused
from sgdebug.runtime.checkpoint._serde_lookup import CODEC_ADDED, CODECS, resolve

__all__ = ["DECODERS", "DeserializationError", "loads"]


class DeserializationError(ValueError):
    """Stored data is malformed or corrupt."""


class _Missing(Exception):
    """Internal: the stored class cannot be used; the message says why."""


def loads(data: bytes) -> Any:
    """Decode what :func:`dumps` wrote; raise :class:`DeserializationError` on bad input."""
    if isinstance(data, bytes | bytearray | memoryview):
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DeserializationError(f"stored value is not UTF-8 ({exc})") from None
    elif isinstance(data, str):
        text = data
    else:
        raise DeserializationError(f"stored value must be bytes, got {type(data).__name__!r}")
    try:
        with gc_paused():
            return _DECODER.decode(text)
    except DeserializationError:
        raise
    except json.JSONDecodeError as exc:
        raise DeserializationError(f"stored value is not valid JSON ({exc})") from None
    except RecursionError:
        raise DeserializationError("stored value is nested too deeply") from None
    except Exception as exc:
        raise DeserializationError(f"corrupt stored value ({type(exc).__name__}: {exc})") from exc


def _hook(d: dict[str, Any]) -> Any:
    if "$" not in d:
        return d
    tag = d["$"]
    decode = DECODERS.get(tag) if type(tag) is str else None
    if decode is None:
        raise DeserializationError(f"corrupt stored value: unknown tag {tag!r:.60}")
    return decode(d)


def _get(d: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = d.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DeserializationError(
            f"corrupt stored value: {key!r} of tag {d['$']!r} is {value!r:.60}"
        )
    return value


def _dec_float(d: dict[str, Any]) -> float:
    text = _get(d, "v", str)
    if text not in {"nan", "inf", "-inf"}:
        raise DeserializationError(f"corrupt stored value: float {text!r:.60}")
    return float(text)


def _dec_tz(spec: Any) -> dt.tzinfo:
    if isinstance(spec, list) and len(spec) == 2 and spec[0] == "z" and type(spec[1]) is str:
        import zoneinfo  # the standard library's; the only import loads() may do

        return zoneinfo.ZoneInfo(spec[1])
    if isinstance(spec, list) and 2 <= len(spec) <= 3 and spec[0] == "o" and type(spec[1]) is int:
        offset = dt.timedelta(microseconds=spec[1])
        if len(spec) == 2:
            return dt.timezone(offset)
        if type(spec[2]) is str:
            return dt.timezone(offset, spec[2])
    raise DeserializationError(f"corrupt stored value: time zone {spec!r:.60}")


def _dec_clock(d: dict[str, Any]) -> dt.datetime | dt.time:
    kind = dt.datetime if d["$"] == "dt" else dt.time
    value = kind.fromisoformat(_get(d, "v", str))
    tz = _dec_tz(d["tz"]) if "tz" in d else None
    return value.replace(tzinfo=tz, fold=1 if d.get("fold") == 1 else 0)


def _dec_timedelta(d: dict[str, Any]) -> dt.timedelta:
    parts = _get(d, "v", list)
    if len(parts) != 3 or any(type(p) is not int for p in parts):
        raise DeserializationError(f"corrupt stored value: timedelta {parts!r:.60}")
    return dt.timedelta(days=parts[0], seconds=parts[1], microseconds=parts[2])


def _dec_class(d: dict[str, Any]) -> Any:
    tag = d["$"]
    ref = _get(d, "c", str)
    meta = {k: x for k, x in d.items() if k not in {"$", "c", "v"}}
    if set(meta) - _META[tag][1] or not _META[tag][0] <= set(meta) or "v" not in d:
        raise DeserializationError(f"corrupt stored value: keys {sorted(d)} for tag {tag!r}")
    if tag != "e":
        _get(d, "v", dict)
    found = resolve(ref)
    try:
        if isinstance(found, str):
            raise _Missing(found)
        return _BUILDERS[tag](found, d)
    except _Missing as why:
        dotted = ref.replace(":", ".")
        return Unresolved(dotted, d["v"], str(why), kind=tag, ref=ref, meta=meta)


def _check_fields(cls: type, expected: Any, stored: dict[str, Any]) -> None:
    if set(expected) != set(stored):
        raise _Missing(
            f"fields of {cls.__module__}.{cls.__qualname__} changed: stored "
            f"{sorted(stored)}, class has {sorted(expected)}"
        )


def _build_enum(cls: type, d: dict[str, Any]) -> Any:
    if not issubclass(cls, enum.Enum):
        raise _Missing(f"{cls.__qualname__} is not an enum")
    name = _get(d, "n", str)
    member = cls.__members__.get(name)
    if member is None and issubclass(cls, enum.Flag):
        member = cls._value2member_map_.get(d["v"]) or cls(d["v"])
    if member is None:
        raise _Missing(f"{cls.__qualname__} has no member {name!r}")
    return member


def _build_dataclass(cls: type, d: dict[str, Any]) -> Any:
    if not dataclasses.is_dataclass(cls):
        raise _Missing(f"{cls.__qualname__} is not a dataclass")
    values: dict[str, Any] = d["v"]
    _check_fields(cls, (f.name for f in dataclasses.fields(cls)), values)
    try:
        obj = object.__new__(cls)
    except TypeError as exc:
        raise _Missing(str(exc)) from None
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def _build_namedtuple(cls: type, d: dict[str, Any]) -> Any:
    fields = cls.__dict__.get("_fields")
    if not issubclass(cls, tuple) or not isinstance(fields, tuple):
        raise _Missing(f"{cls.__qualname__} is not a named tuple")
    _check_fields(cls, fields, d["v"])
    return tuple.__new__(cls, [d["v"][name] for name in fields])


def _build_model(cls: Any, d: dict[str, Any]) -> Any:
    pyd = sys.modules.get("pydantic")
    if pyd is None or not issubclass(cls, pyd.BaseModel):
        raise _Missing(f"{cls.__qualname__} is not a pydantic model")
    fields_set, extra, private = _get(d, "fs", list), d.get("x"), d.get("p")
    if any(type(name) is not str for name in fields_set) or not isinstance(extra or {}, dict):
        raise DeserializationError(f"corrupt stored value: model {d['c']!r:.60}")
    _check_fields(cls, cls.model_fields, d["v"])
    model = object.__new__(cls)
    object.__setattr__(model, "__dict__", {k: d["v"][k] for k in cls.model_fields})
    object.__setattr__(model, "__pydantic_fields_set__", set(fields_set))
    if extra is None and cls.model_config.get("extra") == "allow":
        extra = {}
    object.__setattr__(model, "__pydantic_extra__", extra)
    object.__setattr__(model, "__pydantic_private__", private)
    return model


def _build_codec(cls: type, d: dict[str, Any]) -> Any:
    ref = f"{cls.__module__}:{cls.__qualname__}"
    names, build = CODECS.get(ref, ((), None))
    if build is None:
        raise _Missing(f"no codec for {cls.__qualname__}")
    stored, known = set(d["v"]), set(names)
    if not (stored <= known and known - stored <= CODEC_ADDED.get(ref, frozenset())):
        _check_fields(cls, names, d["v"])
    return build(d["v"])


_BUILDERS: Final[dict[str, Callable[[type, dict[str, Any]], Any]]] = {
    "e": _build_enum,
    "dc": _build_dataclass,
    "nt": _build_namedtuple,
    "pyd": _build_model,
    "o": _build_codec,
}
_META: Final[dict[str, tuple[set[str], set[str]]]] = {
    "e": ({"n"}, {"n"}),
    "dc": (set(), set()),
    "nt": (set(), set()),
    "pyd": ({"fs"}, {"fs", "x", "p"}),
    "o": (set(), set()),
}
DECODERS: Final[dict[str, Callable[[dict[str, Any]], Any]]] = {
    "f": _dec_float,
    "i": lambda d: int(_get(d, "v", str), 16),
    "b": lambda d: base64.b64decode(_get(d, "v", str), validate=True),
    "t": lambda d: tuple(_get(d, "v", list)),
    "s": lambda d: set(_get(d, "v", list)),
    "fs": lambda d: frozenset(_get(d, "v", list)),
    "d": lambda d: {k: x for k, x in _get(d, "v", list)},
    "dt": _dec_clock,
    "time": _dec_clock,
    "date": lambda d: dt.date.fromisoformat(_get(d, "v", str)),
    "td": _dec_timedelta,
    "dec": lambda d: Decimal(_get(d, "v", str)),
    "uuid": lambda d: uuid.UUID(_get(d, "v", str)),
    **dict.fromkeys(_BUILDERS, _dec_class),
}
_DECODER: Final = json.JSONDecoder(object_hook=_hook)
