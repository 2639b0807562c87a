"""Values of a LangGraph graph's history in a session file: written the way LangGraph writes
them, read back by sgdebug's own code, which never imports or calls what the data names.

Writing uses LangGraph's serializer (``JsonPlusSerializer`` with its pickle fallback off), so
a value makes the same msgpack round trip as with LangGraph's own checkpointers: a tuple
comes back as a list, a node's exception as its ``repr``. Reading does not use it: LangGraph
imports the module a stored object names and calls the name (in its default mode, any name;
in its strict mode, an allow-list, the rest silently coming back as raw data). Here, the
bytes are unpacked by ``ormsgpack`` and each stored object is rebuilt by code of this module:

- standard-library values (datetimes, ``UUID``, ``Decimal``, sets, ``deque``, paths,
  ``re`` patterns, IP addresses, zones) and LangGraph's ``Send``, from a fixed table;
- LangChain messages and documents, by their constructor, as LangGraph rebuilds them;
- the program's enums, dataclasses, named tuples and pydantic models, found by module and
  name among the modules already imported (never by importing one) and rebuilt without
  running their code (no ``__init__``, ``__post_init__``, validator or ``model_post_init``).

Anything else (a function such as ``os.system``, another class, a ``pickle`` or ``json``
payload) is refused with :class:`DamagedValueError`. A value that would not come back is
refused when it is written, with :class:`UnstorableValueError` naming its channel.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import ipaddress
import pathlib
import re
import sys
import types
import typing
import uuid
import zoneinfo
from collections import deque
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

import ormsgpack
from pydantic import BaseModel, SecretBytes, SecretStr

__all__ = ["DamagedValueError", "UnstorableValueError", "decode", "encode", "serializer"]

_SINGLE, _POSITIONAL, _KEYWORDS, _METHOD, _PYDANTIC_V1, _PYDANTIC, _NUMPY, _DELTA = range(8)
"""The extension codes of LangGraph's msgpack format (what each stored object is)."""
_KINDS: Final = frozenset({"msgpack", "null", "bytes", "bytearray"})
_OPTIONS: Final = ormsgpack.OPT_NON_STR_KEYS


class DamagedValueError(ValueError):
    """Stored data that sgdebug will not turn back into a value; the message says why."""


class UnstorableValueError(TypeError):
    """A value that cannot be stored in a session file; the message names its channel."""


@functools.cache
def serializer() -> Any:
    """LangGraph's serializer, writing only: no pickle fallback, and strict if it is ever
    asked to read (the saver never asks it)."""
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    return JsonPlusSerializer(pickle_fallback=False, allowed_msgpack_modules=None)


def encode(value: Any, channel: str) -> tuple[str, bytes]:
    """``value`` as LangGraph stores it, checked to come back through :func:`decode`."""
    where = f"cannot store channel {channel!r} in the session file"
    try:
        typed: tuple[str, bytes] = serializer().dumps_typed(value)
    except (TypeError, ValueError) as exc:  # ormsgpack's encode error is a TypeError
        raise UnstorableValueError(f"{where}: {exc}") from None
    try:
        decode(*typed)
    except DamagedValueError as exc:
        raise UnstorableValueError(f"{where}: it would not come back ({exc})") from None
    return typed


def decode(kind: str, data: bytes) -> Any:
    """The value stored as ``kind``/``data`` (:func:`encode`'s output); never runs code it
    names. Raises :class:`DamagedValueError`."""
    if kind not in _KINDS:
        raise DamagedValueError(f"unknown encoding {kind!r:.40} (sgdebug reads only msgpack)")
    if not isinstance(data, bytes):
        raise DamagedValueError(f"stored value is {type(data).__name__}, not bytes")
    if kind == "null":
        return None
    if kind == "bytes":
        return data
    if kind == "bytearray":
        return bytearray(data)
    return _Reader().unpack(data)


class _Reader:
    """One decoding: ``ormsgpack`` hides why an extension hook failed, so it is kept here."""

    def __init__(self) -> None:
        self.problem: str | None = None

    def unpack(self, data: bytes) -> Any:
        try:
            return ormsgpack.unpackb(data, ext_hook=self.extension, option=_OPTIONS)
        except RecursionError:
            raise DamagedValueError("stored value is nested too deeply") from None
        except (ValueError, TypeError) as exc:
            raise DamagedValueError(self.problem or f"not valid msgpack ({exc})") from None

    def extension(self, code: int, data: bytes) -> Any:
        try:
            return self._build(code, data)
        except DamagedValueError as exc:
            self.problem = self.problem or str(exc)
            raise
        except (TypeError, ValueError, KeyError, AttributeError, LookupError) as exc:
            self.problem = self.problem or f"stored object is malformed ({exc})"
            raise

    def _build(self, code: int, data: bytes) -> Any:
        payload = ormsgpack.unpackb(data, ext_hook=self.extension, option=_OPTIONS)
        if code == _DELTA:  # LangGraph's beta DeltaChannel: its type is private API
            raise DamagedValueError("DeltaChannel values cannot be kept in a session file yet")
        if code == _NUMPY:
            return _numpy(payload)
        if not (isinstance(payload, list) and len(payload) >= 3):
            raise DamagedValueError(f"stored object of kind {code} is malformed")
        module, name, arg = payload[0], payload[1], payload[2]
        if not (isinstance(module, str) and isinstance(name, str)):
            raise DamagedValueError(f"stored object of kind {code} names no class")
        fixed = _FIXED.get((code, module, name))
        if fixed is not None:
            if code == _METHOD and payload[3:] != ["fromisoformat"]:
                raise DamagedValueError(f"stored object calls {module}.{name}.{payload[3:]}")
            return fixed(arg)
        builder = _BUILDERS.get(code)
        if builder is None:
            raise DamagedValueError(f"names {module}.{name} in a form sgdebug does not read")
        return builder(_find_class(module, name), arg)


# -- the program's classes -----------------------------------------------------------------


def _find_class(module: str, name: str) -> type:
    """The class ``module.name``, read from an imported module's namespace (no import, no
    module ``__getattr__``)."""
    found = sys.modules.get(module)
    if found is None:
        raise DamagedValueError(f"names {module}.{name}, but module {module!r} is not loaded")
    cls = vars(found).get(name)
    if not isinstance(cls, type):
        what = "not defined there" if cls is None else "not a class sgdebug rebuilds"
        raise DamagedValueError(f"names {module}.{name}, which is {what}")
    return cls


def _member(cls: type, value: Any) -> Any:
    if not issubclass(cls, enum.Enum):
        raise DamagedValueError(f"names {_dotted(cls)}, which is not an enum sgdebug rebuilds")
    for member in cls.__members__.values():
        if member.value == value:
            return member
    raise DamagedValueError(f"enum {_dotted(cls)} has no member of value {value!r:.40}")


def _record(cls: type, fields: Any) -> Any:
    """A dataclass or named tuple from its stored fields, without calling its code."""
    if not isinstance(fields, dict):
        raise DamagedValueError(f"stored fields of {_dotted(cls)} are not a mapping")
    names = cls.__dict__.get("_fields")
    if issubclass(cls, tuple) and isinstance(names, tuple):
        _same_fields(cls, names, fields)
        return tuple.__new__(cls, [fields[n] for n in names])
    if not dataclasses.is_dataclass(cls):
        raise DamagedValueError(f"names {_dotted(cls)}, which is not a class sgdebug rebuilds")
    _same_fields(cls, [f.name for f in dataclasses.fields(cls)], fields)
    obj = object.__new__(cls)
    for key, value in fields.items():
        object.__setattr__(obj, key, value)
    return obj


def _model(cls: type, dump: Any) -> Any:
    """A pydantic model: LangChain's by its constructor (as LangGraph does), the program's
    without running its code."""
    if not issubclass(cls, BaseModel) or not isinstance(dump, dict):
        raise DamagedValueError(f"names {_dotted(cls)}, which is not a model sgdebug rebuilds")
    if _is_langchain(cls):
        try:
            return cls(**dump)
        except (TypeError, ValueError) as exc:
            raise DamagedValueError(f"stored {_dotted(cls)} is not valid ({exc})") from None
    return _construct(cls, dump)


def _construct(cls: type[BaseModel], dump: dict[Any, Any]) -> BaseModel:
    fields = cls.model_fields
    allow = cls.model_config.get("extra") == "allow"
    extra = {k: v for k, v in dump.items() if k not in fields}
    if (extra and not allow) or set(fields) - set(dump) or cls.__private_attributes__:
        raise DamagedValueError(
            f"stored {_dotted(cls)} has fields {sorted(map(str, dump))}; the class has "
            f"{sorted(fields)}{' and private attributes' if cls.__private_attributes__ else ''}"
        )
    values = {name: _nested(field.annotation, dump[name]) for name, field in fields.items()}
    model = object.__new__(cls)
    object.__setattr__(model, "__dict__", values)
    object.__setattr__(model, "__pydantic_fields_set__", set(values))
    object.__setattr__(model, "__pydantic_extra__", extra if allow else None)
    object.__setattr__(model, "__pydantic_private__", None)
    return model


def _nested(annotation: Any, value: Any) -> Any:
    """A field's value as the model holds it: LangGraph stores a model's ``model_dump()``,
    which turns nested models into dicts and tuples into lists; the annotation tells."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if _is_model(annotation):
        return _model(annotation, value) if isinstance(value, dict) else value
    if origin is typing.Annotated:
        return _nested(args[0], value)
    if origin in (typing.Union, types.UnionType):
        models = [m for m in map(_bare, args) if _is_model(m)]
        if len(models) > 1 and isinstance(value, dict):  # LangChain's messages: by "type"
            models = [m for m in models if _tag(m) == value.get("type")]
        return _nested(models[0], value) if len(models) == 1 else value
    if origin is list and isinstance(value, list) and args:
        return [_nested(args[0], v) for v in value]
    if origin is tuple and isinstance(value, list):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_nested(args[0], v) for v in value)
        return tuple(_nested(a, v) for a, v in zip(args, value, strict=False)) if args else value
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return {k: _nested(args[1], v) for k, v in value.items()}
    return value


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _bare(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _tag(model: type[BaseModel]) -> Any:
    field = model.model_fields.get("type")
    return None if field is None else field.default


def _is_langchain(cls: type) -> bool:
    """A LangChain message or document class (LangGraph's own allow-list has them)."""
    messages = sys.modules.get("langchain_core.messages.base")
    documents = sys.modules.get("langchain_core.documents.base")
    if cls.__module__.startswith("langchain_core.messages.") and messages is not None:
        base = vars(messages).get("BaseMessage")
        return isinstance(base, type) and issubclass(cls, base)
    return documents is not None and cls is vars(documents).get("Document")


def _same_fields(cls: type, expected: Any, stored: dict[Any, Any]) -> None:
    if set(expected) != set(stored):
        raise DamagedValueError(
            f"stored {_dotted(cls)} has fields {sorted(map(str, stored))}; the class has "
            f"{sorted(expected)}"
        )


def _dotted(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


_BUILDERS: Final[dict[int, Callable[[type, Any], Any]]] = {
    _SINGLE: _member,
    _KEYWORDS: _record,
    _PYDANTIC: _model,
}


# -- standard-library values ---------------------------------------------------------------


def _of(value: Any, kind: type | tuple[type, ...]) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DamagedValueError(f"stored argument {value!r:.40} has the wrong type")
    return value


def _ints(value: Any, count: int) -> list[int]:
    items = _of(value, list)
    if len(items) != count or not all(type(i) is int for i in items):
        raise DamagedValueError(f"stored arguments {value!r:.40} are not {count} integers")
    return list(items)


def _timezone(args: Any) -> dt.timezone:
    items = _of(args, list)
    if not 1 <= len(items) <= 2 or not isinstance(items[0], dt.timedelta):
        raise DamagedValueError(f"stored time zone {args!r:.40} is malformed")
    return dt.timezone(items[0]) if len(items) == 1 else dt.timezone(items[0], _of(items[1], str))


def _time(fields: Any) -> dt.time:
    keys = {"hour", "minute", "second", "microsecond", "tzinfo", "fold"}
    if not isinstance(fields, dict) or set(fields) != keys:
        raise DamagedValueError(f"stored time {fields!r:.40} is malformed")
    zone = fields["tzinfo"]
    if zone is not None and not isinstance(zone, dt.tzinfo):
        raise DamagedValueError(f"stored time zone {zone!r:.40} is not a time zone")
    numbers = {k: _of(fields[k], int) for k in keys - {"tzinfo"}}
    return dt.time(**numbers, tzinfo=zone)


def _pattern(args: Any) -> re.Pattern[Any]:
    items = _of(args, list)
    if len(items) != 2:
        raise DamagedValueError(f"stored pattern {args!r:.40} is malformed")
    return re.compile(_of(items[0], (str, bytes)), _of(items[1], int))


def _path(kind: type[pathlib.Path]) -> Callable[[Any], pathlib.Path]:
    return lambda parts: kind(*[_of(p, str) for p in _of(parts, list)])


def _address(kind: Callable[[str], Any]) -> Callable[[Any], Any]:
    return lambda text: kind(_of(text, str))


def _send(args: Any) -> Any:
    from langgraph.types import Send

    items = _of(args, list)
    if len(items) == 2:
        return Send(_of(items[0], str), items[1])
    if len(items) == 3:
        return Send(_of(items[0], str), items[1], timeout=items[2])
    raise DamagedValueError(f"stored Send {args!r:.40} is malformed")


def _numpy(payload: Any) -> Any:
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(payload, list) or len(payload) != 4:
        raise DamagedValueError("stored array needs numpy, which the program has not loaded")
    kind, shape, order, buffer = payload
    dtype = numpy.dtype(_of(kind, str))
    if dtype.hasobject or order not in ("C", "F"):
        raise DamagedValueError(f"stored array of type {kind!r:.40} is not plain data")
    return numpy.frombuffer(_of(buffer, bytes), dtype=dtype).reshape(shape, order=order)


_IP: Final = (
    ipaddress.IPv4Address,
    ipaddress.IPv4Interface,
    ipaddress.IPv4Network,
    ipaddress.IPv6Address,
    ipaddress.IPv6Interface,
    ipaddress.IPv6Network,
)
_FIXED: Final[dict[tuple[int, str, str], Callable[[Any], Any]]] = {
    (_METHOD, "datetime", "datetime"): lambda v: dt.datetime.fromisoformat(_of(v, str)),
    (_POSITIONAL, "datetime", "date"): lambda v: dt.date(*_ints(v, 3)),
    (_POSITIONAL, "datetime", "timedelta"): lambda v: dt.timedelta(*_ints(v, 3)),
    (_POSITIONAL, "datetime", "timezone"): _timezone,
    (_KEYWORDS, "datetime", "time"): _time,
    (_SINGLE, "uuid", "UUID"): lambda v: uuid.UUID(hex=_of(v, str)),
    (_SINGLE, "decimal", "Decimal"): lambda v: Decimal(_of(v, str)),
    (_SINGLE, "builtins", "set"): lambda v: set(_of(v, list)),
    (_SINGLE, "builtins", "frozenset"): lambda v: frozenset(_of(v, list)),
    (_SINGLE, "collections", "deque"): lambda v: deque(_of(v, list)),
    (_SINGLE, "zoneinfo", "ZoneInfo"): lambda v: zoneinfo.ZoneInfo(_of(v, str)),
    (_POSITIONAL, "re", "compile"): _pattern,
    (_SINGLE, "pydantic.types", "SecretStr"): lambda v: SecretStr(_of(v, str)),
    (_SINGLE, "pydantic.types", "SecretBytes"): lambda v: SecretBytes(_of(v, bytes)),
    (_POSITIONAL, "langgraph.types", "Send"): _send,
    **{(_SINGLE, "ipaddress", kind.__name__): _address(kind) for kind in _IP},
    **{
        (_POSITIONAL, module, kind.__name__): _path(kind)
        for module in ("pathlib", "pathlib._local")
        for kind in (pathlib.Path, pathlib.PosixPath, pathlib.WindowsPath)
    },
}
