"""What a store holds and returns: :class:`Item` (``get``) and :class:`SearchItem`
(``search``), with LangGraph's fields, equality, ``dict()`` and repr."""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["Item", "SearchItem"]


def _as_time(value: datetime | str) -> datetime:
    """A timestamp, read back from its ISO text when it was serialised."""
    return datetime.fromisoformat(value) if isinstance(value, str) else value


class Item:
    """One stored document: its ``value`` under ``key`` in ``namespace``, and when it was
    written (an in-memory store sets both times on every ``put``)."""

    __slots__ = ("created_at", "key", "namespace", "updated_at", "value")

    def __init__(
        self,
        *,
        value: dict[str, Any],
        key: str,
        namespace: tuple[str, ...],
        created_at: datetime | str,
        updated_at: datetime | str,
    ) -> None:
        self.value = value
        """The stored document (its keys are what ``search(filter=)`` matches)."""
        self.key = key
        """Its key in the namespace."""
        self.namespace = tuple(namespace)
        """The path of labels it is filed under, e.g. ``("users", "42")``."""
        self.created_at = _as_time(created_at)
        """When it was written."""
        self.updated_at = _as_time(updated_at)
        """When it was last written."""

    def _fields(self) -> tuple[Any, ...]:
        return (self.value, self.key, self.namespace, self.created_at, self.updated_at)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def dict(self) -> dict[str, Any]:
        """The item as JSON-ready data (namespace as a list, times as ISO text)."""
        return {
            "namespace": list(self.namespace),
            "key": self.key,
            "value": self.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.dict().items())
        return f"Item({shown})"  # (a SearchItem's too, as LangGraph shows it)


class SearchItem(Item):
    """An item found by ``search``: with its relevance ``score`` (``None`` unless the
    search ranked items by a query)."""

    __slots__ = ("score",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime | str,
        updated_at: datetime | str,
        score: float | None = None,
    ) -> None:
        super().__init__(
            value=value,
            key=key,
            namespace=namespace,
            created_at=created_at,
            updated_at=updated_at,
        )
        self.score = score
        """How well it matched the search's query (``None`` without one)."""

    def dict(self) -> dict[str, Any]:
        """The item as JSON-ready data, with its score."""
        return {**super().dict(), "score": self.score}
