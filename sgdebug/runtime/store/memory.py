"""``InMemoryStore``: a store kept in a dict for the life of the process, with
LangGraph's in-memory store's results (order, namespaces listing, filters, and semantic
search when built with ``index=``)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sgdebug.runtime.store._items import Item, SearchItem
from sgdebug.runtime.store._match import matches_filter, namespace_matches
from sgdebug.runtime.store._ops import (
    GetOp,
    IndexConfig,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchOp,
)
from sgdebug.runtime.store._vectors import Candidate, Locations, VectorIndex, rank
from sgdebug.runtime.store.base import BaseStore

__all__ = ["InMemoryStore"]

Writes = dict[tuple[tuple[str, ...], str], PutOp]


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class _Batch:
    """What one batch read, and what it will write."""

    results: list[Result] = field(default_factory=list)
    writes: Writes = field(default_factory=dict)
    """The last write per (namespace, key), in first-written order."""
    searches: list[tuple[int, SearchOp, list[Candidate]]] = field(default_factory=list)
    """Each search's place in ``results``, and the items it found."""


class InMemoryStore(BaseStore):
    """Documents in memory, by namespace then key, in the order first written.

    As LangGraph's: a ``put`` sets both ``created_at`` and ``updated_at``; a namespace once
    read or written stays listed (even emptied); in one ``batch`` every read sees the store
    as it was before the batch's writes, which apply at its end (the last one per key wins).
    With ``index={"embed": ..., "fields": [...]}``, ``put`` embeds the fields' texts and
    ``search(query=)`` ranks what it finds by similarity (``SearchItem.score``).
    """

    __slots__ = ("_data", "_index", "_lock")

    def __init__(self, *, index: IndexConfig | None = None) -> None:
        self._data: defaultdict[tuple[str, ...], dict[str, Item]] = defaultdict(dict)
        self._index = VectorIndex(index) if index else None
        self._lock = threading.Lock()

    @property
    def index_config(self) -> IndexConfig | None:
        """The ``index=`` configuration (``None``: no semantic search)."""
        return None if self._index is None else self._index.config

    @property
    def embeddings(self) -> object:
        """What embeds texts for semantic search (``None`` without ``index=``)."""
        return None if self._index is None else self._index.embeddings

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops``: the reads as they come, then the writes."""
        pending = self._read_all(ops)
        index = self._index
        if index is not None:
            queries = {op.query for _, op, _ in pending.searches if op.query}
            self._rank(pending, {query: index.query(query) for query in queries})
            wanted = index.texts(pending.writes.values())
            index.keep(wanted, index.embed(list(wanted)) if wanted else [])
        self._write_all(pending.writes)
        return pending.results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch`, awaiting the embeddings."""
        pending = self._read_all(ops)
        index = self._index
        if index is not None:
            queries = {op.query for _, op, _ in pending.searches if op.query}
            self._rank(pending, {query: await index.aquery(query) for query in queries})
            wanted: Locations = index.texts(pending.writes.values())
            index.keep(wanted, await index.aembed(list(wanted)) if wanted else [])
        self._write_all(pending.writes)
        return pending.results

    # -- reading ---------------------------------------------------------------------------

    def _read_all(self, ops: Iterable[Op]) -> _Batch:
        pending = _Batch()
        with self._lock:
            for op in ops:
                pending.results.append(self._read(op, pending))
        return pending

    def _read(self, op: Op, pending: _Batch) -> Result:
        if isinstance(op, GetOp):
            return self._data[op.namespace].get(op.key)
        if isinstance(op, SearchOp):
            found = self._candidates(op)
            pending.searches.append((len(pending.results), op, found))
            return [_found(item) for item, _ in found[op.offset : op.offset + op.limit]]
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        if isinstance(op, PutOp):
            pending.writes[(op.namespace, op.key)] = op
            return None
        raise ValueError(f"Unknown operation type: {type(op)}")

    def _candidates(self, op: SearchOp) -> list[Candidate]:
        """The items under the search's prefix that match its filter, with their vectors
        when the search has a query to rank them by."""
        prefix = tuple(op.namespace_prefix)
        index = self._index if op.query else None
        return [
            (item, [] if index is None else index.of(namespace, item.key))
            for namespace, items in self._data.items()
            if namespace[: len(prefix)] == prefix
            for item in items.values()
            if matches_filter(item.value, op.filter)
        ]

    def _rank(self, pending: _Batch, vectors: dict[str, list[float]]) -> None:
        """Replace each search-with-a-query's page by its ranked page."""
        for position, op, found in pending.searches:
            if op.query and found:
                pending.results[position] = rank(op, vectors[op.query], found)

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        kept = [
            namespace
            for namespace in list(self._data)
            if all(namespace_matches(c, namespace) for c in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            kept = list({namespace[: op.max_depth] for namespace in kept})
        return sorted(kept)[op.offset : op.offset + op.limit]

    # -- writing ---------------------------------------------------------------------------

    def _write_all(self, writes: Writes) -> None:
        with self._lock:
            for (namespace, key), op in writes.items():
                self._write(namespace, key, op)

    def _write(self, namespace: tuple[str, ...], key: str, op: PutOp) -> None:
        if op.value is None:
            self._data[namespace].pop(key, None)
            if self._index is not None:
                self._index.forget(namespace, key)
            return
        value = dict(op.value)  # (a value that is not a mapping files no namespace)
        self._data[namespace][key] = Item(
            value=value, key=key, namespace=namespace, created_at=_now(), updated_at=_now()
        )


def _found(item: Item) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at)
