"""Finding the class a stored object names, without importing anything: the serde registry.

A class is found by ``module:qualname`` in :func:`register`'s registry, then among classes
with ``<locals>`` in their name that ``dumps`` met in this process (the newest of that name
wins), then in a module already in ``sys.modules``, by reading ``__dict__`` entries (no
``getattr``, so no module ``__getattr__`` runs).
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeVar

from sgdebug.runtime._policies import TimeoutPolicy
from sgdebug.runtime.types import Command, Interrupt, Overwrite, Send

__all__ = ["CODECS", "CODEC_ADDED", "REGISTRY", "class_info", "register", "resolve"]

C = TypeVar("C", bound=type)

REGISTRY: dict[str, type] = {}
_LOCALS: weakref.WeakValueDictionary[str, type] = weakref.WeakValueDictionary()
_CLASSES: weakref.WeakKeyDictionary[type, tuple[str, str | None, tuple[str, ...]]] = (
    weakref.WeakKeyDictionary()
)
CODECS: Final[dict[str, tuple[tuple[str, ...], Callable[[dict[str, Any]], Any]]]] = {
    "sgdebug.runtime.types:Send": (
        ("node", "arg", "timeout"),
        lambda d: Send(d["node"], d["arg"], timeout=d.get("timeout")),
    ),
}
CODEC_ADDED: Final[dict[str, frozenset[str]]] = {
    "sgdebug.runtime.types:Send": frozenset({"timeout"}),
}
"""Fields a codec's class gained, which files written before lack (the codec defaults them)."""


def class_info(cls: type) -> tuple[str, str | None, tuple[str, ...]]:
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
    if ref in CODECS:
        return "o", CODECS[ref][0]
    return None, ()


def register(cls: C) -> C:
    """Allow ``loads`` to rebuild instances of ``cls`` even if its module is not imported."""
    if not isinstance(cls, type) or class_info(cls)[1] not in {"e", "nt", "dc", "pyd"}:
        raise TypeError(
            f"register() takes an enum, a named tuple, a dataclass or a pydantic model "
            f"class, got {cls!r}"
        )
    REGISTRY[class_info(cls)[0]] = cls
    return cls


for _cls in (Overwrite, Interrupt, Command, TimeoutPolicy):
    register(_cls)


def resolve(ref: str) -> type | str:
    """The class stored as ``ref``, or the reason it is not available."""
    found = REGISTRY.get(ref) or _LOCALS.get(ref)
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
