"""Semantic search (``InMemoryStore(index=...)``): the same documents, fields and queries
on our store and on LangGraph's give the same pages, in the same order, with the same
scores; field paths pick the same texts."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langgraph.store.base import get_text_at_path, tokenize_path
from langgraph.store.memory import InMemoryStore as LangGraphStore

from sgdebug.runtime.store import InMemoryStore
from sgdebug.runtime.store._paths import texts_at
from sgdebug.runtime.store._paths import tokenize_path as our_tokenize_path
from tests.store_embeddings import letters


async def aletters(texts: Sequence[str]) -> list[list[float]]:
    return letters(texts)


class LetterEmbeddings(Embeddings):
    """A LangChain ``Embeddings`` object (the kind a user passes) over :func:`letters`
    (langchain-core's own fakes need numpy, which the test extra does not install)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return letters(texts)

    def embed_query(self, text: str) -> list[float]:
        return letters([text])[0]


DOCS: list[tuple[tuple[str, ...], str, dict[str, Any], Any]] = [
    (("docs",), "d1", {"text": "python tutorial", "meta": {"title": "snakes"}, "tags": ["py"]},
     None),
    (("docs",), "d2", {"text": "typescript guide", "meta": {"title": "types"}, "tags": ["web"]},
     None),
    (("docs",), "d3", {"text": "cooking pasta", "meta": {"title": "food"}}, None),
    (("docs",), "d4", {"other": "no text field"}, None),
    (("docs",), "d5", {"text": "zebra", "meta": {"title": "animals"}, "tags": ["zoo", "stripes"]},
     None),
    (("docs", "sub"), "d6", {"text": "python snakes zoo"}, ["meta.title", "tags[*]"]),
    (("docs",), "d7", {"text": "python again"}, False),  # not indexed: found, never scored
]  # fmt: skip

SEARCHES: list[dict[str, Any]] = [
    {"query": "python"},
    {"query": "python", "limit": 2},
    {"query": "guide to types", "limit": 3, "offset": 2},
    {"query": "zzz", "limit": 10, "offset": 5},  # past the scored items: unscored fill
    {"query": "food", "filter": {"meta": {"title": "food"}}},
    {"query": "food", "filter": {"meta": {"title": "nothing"}}},
    {},  # no query: store order, no scores
]


def _page(found: list[Any]) -> list[tuple[Any, ...]]:
    return [(i.namespace, i.key, i.value, i.score) for i in found]


def _session(store: Any) -> list[Any]:
    for namespace, key, value, index in DOCS:
        store.put(namespace, key, value, index=index)
    pages = [_page(store.search(("docs",), **search)) for search in SEARCHES]
    store.put(("docs",), "d1", {"text": "about africa", "meta": {"title": "x"}}, index=["text"])
    pages.append(_page(store.search(("docs",), query="python")))  # d1 keeps its old vectors
    store.delete(("docs",), "d2")
    pages.append(_page(store.search(("docs",), query="typescript")))
    pages.append(_page(store.search(("nothing",), query="x")))
    return pages


def _same_pages(mine: list[Any], theirs: list[Any]) -> None:
    assert len(mine) == len(theirs)
    for got, want in zip(mine, theirs, strict=True):
        assert [row[:3] for row in got] == [row[:3] for row in want]
        assert [row[3] for row in got] == pytest.approx([row[3] for row in want])


@pytest.mark.parametrize(
    "fields",
    [None, ["text"], ["meta.title", "tags[*]"], ["$"], ["{text,meta.title}"], ["missing"]],
)
def test_ranked_pages_are_langgraphs(fields: list[str] | None) -> None:
    config: dict[str, Any] = {"dims": 6, "embed": letters}
    if fields is not None:
        config["fields"] = fields
    mine = _session(InMemoryStore(index=config))  # type: ignore[arg-type]
    theirs = _session(LangGraphStore(index=config))  # type: ignore[arg-type]

    _same_pages(mine, theirs)
    if fields is None:
        assert mine[0][0][1] == "d1" and isinstance(mine[0][0][3], float)
        assert mine[3] and all(row[3] is None for row in mine[3])  # the unscored fill


def test_a_langchain_embeddings_object_and_async_functions_rank_alike() -> None:
    fake = LetterEmbeddings()
    _same_pages(
        _session(InMemoryStore(index={"dims": 6, "embed": fake})),
        _session(LangGraphStore(index={"dims": 6, "embed": fake})),
    )

    async def session(store: Any) -> list[Any]:
        await store.aput(("a",), "1", {"text": "hello world"})
        await store.aput(("a",), "2", {"text": "goodbye moon"})
        return _page(await store.asearch(("a",), query="hello"))

    for embed in (letters, aletters):
        mine = asyncio.run(session(InMemoryStore(index={"dims": 6, "embed": embed})))
        theirs = asyncio.run(session(LangGraphStore(index={"dims": 6, "embed": embed})))
        _same_pages([mine], [theirs])
        assert [row[1] for row in mine] == ["1", "2"]


def test_an_async_embedding_function_refuses_the_sync_calls_as_langgraphs_does() -> None:
    store = InMemoryStore(index={"dims": 6, "embed": aletters})
    with pytest.raises(ValueError, match="initialized with an async function"):
        store.put(("a",), "1", {"text": "x"})


def test_bad_embed_settings_say_what_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="embed must be provided"):
        InMemoryStore(index={"dims": 6})
    monkeypatch.setitem(sys.modules, "langchain.embeddings", None)  # langchain missing
    with pytest.raises(ValueError, match="Could not load embeddings from string 'openai:x'"):
        InMemoryStore(index={"dims": 6, "embed": "openai:x"})
    with pytest.raises(TypeError, match="must be an Embeddings object or a function"):
        InMemoryStore(index={"dims": 6, "embed": 5})
    wrong = InMemoryStore(index={"dims": 6, "embed": lambda texts: [[1.0]]})
    assert wrong.batch([]) == []  # nothing to embed: the function is not called
    with pytest.raises(ValueError, match=r"Number of embeddings \(1\) does not match"):
        wrong.put(("a",), "1", {"a": "x", "b": "y"}, index=["a", "b"])


def test_one_text_found_twice_is_embedded_once() -> None:
    # LangGraph 1.2.22 raises "Number of embeddings (1) does not match number of indices (2)"
    store = InMemoryStore(index={"dims": 6, "embed": letters, "fields": ["a", "b"]})
    store.put(("n",), "k", {"a": "same", "b": "same"})

    (found,) = store.search(("n",), query="same")
    assert found.score == pytest.approx(1.0)


def test_index_config_and_embeddings_are_readable() -> None:
    store = InMemoryStore(index={"dims": 6, "embed": letters, "fields": ["text"]})

    assert store.index_config == {"dims": 6, "embed": letters, "fields": ["text"]}
    assert store.embeddings.embed_query("abc") == letters(["abc"])[0]  # type: ignore[attr-defined]


DOC = {
    "title": "T", "n": 3, "ok": True, "none": None, "é": "ü", "list": [[1, 2], [3]],
    "meta": {"author": "A", "tags": ["x", "y"], "deep": {"z": 1}},
    "chapters": [{"text": "c1", "k": [1, 2]}, {"text": "c2"}, {"nope": 1}],
}  # fmt: skip
PATHS = [
    "$", "", "title", "n", "ok", "none", "meta", "meta.author", "meta.tags", "meta.tags[0]",
    "meta.tags[-1]", "meta.tags[5]", "meta.tags[x]", "chapters[*].text", "chapters[*]",
    "chapters[1].text", "{title,n}", "{title, meta.author, none, missing}",
    "meta.{author,tags}", "*", "meta.*", "chapters.*", "list[*][0]", "list[0][*]",
    "title[0]", "{meta.deep}", "é", "a.{b,{c}}", "chapters[*].k[*]", "[0]", "title.*", "x[",
    "{a",
]  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_field_paths_pick_langgraphs_texts(path: str) -> None:
    assert our_tokenize_path(path) == tokenize_path(path)
    assert texts_at(DOC, path) == get_text_at_path(DOC, path)
