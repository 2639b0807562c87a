"""Safe serialisation of channel values: a tagged JSON format that never runs code on load.

``dumps(value, channel=...)`` gives compact UTF-8 JSON; ``loads(data)`` rebuilds the value.
JSON's own types map to themselves. Everything else is an object whose ``"$"`` key names a
tag (``{"$": "t", "v": [1, 2]}`` is the tuple ``(1, 2)``); a user dict with a ``"$"`` key or
non-``str`` keys is stored as ``{"$": "d", "v": [[key, value], ...]}``, so any plain JSON also
loads. Round-trips exactly: ``None``, ``bool``, ``int``, ``float`` (nan, inf), ``str``,
``bytes``, ``list``, ``tuple``, ``dict``, ``set``, ``frozenset``, ``datetime``/``date``/
``time`` (fixed offsets and ``zoneinfo`` zones; other tzinfo classes become a fixed offset),
``timedelta``, ``Decimal``, ``UUID``, enum members, dataclasses, pydantic v2 models (so
langchain-core messages), named tuples and ``Send``. Exact types only: a subclass of
``str``/``dict``/``datetime``... that is none of the above is refused.

Output is deterministic: the same value gives the same bytes. Dicts keep insertion order
(part of a Python dict's value); set members are sorted by their encoding. Shared references
are stored once per occurrence (identity is not kept); a reference cycle, and nesting deeper
than the recursion limit allows (a few hundred levels), are refused.

Security: ``loads`` never unpickles or evaluates, and never imports a module named by the
data (its one import is the standard library's ``zoneinfo``, for a stored IANA zone). A class
is found by ``module:qualname`` in :func:`register`'s registry, then among classes with
``<locals>`` in their name that ``dumps`` met in this process (the newest of that name wins),
then in a module already in ``sys.modules``, by reading ``__dict__`` entries (no ``getattr``,
so no module ``__getattr__`` runs). A class that cannot be found (module not imported, class
renamed, fields changed) decodes to an :class:`Unresolved` placeholder holding the stored
data, not an error: a debugger can show a session file without importing its program, and
``dumps`` writes the placeholder back unchanged. Objects are rebuilt without user code:
dataclasses by ``object.__new__`` plus ``object.__setattr__`` per field, pydantic models the
way ``model_construct`` does it but without its ``model_post_init`` call, named tuples by
``tuple.__new__``, enum members by name. The trade-off: ``__init__``, ``__post_init__``,
validators and ``model_post_init`` do not run, so an attribute that is not a declared field
is not restored, and a value is trusted to fit its annotation.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime as dt
import enum
import gc
import json
import sys
import uuid
import weakref
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import Any, Final, TypeVar

from sgdebug.runtime.types import Command, Interrupt, Overwrite, Send

__all__ = ["DeserializationError", "SerializationError", "Unresolved", "dumps", "loads", "register"]

C = TypeVar("C", bound=type)
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


class DeserializationError(ValueError):
    """Stored data is malformed or corrupt."""


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


# -- class lookup -------------------------------------------------------------------------

_REGISTRY: dict[str, type] = {}
_LOCALS: weakref.WeakValueDictionary[str, type] = weakref.WeakValueDictionary()
_CLASSES: weakref.WeakKeyDictionary[type, tuple[str, str | None, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)
_CODECS: Final[dict[str, tuple[tuple[str, ...], Callable[[dict[str, Any]], Any]]]] = {
    "sgdebug.runtime.types:Send": (("node", "arg"), lambda d: Send(d["node"], d["arg"])),
}


def _info(cls: type) -> tuple[str, str | None, tuple[str, ...]]:
    """``module:qualname``, format tag (``None``: not storable) and field names of ``cls``."""
    known = _CLASSES.get(cls)
    if known is None:
        ref = f"{cls.__module__}:{cls.__qualname__}"
        known = _CLASSES[cls] = (ref, *_classify(cls, ref))
        if "<locals>" in ref and known[1] is not None:
            _LOCALS[ref] = cls
    return known


def _classify(cls: Any, ref: str) -> tuple[str | None, tuple[str, ...]]:
    if issubclass(cls, enum.Enum):
        return "e", ()
    fields = cls.__dict__.get("_fields")
    if issubclass(cls, tuple) and isinstance(fields, tuple):
        return "nt", fields
    if dataclasses.is_dataclass(cls):
        return "dc", tuple(f.name for f in dataclasses.fields(cls))
    pyd = sys.modules.get("pydantic")
    if pyd is not None and issubclass(cls, pyd.BaseModel):
        return "pyd", tuple(cls.model_fields)
    if ref in _CODECS:
        return "o", _CODECS[ref][0]
    return None, ()


def register(cls: C) -> C:
    """Allow ``loads`` to rebuild instances of ``cls`` even if its module is not imported."""
    if not isinstance(cls, type) or _info(cls)[1] not in {"e", "nt", "dc", "pyd"}:
        raise TypeError(
            f"register() takes an enum, a named tuple, a dataclass or a pydantic model "
            f"class, got {cls!r}"
        )
    _REGISTRY[_info(cls)[0]] = cls
    return cls


for _cls in (Overwrite, Interrupt, Command):
    register(_cls)


def _resolve(ref: str) -> type | str:
    """The class stored as ``ref``, or the reason it is not available."""
    found = _REGISTRY.get(ref) or _LOCALS.get(ref)
    if found is not None:
        return found
    module, _, qualname = ref.partition(":")
    obj: object = sys.modules.get(module)
    if obj is None:
        return f"module {module!r} is not imported"
    for part in qualname.split("."):
        namespace = vars(obj) if obj is sys.modules[module] else _class_dict(obj)
        obj = namespace.get(part) if namespace is not None else None
        if obj is None:
            return f"{module}.{qualname} not found in the loaded module"
    return obj if isinstance(obj, type) else f"{module}.{qualname} is not a class"


def _class_dict(obj: object) -> Mapping[str, Any] | None:
    """A class's own namespace, read without running descriptors; ``None`` for non-classes."""
    if not isinstance(obj, type):
        return None
    namespace: Mapping[str, Any] = type.__dict__["__dict__"].__get__(obj, type)
    return namespace


# -- encoding -----------------------------------------------------------------------------


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
    with _gc_paused():
        return _dumps(value, channel)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
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
    ref, kind, names = _info(t)
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


# -- decoding -----------------------------------------------------------------------------


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
        with _gc_paused():
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
    decode = _DECODERS.get(tag) if type(tag) is str else None
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
    found = _resolve(ref)
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
    names, build = _CODECS.get(f"{cls.__module__}:{cls.__qualname__}", ((), None))
    if build is None:
        raise _Missing(f"no codec for {cls.__qualname__}")
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
_DECODERS: Final[dict[str, Callable[[dict[str, Any]], Any]]] = {
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
