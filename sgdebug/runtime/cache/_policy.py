"""What ``add_node(cache_policy=...)`` takes: how a node's input becomes a cache key, and how
long a cached result lives; and the namespace a node's cached results are kept under."""

from __future__ import annotations

import hashlib
import inspect
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

__all__ = [
    "WRITES_NS",
    "CachePolicy",
    "checked_policy",
    "default_cache_key",
    "digest",
    "node_namespace",
]

WRITES_NS: Final = "__pregel_ns_writes"
"""First part of every node result's namespace (LangGraph's, so a cache is shared alike)."""

KeyFuncT = TypeVar("KeyFuncT", bound=Callable[..., "str | bytes"])


def default_cache_key(*args: Any, **kwargs: Any) -> bytes:
    """The key of a node's input when its policy names no ``key_func``: the input pickled
    as it is. Equal inputs built alike share a key; as in LangGraph, a dict with its keys in
    another order, or a tuple where a list was, is another key."""
    return pickle.dumps((args, kwargs), protocol=5, fix_imports=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CachePolicy(Generic[KeyFuncT]):
    """Cache a node's writes by its input: the same input again replays them instead of
    calling the node (``compile(cache=...)`` names where they are kept)."""

    key_func: KeyFuncT = default_cache_key  # type: ignore[assignment]
    """Turns the node's input into the key (``str`` or ``bytes``); pickles it by default."""
    ttl: int | None = None
    """Seconds a cached result stays valid; ``None``: until the cache is cleared."""


def digest(key: str | bytes) -> str:
    """The stored form of a key function's result: a 128-bit hex digest."""
    data = key.encode() if isinstance(key, str) else key
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(
            f"a cache key_func must return str or bytes, got {type(key).__name__}: {key!r}"
        )
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def node_namespace(name: str, action: Any) -> tuple[str, str, str]:
    """Where the cached results of node ``name`` are kept: LangGraph's namespace, which names
    a plain function by ``module.qualname`` and anything else (an async function, a compiled
    graph, a ``functools.partial``, a callable object) as ``__dynamic__``."""
    return (WRITES_NS, _identifier(action) or "__dynamic__", name)


def _identifier(action: Any) -> str | None:
    if inspect.iscoroutinefunction(action):
        return None
    name = getattr(action, "__qualname__", None) or getattr(action, "__name__", None)
    module = getattr(action, "__module__", None)
    if not isinstance(name, str) or not isinstance(module, str):
        return None
    return f"{module}.{name}"


def checked_policy(policy: Any, call: str) -> CachePolicy[Any] | None:
    """``policy`` as given to ``call`` (``None`` stays ``None``); anything without a callable
    ``key_func`` and a ``ttl`` is refused with ``TypeError``."""
    if policy is None:
        return None
    key_func, ttl = getattr(policy, "key_func", None), getattr(policy, "ttl", 0)
    if not callable(key_func) or not (ttl is None or isinstance(ttl, int | float)):
        raise TypeError(f"{call}(cache_policy=...) takes a CachePolicy, got {policy!r}")
    return policy  # type: ignore[no-any-return]
