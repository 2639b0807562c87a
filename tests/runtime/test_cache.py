"""The node cache module: ``InMemoryCache`` (entries, time to live, namespaces, copies, async),
``CachePolicy`` and the default key, and the namespace a node's results are kept under."""

from __future__ import annotations

import asyncio
import functools
import pickle
from typing import Any

import pytest

from sgdebug.runtime import Send
from sgdebug.runtime.cache import BaseCache, CachePolicy, InMemoryCache, default_cache_key
from sgdebug.runtime.cache._policy import WRITES_NS, checked_policy, digest, node_namespace
from sgdebug.runtime.checkpoint.serde import SerializationError

NS = ("ns", "a")
OTHER = ("ns", "b")


class Clock:
    """Seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_stored_value_comes_back_as_a_fresh_copy() -> None:
    cache: InMemoryCache[Any] = InMemoryCache()
    deep: dict[str, list[int]] = {"deep": [1, 2]}
    writes: list[tuple[str, Any]] = [
        ("x", deep), ("branch:to:b", None), ("__pregel_tasks", Send("n", 1)),
    ]  # fmt: skip
    cache.set({(NS, "k"): (writes, None)})
    deep["deep"].append(3)  # changing what was stored changes nothing cached

    first = cache.get([(NS, "k")])
    first[(NS, "k")][0][1]["deep"].append(4)  # neither does changing what was read

    again = cache.get([(NS, "k"), (NS, "missing"), (OTHER, "k")])
    assert again == {(NS, "k"): [("x", {"deep": [1, 2]}), ("branch:to:b", None), writes[2]]}
    assert cache.get([]) == {}


def test_an_entry_lives_for_its_ttl_and_is_dropped_once_expired() -> None:
    clock = Clock()
    cache: InMemoryCache[str] = InMemoryCache(clock=clock)
    cache.set({(NS, "short"): ("s", 5), (NS, "forever"): ("f", None), (NS, "zero"): ("z", 0)})

    assert cache.get([(NS, "short"), (NS, "forever"), (NS, "zero")]) == {
        (NS, "short"): "s",
        (NS, "forever"): "f",
    }
    clock.now += 4.9
    assert (NS, "short") in cache.get([(NS, "short")])
    clock.now += 0.1
    assert cache.get([(NS, "short"), (NS, "forever")]) == {(NS, "forever"): "f"}
    assert set(cache._cache[NS]) == {"forever"}  # the expired entries are gone


def test_clear_drops_the_named_namespaces_or_everything() -> None:
    cache: InMemoryCache[int] = InMemoryCache()
    keys = [(NS, "k"), (OTHER, "k")]
    cache.set({(NS, "k"): (1, None), (OTHER, "k"): (2, None)})

    cache.clear([NS, ("not", "there")])
    assert cache.get(keys) == {(OTHER, "k"): 2}
    cache.set({(NS, "k"): (1, None)})
    cache.clear()
    assert cache.get(keys) == {}


def test_the_async_methods_do_what_the_sync_ones_do() -> None:
    cache: InMemoryCache[int] = InMemoryCache()

    async def use() -> tuple[Any, ...]:
        await cache.aset({(NS, "k"): (1, None), (OTHER, "k"): (2, None)})
        got = await cache.aget([(NS, "k"), (OTHER, "k")])
        await cache.aclear([OTHER])
        return got, await cache.aget([(NS, "k"), (OTHER, "k")])

    assert asyncio.run(use()) == ({(NS, "k"): 1, (OTHER, "k"): 2}, {(NS, "k"): 1})


def test_a_value_the_serializer_cannot_store_is_refused_and_nothing_is_stored() -> None:
    cache: InMemoryCache[Any] = InMemoryCache()
    with pytest.raises(SerializationError):
        cache.set({(NS, "k"): ([("x", object())], None)})
    assert cache.get([(NS, "k")]) == {}


def test_a_cache_takes_another_serializer_and_a_subclass_implements_the_interface() -> None:
    class Tagged:
        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            return "pickle", pickle.dumps(obj)

        def loads_typed(self, data: tuple[str, bytes]) -> Any:
            return ("loaded", pickle.loads(data[1]))

    cache: InMemoryCache[Any] = InMemoryCache(serde=Tagged())
    cache.set({(NS, "k"): (object, None)})
    assert cache.get([(NS, "k")]) == {(NS, "k"): ("loaded", object)}
    assert issubclass(InMemoryCache, BaseCache)
    with pytest.raises(TypeError, match="abstract"):
        BaseCache()  # type: ignore[abstract]


def test_the_default_key_is_the_same_for_an_input_built_alike() -> None:
    key = default_cache_key
    assert key({"a": 1, "b": [1, {"c": 2}]}) == key({"a": 1, "b": [1, {"c": 2}]})
    # as LangGraph's: key order and list/tuple count (the engine builds a node's input alike)
    assert key({"a": 1, "b": 2}) != key({"b": 2, "a": 1})
    assert key({"b": [1, 2]}) != key({"b": (1, 2)})
    assert key({"a": 1}) != key({"a": 2})
    assert key({"a": 1}) != key({"a": 1, "b": None})
    assert isinstance(key(Send("n", [1])), bytes)  # anything picklable has a key


def test_a_policy_is_a_frozen_keyword_only_value() -> None:
    policy: CachePolicy[Any] = CachePolicy(ttl=3)
    assert policy == CachePolicy(ttl=3) and policy.key_func is default_cache_key
    assert CachePolicy() != CachePolicy(ttl=1)
    with pytest.raises(TypeError):
        CachePolicy(len)  # type: ignore[call-arg,type-var]
    with pytest.raises(AttributeError):
        policy.ttl = 4  # type: ignore[misc]
    assert checked_policy(None, "add_node") is None
    assert checked_policy(policy, "add_node") is policy
    with pytest.raises(TypeError, match=r"^add_node\(cache_policy=\.\.\.\) takes a CachePolicy"):
        checked_policy(3, "add_node")


def test_a_key_is_digested_from_str_or_bytes_only() -> None:
    assert digest("abc") == digest(b"abc") and len(digest("abc")) == 32
    assert digest("abc") != digest("abd")
    with pytest.raises(TypeError, match="must return str or bytes, got int: 3"):
        digest(3)  # type: ignore[arg-type]


def _plain(state: Any) -> Any:
    return state


async def _async(state: Any) -> Any:
    return state


class _Callable:
    def __call__(self, state: Any) -> Any:
        return state


def test_a_node_namespace_names_a_plain_function_and_calls_the_rest_dynamic() -> None:
    here = __name__
    assert node_namespace("n", _plain) == (WRITES_NS, f"{here}._plain", "n")
    lam = lambda s: s  # noqa: E731
    assert node_namespace("n", lam) == (WRITES_NS, f"{here}.{lam.__qualname__}", "n")
    for dynamic in (_async, _Callable(), functools.partial(_plain)):
        assert node_namespace("n", dynamic) == (WRITES_NS, "__dynamic__", "n")
