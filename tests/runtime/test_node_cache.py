"""Node caching in runs, beyond what the differential programs compare with LangGraph: the
debugger's one-task step, one ``set`` per cached task, errors of key functions and
serialisation, ``compile(cache=)`` checks, and a graph without a cache never looking."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.cache import CachePolicy, InMemoryCache
from sgdebug.runtime.checkpoint.serde import SerializationError
from sgdebug.runtime.engine import _cached


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


class CountsSets(InMemoryCache[Any]):
    """An InMemoryCache counting its ``set`` calls."""

    def __init__(self) -> None:
        super().__init__()
        self.sets = 0

    def set(self, pairs: Any) -> None:
        self.sets += 1
        super().set(pairs)


def _graph(cache: Any, calls: list[str], *, policy: Any = None, value: Any = None) -> Any:
    def a(state: S) -> dict[str, Any]:
        calls.append("a")
        return {"log": ["a"] if value is None else [value]}

    def b(state: S) -> dict[str, Any]:
        calls.append("b")
        return {"log": ["b"]}

    builder = StateGraph(S).add_node("a", a, cache_policy=policy or CachePolicy())
    builder.add_node("b", b, cache_policy=CachePolicy()).add_edge(START, "a").add_edge(START, "b")
    return builder.compile(cache=cache)


def test_the_debugger_stepping_one_task_replays_it_from_the_cache() -> None:
    calls: list[str] = []
    graph = _graph(InMemoryCache(), calls)
    assert graph.invoke({"x": 1, "log": []}) == {"x": 1, "log": ["a", "b"]}

    run = graph.start({"x": 1, "log": []})
    run.advance(one_step=True)  # the input step
    first = next(t for t in run.tasks if t.name == "a")
    run.run_one(first)
    assert first.done and first.writes == [("log", ["a"])]
    run.advance()
    assert run.status == "done" and run.read_values(("log",)) == {"log": ["a", "b"]}
    assert sorted(calls) == ["a", "b"]  # the second run called nothing


def test_each_cached_task_is_stored_once_and_a_hit_is_not_stored_again() -> None:
    cache = CountsSets()
    calls: list[str] = []
    graph = _graph(cache, calls)
    graph.invoke({"x": 1, "log": []})
    graph.invoke({"x": 1, "log": []})
    assert cache.sets == 2 and calls == ["a", "b"]
    assert graph.nodes["a"].cache_policy == CachePolicy()


def test_a_key_func_that_raises_fails_the_run_with_its_error() -> None:
    def broken(state: Any) -> str:
        raise KeyError("no key")

    graph = _graph(InMemoryCache(), [], policy=CachePolicy(key_func=broken))
    with pytest.raises(KeyError, match="no key"):
        graph.invoke({"x": 1, "log": []})


def test_writes_the_cache_cannot_store_fail_the_run_with_a_serialisation_error() -> None:
    graph = _graph(InMemoryCache(), [], value=object())
    with pytest.raises(SerializationError) as raised:
        graph.invoke({"x": 1, "log": []})
    assert "While caching the writes of node 'a'" in raised.value.__notes__[0]


def test_compile_refuses_a_cache_that_is_not_one() -> None:
    builder = StateGraph(S).add_node("a", lambda s: {}).add_edge(START, "a")
    with pytest.raises(TypeError, match=r"^compile\(cache=\.\.\.\) takes a BaseCache .*got dict"):
        builder.compile(cache={})


def test_a_graph_without_a_cache_never_looks_one_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any) -> Any:
        raise AssertionError("looked up a cache")

    monkeypatch.setattr(_cached, "_keyed", fail)
    calls: list[str] = []

    def a(state: S) -> dict[str, Any]:
        calls.append("a")
        return {"log": ["a"]}

    builder = StateGraph(S).add_node("a", a)
    builder.add_node("b", lambda s: {"log": ["b"]}, cache_policy=CachePolicy())
    graph = builder.add_edge(START, "a").add_edge("a", "b").compile()  # a policy, no cache

    assert graph.invoke({"x": 1, "log": []}) == {"x": 1, "log": ["a", "b"]}
    assert list(graph.stream({"x": 1, "log": []}))[-1] == {"b": {"log": ["b"]}}
    assert graph.cache is None and calls == ["a", "a"]
