"""``InMemoryStore``: a store kept in a dict for the life of the process, with
LangGraph's in-memory store's results (order, namespaces listing, filters)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterable
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
from sgdebug.runtime.store.base import BaseStore

__all__ = ["InMemoryStore"]


def _now() -> datetime:
    return datetime.now(UTC)


class InMemoryStore(BaseStore):
    """Documents in memory, by namespace then key, in the order first written.

    As LangGraph's: a ``put`` sets both ``created_at`` and ``updated_at``; a namespace once
    read or written stays listed (even emptied); in one ``batch`` every read sees the store
    as it was before the batch's writes, which apply at its end (the last one per key wins).
    """

    __slots__ = ("_data", "_lock", "index_config")

    def __init__(self, *, index: IndexConfig | None = None) -> None:
        if index:
            raise NotImplementedError(
                "InMemoryStore(index=...) (semantic search with embeddings) is not supported "
                "by sgdebug.runtime yet"
            )
        self.index_config: IndexConfig | None = None
        """Semantic search's configuration (always ``None`` here: see ``index=``)."""
        self._data: defaultdict[tuple[str, ...], dict[str, Item]] = defaultdict(dict)
        self._lock = threading.Lock()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` (reads first, as they were given; then the writes)."""
        with self._lock:
            results: list[Result] = []
            writes: dict[tuple[tuple[str, ...], str], PutOp] = {}
            for op in ops:
                results.append(self._read(op, writes))
            for (namespace, key), put in writes.items():
                self._write(namespace, key, put)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` (nothing to wait for in memory)."""
        return self.batch(ops)

    def _read(self, op: Op, writes: dict[tuple[tuple[str, ...], str], PutOp]) -> Result:
        if isinstance(op, GetOp):
            return self._data[op.namespace].get(op.key)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        if isinstance(op, PutOp):
            writes[(op.namespace, op.key)] = op
            return None
        raise ValueError(f"Unknown operation type: {type(op)}")

    def _write(self, namespace: tuple[str, ...], key: str, op: PutOp) -> None:
        if op.value is None:
            self._data[namespace].pop(key, None)
            return
        value = dict(op.value)  # (a value that is not a mapping files no namespace)
        now = _now()
        self._data[namespace][key] = Item(
            value=value, key=key, namespace=namespace, created_at=now, updated_at=_now()
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        found = [
            item
            for namespace, items in self._data.items()
            if namespace[: len(prefix)] == prefix
            for item in items.values()
            if matches_filter(item.value, op.filter)
        ]
        return [_found(item) for item in found[op.offset : op.offset + op.limit]]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        kept = [
            namespace
            for namespace in list(self._data)
            if all(namespace_matches(c, namespace) for c in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            kept = list({namespace[: op.max_depth] for namespace in kept})
        return sorted(kept)[op.offset : op.offset + op.limit]


def _found(item: Item) -> SearchItem:
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at)
