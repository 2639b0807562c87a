"""Node caching: ``add_node(..., cache_policy=CachePolicy())`` with ``compile(cache=...)``
replays a node's writes for an input it has seen instead of calling it again.

``InMemoryCache`` keeps the entries in this process; ``BaseCache`` is the interface another
cache implements (sync and async ``get``/``set``/``clear``).
"""

from __future__ import annotations

from sgdebug.runtime.cache._base import BaseCache, FullKey, Namespace
from sgdebug.runtime.cache._memory import InMemoryCache
from sgdebug.runtime.cache._policy import CachePolicy, default_cache_key

__all__ = ["BaseCache", "CachePolicy", "FullKey", "InMemoryCache", "Namespace", "default_cache_key"]
