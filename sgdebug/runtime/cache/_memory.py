"""A cache in this process's memory (LangGraph's ``langgraph.cache.memory.InMemoryCache``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence

from sgdebug.runtime.cache._base import BaseCache, FullKey, Namespace, Serializer, ValueT

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache[ValueT]):
    """Entries kept serialised (a hit is a fresh copy: changing it changes nothing cached),
    with their expiry; safe to share between threads and graphs.

    ``clock`` (seconds, ``time.time`` by default) says when entries expire; tests pass their own.
    """

    def __init__(
        self, *, serde: Serializer | None = None, clock: Callable[[], float] | None = None
    ) -> None:
        super().__init__(serde=serde)
        self._clock = clock or time.time
        self._cache: dict[Namespace, dict[str, tuple[str, bytes, float | None]]] = {}
        self._lock = threading.RLock()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """The live entries among ``keys``; an expired one is dropped as it is met."""
        found: dict[FullKey, ValueT] = {}
        if not keys:
            return found
        with self._lock:
            now = self._clock()
            for namespace, key in keys:
                namespace = tuple(namespace)
                entries = self._cache.get(namespace)
                if not entries or key not in entries:
                    continue
                kind, data, expires = entries[key]
                if expires is not None and now >= expires:
                    del entries[key]
                    continue
                found[(namespace, key)] = self.serde.loads_typed((kind, data))
        return found

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """:meth:`get` (memory does not wait)."""
        return self.get(keys)

    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Store each ``key: (value, ttl)``; ``ttl`` seconds from now (``None``: no expiry)."""
        with self._lock:
            now = self._clock()
            for (namespace, key), (value, ttl) in pairs.items():
                kind, data = self.serde.dumps_typed(value)
                expires = None if ttl is None else now + ttl
                self._cache.setdefault(tuple(namespace), {})[key] = (kind, data, expires)

    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """:meth:`set` (memory does not wait)."""
        self.set(pairs)

    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Delete the entries of ``namespaces``; every entry when ``None``."""
        with self._lock:
            if namespaces is None:
                self._cache.clear()
                return
            for namespace in namespaces:
                self._cache.pop(tuple(namespace), None)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """:meth:`clear` (memory does not wait)."""
        self.clear(namespaces)
