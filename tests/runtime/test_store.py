"""``sgdebug.runtime.store``: the same calls on our ``InMemoryStore`` and on LangGraph's give
the same results (order of search results, namespace listings, filters, errors)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from langgraph.store import base as lg_base
from langgraph.store import memory as lg_memory

from sgdebug.runtime import store as ours

Call = Callable[[Any], Any]

SEED: list[tuple[tuple[str, ...], str, dict[str, Any]]] = [
    (("users", "ann"), "prefs", {"theme": "dark", "size": 3}),
    (("users", "bob"), "prefs", {"theme": "light", "size": 1, "tags": ["a", "b"]}),
    (("users", "ann", "notes"), "n1", {"text": "hi", "meta": {"lang": "en", "n": 2}}),
    (("docs",), "d1", {"kind": "article", "size": 2}),
    (("users", "ann"), "extra", {"theme": "dark", "size": 5}),
    (("users", "ann"), "prefs", {"theme": "blue", "size": 4}),  # rewritten: keeps its place
    (("docs", "drafts", "ann"), "d2", {"kind": "draft"}),
]


def _seeded(store: Any) -> Any:
    store.get(("touched",), "nothing")  # a read files the namespace (LangGraph's does)
    for namespace, key, value in SEED:
        store.put(namespace, key, value)
    store.put(("gone",), "k", {"x": 1})
    store.delete(("gone",), "k")  # an emptied namespace stays listed
    return store


def _plain(result: Any) -> Any:
    """A store result as comparable data (items without their timestamps)."""
    if isinstance(result, list):
        return [_plain(r) for r in result]
    if hasattr(result, "key") and hasattr(result, "namespace"):
        score = getattr(result, "score", "no score")
        return (type(result).__name__, result.namespace, result.key, result.value, score)
    return result


def _outcome(call: Call, store: Any) -> Any:
    try:
        return _plain(call(store))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


CALLS: dict[str, Call] = {
    "search all": lambda s: s.search(()),
    "search prefix": lambda s: s.search(("users",)),
    "search deeper prefix": lambda s: s.search(("users", "ann")),
    "search no match": lambda s: s.search(("nobody",)),
    "search limit offset": lambda s: s.search(("users",), limit=2, offset=1),
    "search offset past end": lambda s: s.search(("users",), offset=10),
    "filter equal": lambda s: s.search((), filter={"theme": "dark"}),
    "filter two keys": lambda s: s.search((), filter={"theme": "dark", "size": 5}),
    "filter nested dict": lambda s: s.search((), filter={"meta": {"lang": "en"}}),
    "filter list": lambda s: s.search((), filter={"tags": ["a", "b"]}),
    "filter gt lte": lambda s: s.search((), filter={"size": {"$gt": 1, "$lte": 4}}),
    "filter ne": lambda s: s.search(("users",), filter={"theme": {"$ne": "dark"}}),
    "filter eq op": lambda s: s.search((), filter={"kind": {"$eq": "draft"}}),
    "filter bad operator": lambda s: s.search((), filter={"size": {"$in": [1]}}),
    "query without index": lambda s: s.search(("docs",), query="articles"),
    "get": lambda s: s.get(("users", "ann"), "prefs"),
    "get missing": lambda s: s.get(("users", "ann"), "nope"),
    "get int key": lambda s: s.get(("docs",), 5),
    "list all": lambda s: s.list_namespaces(),
    "list prefix": lambda s: s.list_namespaces(prefix=("users",)),
    "list suffix": lambda s: s.list_namespaces(suffix=("ann",)),
    "list wildcard prefix": lambda s: s.list_namespaces(prefix=("*", "ann")),
    "list wildcard suffix": lambda s: s.list_namespaces(suffix=("drafts", "*")),
    "list prefix and suffix": lambda s: s.list_namespaces(prefix=("users",), suffix=("notes",)),
    "list max depth 1": lambda s: s.list_namespaces(max_depth=1),
    "list max depth 2 prefix": lambda s: s.list_namespaces(prefix=("users",), max_depth=2),
    "list limit offset": lambda s: s.list_namespaces(limit=2, offset=1),
    "list bad label": lambda s: s.list_namespaces(prefix=("a.b",)),
    "put empty namespace": lambda s: s.put((), "k", {}),
    "put langgraph root": lambda s: s.put(("langgraph", "x"), "k", {}),
    "put period label": lambda s: s.put(("a.b",), "k", {}),
    "put int label": lambda s: s.put(("a", 1), "k", {}),
    "put empty label": lambda s: s.put(("a", ""), "k", {}),
    "put nul label": lambda s: s.put(("a\x00",), "k", {}),
    "put ttl": lambda s: s.put(("a",), "k", {}, ttl=5),
    "put ttl none": lambda s: s.put(("a",), "k", {"v": 1}, ttl=None),
    "put not a mapping": lambda s: s.put(("a",), "k", 5),
    "get period label": lambda s: s.get(("a.b",), "k"),
    "delete missing": lambda s: s.delete(("never",), "k"),
    "search bad label": lambda s: s.search(("",)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_same_result_as_langgraphs_in_memory_store(name: str) -> None:
    call = CALLS[name]
    theirs = _seeded(lg_memory.InMemoryStore())
    mine = _seeded(ours.InMemoryStore())

    assert _outcome(call, mine) == _outcome(call, theirs)
    assert mine.list_namespaces() == theirs.list_namespaces()  # what the call left behind
    assert _plain(mine.search((), limit=100)) == _plain(theirs.search((), limit=100))


def _ops(module: Any) -> list[Any]:
    return [
        module.GetOp(("users", "ann"), "prefs"),
        module.PutOp(("users", "ann"), "prefs", {"theme": "new"}),
        module.GetOp(("users", "ann"), "prefs"),  # reads see the store before the writes
        module.PutOp(("users", "ann"), "prefs", {"theme": "last"}),  # the last write wins
        module.PutOp(("users", "bob"), "prefs", None),  # a delete
        module.SearchOp(("users",), limit=5),
        module.ListNamespacesOp(
            match_conditions=(module.MatchCondition("prefix", ("users",)),), max_depth=2
        ),
    ]


def test_a_batch_reads_before_it_writes_as_langgraphs_does() -> None:
    theirs = _seeded(lg_memory.InMemoryStore())
    mine = _seeded(ours.InMemoryStore())

    assert _plain(mine.batch(_ops(ours))) == _plain(theirs.batch(_ops(lg_base)))
    assert _plain(mine.get(("users", "ann"), "prefs"))[3] == {"theme": "last"}
    assert mine.get(("users", "bob"), "prefs") is None
    with pytest.raises(ValueError, match="Unknown operation type"):
        mine.batch(["not an op"])


def test_the_async_calls_give_the_sync_results() -> None:
    async def calls(store: Any, module: Any) -> list[Any]:
        await store.aput(("a", "b"), "k1", {"v": 1})
        await store.aput(("a", "c"), "k2", {"v": 2})
        await store.adelete(("a", "c"), "k2")
        return [
            await store.aget(("a", "b"), "k1"),
            await store.asearch(("a",), filter={"v": 1}),
            await store.alist_namespaces(prefix=("a",), max_depth=2),
            await store.abatch([module.GetOp(("a", "b"), "k1")]),
        ]

    mine = asyncio.run(calls(ours.InMemoryStore(), ours))
    theirs = asyncio.run(calls(lg_memory.InMemoryStore(), lg_base))

    assert _plain(mine) == _plain(theirs)
    assert _plain(mine[0]) == ("Item", ("a", "b"), "k1", {"v": 1}, "no score")


def test_items_have_langgraphs_fields_repr_dict_and_equality() -> None:
    when = "2026-01-02T03:04:05+00:00"
    at = datetime.fromisoformat(when)
    mine = ours.Item(value={"a": 1}, key="k", namespace=("n",), created_at=when, updated_at=when)
    theirs = lg_base.Item(value={"a": 1}, key="k", namespace=("n",), created_at=at, updated_at=at)
    found = ours.SearchItem(("n",), "k", {"a": 1}, when, when, score=0.5)
    lg_found = lg_base.SearchItem(("n",), "k", {"a": 1}, at, at, score=0.5)

    assert repr(mine) == repr(theirs)
    assert repr(found) == repr(lg_found)
    assert mine.dict() == theirs.dict()
    assert found.dict() == lg_found.dict()
    assert mine.created_at == datetime.fromisoformat(when)
    assert mine == found  # a search item equals the item it found (as in LangGraph)
    assert hash(mine) == hash((("n",), "k"))
    assert mine != ours.Item(
        value={"a": 2}, key="k", namespace=("n",), created_at=when, updated_at=when
    )


def test_a_put_stamps_both_times_and_a_rewrite_restamps_them() -> None:
    store = ours.InMemoryStore()
    store.put(("n",), "k", {"v": 1})
    first = store.get(("n",), "k")
    store.put(("n",), "k", {"v": 2})
    second = store.get(("n",), "k")

    assert first is not None and second is not None
    assert first.created_at.tzinfo is not None
    assert first.created_at <= first.updated_at <= second.created_at <= second.updated_at
    assert second.value == {"v": 2}


def test_a_value_is_copied_in_so_later_changes_to_the_callers_dict_do_not_leak() -> None:
    store = ours.InMemoryStore()
    value = {"v": 1}
    store.put(("n",), "k", value)
    value["v"] = 2

    assert store.get(("n",), "k").value == {"v": 1}  # type: ignore[union-attr]


def test_ttl_is_refused_as_langgraph_refuses_it_and_unknown_keywords_raise() -> None:
    with pytest.raises(TypeError):
        ours.InMemoryStore(ttl={"default_ttl": 1})  # type: ignore[call-arg]
    assert ours.InMemoryStore().supports_ttl is False
    assert ours.InMemoryStore().index_config is None
    assert ours.InMemoryStore().embeddings is None


def test_namespace_errors_are_value_errors_of_langgraphs_class_name() -> None:
    with pytest.raises(ValueError, match="Namespace cannot be empty") as raised:
        ours.InMemoryStore().put((), "k", {})

    assert type(raised.value).__name__ == "InvalidNamespaceError"
    with pytest.raises(ours.InvalidNamespaceError):
        ours.validate_op_namespace(ours.SearchOp(("a.b",)))
    ours.validate_op_namespace(ours.ListNamespacesOp())
