"""``BaseStore``: the long-term memory API a graph's nodes call (``store.put/get/search``),
shared across threads and runs, built on one abstract ``batch`` of operations.

A store implementation only writes ``batch``/``abatch``; every public call checks its
namespace as LangGraph does, builds one operation (``_ops``) and returns its result.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from sgdebug.runtime.store._ops import (
    NOT_PROVIDED,
    GetOp,
    ListNamespacesOp,
    MatchCondition,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
    check_labels,
    check_namespace,
)

if TYPE_CHECKING:
    from sgdebug.runtime.store._items import Item, SearchItem

__all__ = ["BaseStore"]


def _refresh(config: TTLConfig | None, refresh_ttl: bool | None) -> bool:
    """Whether a read refreshes the items' TTL: the caller's choice, else the store's."""
    if refresh_ttl is not None:
        return refresh_ttl
    return True if config is None else config.get("refresh_on_read", True)


def _listing(
    prefix: NamespacePath | None,
    suffix: NamespacePath | None,
    max_depth: int | None,
    limit: int,
    offset: int,
) -> ListNamespacesOp:
    check_labels(prefix or ())
    check_labels(suffix or ())
    conditions = []
    if prefix:
        conditions.append(MatchCondition("prefix", prefix))
    if suffix:
        conditions.append(MatchCondition("suffix", suffix))
    return ListNamespacesOp(tuple(conditions), max_depth, limit, offset)


class BaseStore(ABC):
    """A key-value store of JSON-like documents filed under namespaces (tuples of labels)."""

    supports_ttl: bool = False
    """Whether ``put(ttl=)`` may set an expiry (subclasses that expire items say so)."""
    ttl_config: TTLConfig | None = None
    """How the store expires items, when it does."""

    __slots__ = ("__weakref__",)

    @abstractmethod
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; one result each."""

    @abstractmethod
    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch`, awaited."""

    # -- the calls a node makes ------------------------------------------------------------

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """The item under ``key`` in ``namespace``, or ``None``."""
        check_labels(namespace)
        op = GetOp(namespace, str(key), _refresh(self.ttl_config, refresh_ttl))
        return cast("Item | None", self.batch([op])[0])

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """The items under ``namespace_prefix`` whose values match ``filter``
        (``{"field": value}`` or ``{"field": {"$gt": 1}}``), ``offset``/``limit`` applied."""
        op = self._search_op(namespace_prefix, query, filter, limit, offset, refresh_ttl)
        return cast("list[SearchItem]", self.batch([op])[0])

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """Write ``value`` under ``key`` in ``namespace`` (replacing what was there)."""
        self.batch([self._put_op(namespace, key, value, index, ttl)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Remove the item under ``key`` in ``namespace`` (nothing if there is none)."""
        check_labels(namespace)
        self.batch([PutOp(namespace, str(key), None, ttl=None)])

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """The namespaces starting with ``prefix`` and ending with ``suffix`` (``"*"``
        matches any label), cut to ``max_depth`` labels, sorted, ``offset``/``limit`` applied."""
        op = _listing(prefix, suffix, max_depth, limit, offset)
        return cast("list[tuple[str, ...]]", self.batch([op])[0])

    # -- the same, awaited -----------------------------------------------------------------

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """:meth:`get`, awaited."""
        check_labels(namespace)
        op = GetOp(namespace, str(key), _refresh(self.ttl_config, refresh_ttl))
        return cast("Item | None", (await self.abatch([op]))[0])

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """:meth:`search`, awaited."""
        op = self._search_op(namespace_prefix, query, filter, limit, offset, refresh_ttl)
        return cast("list[SearchItem]", (await self.abatch([op]))[0])

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """:meth:`put`, awaited."""
        await self.abatch([self._put_op(namespace, key, value, index, ttl)])

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """:meth:`delete`, awaited."""
        check_labels(namespace)
        await self.abatch([PutOp(namespace, str(key), None)])

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """:meth:`list_namespaces`, awaited."""
        op = _listing(prefix, suffix, max_depth, limit, offset)
        return cast("list[tuple[str, ...]]", (await self.abatch([op]))[0])

    # -- building the operations -----------------------------------------------------------

    def _search_op(
        self,
        namespace_prefix: tuple[str, ...],
        query: str | None,
        filter: dict[str, Any] | None,
        limit: int,
        offset: int,
        refresh_ttl: bool | None,
    ) -> SearchOp:
        check_labels(namespace_prefix)
        refresh = _refresh(self.ttl_config, refresh_ttl)
        return SearchOp(namespace_prefix, filter, limit, offset, query, refresh)

    def _put_op(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal[False] | list[str] | None,
        ttl: float | NotProvided | None,
    ) -> PutOp:
        check_namespace(namespace)
        if ttl is not NOT_PROVIDED and ttl is not None and not self.supports_ttl:
            raise NotImplementedError(
                f"TTL is not supported by {type(self).__name__}. "
                "Use a store implementation that supports TTL or set ttl=None."
            )
        if isinstance(ttl, NotProvided):
            ttl = (self.ttl_config or {}).get("default_ttl")
        return PutOp(namespace, str(key), value, index=index, ttl=ttl)
