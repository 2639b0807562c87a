"""Semantic search for ``InMemoryStore(index=...)``: the vectors of each item's indexed
texts, and the ranking of a search's candidates by cosine similarity to its query, as
LangGraph's in-memory store ranks them (an item scores its best text; items with no
vector fill what is left of the page, unscored)."""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sgdebug.runtime.store._embed import ensure_embeddings
from sgdebug.runtime.store._items import Item, SearchItem
from sgdebug.runtime.store._ops import IndexConfig, PutOp, SearchOp
from sgdebug.runtime.store._paths import WHOLE, texts_at, tokenize_path

__all__ = ["Candidate", "Locations", "VectorIndex", "rank"]

Vector = list[float]
Candidate = tuple[Item, list[Vector]]
"""An item a search found, with its vectors (none unless the search has a query)."""
Locations = dict[str, list[tuple[tuple[str, ...], str, str]]]
"""Text to embed -> where its vector goes: (namespace, key, field path)."""


def _cosine(query: Vector, vector: Vector) -> float:
    norms = math.sqrt(sum(a * a for a in query)) * math.sqrt(sum(b * b for b in vector))
    if not norms:
        return 0.0
    return sum(a * b for a, b in zip(query, vector, strict=False)) / norms


def rank(op: SearchOp, query: Vector, candidates: Sequence[Candidate]) -> list[SearchItem]:
    """The page ``op`` asks for of ``candidates`` ranked by their best score for ``query``."""
    scored = sorted(
        ((_cosine(query, vector), item) for item, vectors in candidates for vector in vectors),
        key=lambda pair: pair[0],
        reverse=True,
    )
    best: dict[tuple[tuple[str, ...], str], tuple[float | None, Item]] = {}
    for score, item in scored:
        best.setdefault((item.namespace, item.key), (score, item))
    kept = list(best.values())[op.offset : op.offset + op.limit]
    unscored = [item for item, vectors in candidates if not vectors]
    if unscored and len(kept) < op.limit:
        kept.extend((None, item) for item in unscored[: op.limit - len(kept)])
    return [_found(item, score) for score, item in kept]


def _found(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        item.namespace, item.key, item.value, item.created_at, item.updated_at, score=score
    )


class VectorIndex:
    """The embedding function and the vectors of every indexed item's texts."""

    def __init__(self, config: IndexConfig) -> None:
        self.config: IndexConfig = dict(config)  # type: ignore[assignment]
        """The ``index=`` configuration, as given."""
        self.embeddings: Any = ensure_embeddings(config.get("embed"))
        """What embeds texts (``embed_documents`` / ``embed_query``)."""
        paths = config.get("fields") or [WHOLE]
        self.fields = [(path, path if path == WHOLE else tokenize_path(path)) for path in paths]
        """The configured field paths, with their tokens."""
        self.vectors: defaultdict[tuple[str, ...], defaultdict[str, dict[str, Vector]]]
        self.vectors = defaultdict(lambda: defaultdict(dict))
        """namespace -> key -> field path (``path.i`` for the i-th of several) -> vector."""

    def of(self, namespace: tuple[str, ...], key: str) -> list[Vector]:
        """The vectors of one item (none if it has no indexed text)."""
        found = self.vectors[namespace].get(key) if namespace in self.vectors else None
        return list(found.values()) if found else []

    def texts(self, writes: Iterable[PutOp]) -> Locations:
        """The texts the writes index (``index=False``: none; a list: those paths)."""
        wanted: Locations = defaultdict(list)
        for op in writes:
            if op.value is None or op.index is False:
                continue
            fields = self.fields if op.index is None else [(p, tokenize_path(p)) for p in op.index]
            for path, tokens in fields:
                found = texts_at(op.value, tokens)
                for i, text in enumerate(found):
                    where = f"{path}.{i}" if len(found) > 1 else path
                    wanted[text].append((op.namespace, op.key, where))
        return wanted

    def embed(self, texts: list[str]) -> list[Vector]:
        """One vector per text."""
        return list(self.embeddings.embed_documents(texts))

    async def aembed(self, texts: list[str]) -> list[Vector]:
        """:meth:`embed`, awaited."""
        embed = getattr(self.embeddings, "aembed_documents", None)
        if embed is None:  # (an embeddings object without async calls)
            return await asyncio.get_running_loop().run_in_executor(None, self.embed, texts)
        return list(await embed(texts))

    def query(self, text: str) -> Vector:
        """The vector of a search query."""
        return list(self.embeddings.embed_query(text))

    async def aquery(self, text: str) -> Vector:
        """:meth:`query`, awaited."""
        embed = getattr(self.embeddings, "aembed_query", None)
        if embed is None:
            return await asyncio.get_running_loop().run_in_executor(None, self.query, text)
        return list(await embed(text))

    def keep(self, wanted: Locations, vectors: Sequence[Vector]) -> None:
        """File each text's vector where the text was found (a text found in several
        places is embedded once: LangGraph 1.2.22 raises there, a count mismatch)."""
        if len(vectors) != len(wanted):
            raise ValueError(
                f"Number of embeddings ({len(vectors)}) does not match number of indices "
                f"({len(wanted)})"
            )
        for vector, places in zip(vectors, wanted.values(), strict=True):
            for namespace, key, path in places:
                self.vectors[namespace][key][path] = list(vector)

    def forget(self, namespace: tuple[str, ...], key: str) -> None:
        """Drop a deleted item's vectors."""
        self.vectors[namespace].pop(key, None)
