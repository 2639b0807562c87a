"""The cache interface a compiled graph keeps its nodes' results in (``compile(cache=...)``),
shaped like LangGraph's ``langgraph.cache.base.BaseCache`` so that a cache written for one
serves the other."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["BaseCache", "FullKey", "Namespace", "Serializer", "ValueSerde"]

ValueT = TypeVar("ValueT")
Namespace = tuple[str, ...]
"""Where a group of entries lives: a node's results are under ``(WRITES_NS, function, node)``."""
FullKey = tuple[Namespace, str]
"""An entry's namespace and key."""


class Serializer(Protocol):
    """What a cache stores values with (LangGraph's serializer protocol, its typed half)."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]: ...
    def loads_typed(self, data: tuple[str, bytes]) -> Any: ...


class ValueSerde:
    """The default serializer: sgdebug's safe tagged JSON (no pickle, no code run on load)."""

    kind = "sgdebug-json"

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """``obj`` as ``(kind, bytes)``; an unsupported type raises ``SerializationError``."""
        from sgdebug.runtime.checkpoint.serde import dumps

        return self.kind, dumps(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        """The value :meth:`dumps_typed` stored."""
        from sgdebug.runtime.checkpoint.serde import loads

        kind, raw = data
        if kind != self.kind:
            raise ValueError(f"cannot load a cached value stored as {kind!r}")
        return loads(raw)


class BaseCache(ABC, Generic[ValueT]):
    """Entries by (namespace, key), each with an optional time to live; sync and async."""

    serde: Serializer = ValueSerde()

    def __init__(self, *, serde: Serializer | None = None) -> None:
        self.serde = serde or self.serde

    @abstractmethod
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """The live entries among ``keys`` (missing and expired ones are left out)."""

    @abstractmethod
    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """:meth:`get` for async callers."""

    @abstractmethod
    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Store each ``key: (value, ttl)``; ``ttl`` in seconds, ``None`` for no expiry."""

    @abstractmethod
    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """:meth:`set` for async callers."""

    @abstractmethod
    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the entries of ``namespaces``; every entry when ``None``."""

    @abstractmethod
    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """:meth:`clear` for async callers."""
