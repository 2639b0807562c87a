"""The operations a store's ``batch`` runs (one per public call: ``get`` is a
:class:`GetOp` ...), their result type, the namespace checks every call makes, and the
configuration types (:class:`TTLConfig`, :class:`IndexConfig`) LangGraph's stores take."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypedDict, Union

if TYPE_CHECKING:
    from sgdebug.runtime.store._items import Item, SearchItem

__all__ = [
    "NOT_PROVIDED",
    "GetOp",
    "IndexConfig",
    "InvalidNamespaceError",
    "ListNamespacesOp",
    "MatchCondition",
    "NamespaceMatchType",
    "NamespacePath",
    "NotProvided",
    "Op",
    "PutOp",
    "Result",
    "SearchOp",
    "TTLConfig",
    "check_labels",
    "check_namespace",
    "validate_op_namespace",
]


class NotProvided:
    """The "not given" marker of ``put(ttl=)`` (``None`` there means "never expires")."""

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_PROVIDED = NotProvided()
"""The one :class:`NotProvided`."""

NamespacePath = tuple[str, ...]
"""A namespace pattern for ``list_namespaces``: labels, ``"*"`` matching any one label."""
NamespaceMatchType = Literal["prefix", "suffix"]
"""Which end of a namespace a :class:`MatchCondition` compares."""


class GetOp(NamedTuple):
    """Read the item under ``key`` in ``namespace``."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class SearchOp(NamedTuple):
    """Find the items under ``namespace_prefix`` whose values match ``filter``."""

    namespace_prefix: tuple[str, ...]
    filter: dict[str, Any] | None = None
    limit: int = 10
    offset: int = 0
    query: str | None = None
    refresh_ttl: bool = True


class MatchCondition(NamedTuple):
    """Keep the namespaces whose first (``prefix``) or last (``suffix``) labels are ``path``."""

    match_type: NamespaceMatchType
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """List the namespaces matching every condition, cut to ``max_depth`` labels."""

    match_conditions: tuple[MatchCondition, ...] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


class PutOp(NamedTuple):
    """Write ``value`` under ``key`` in ``namespace`` (``None``: delete it)."""

    namespace: tuple[str, ...]
    key: str
    value: Mapping[str, Any] | None
    # (the field shadows ``tuple.index``, as LangGraph's does: users' code names it)
    index: Literal[False] | list[str] | None = None  # type: ignore[assignment]
    ttl: float | None = None


Op = Union[GetOp, SearchOp, PutOp, ListNamespacesOp]  # noqa: UP007  (a value at run time)
"""One operation of a batch."""
Result = Union["Item", list["Item"], list["SearchItem"], list[tuple[str, ...]], None]
"""What one operation of a batch returns."""


class TTLConfig(TypedDict, total=False):
    """How a store that supports TTL expires items (an in-memory store does not)."""

    refresh_on_read: bool
    omit_expired: bool
    default_ttl: float | None
    sweep_interval_minutes: int | None


class IndexConfig(TypedDict, total=False):
    """Semantic search: the embeddings' size, how to embed, which fields."""

    dims: int
    embed: Any
    fields: list[str] | None


class InvalidNamespaceError(ValueError):
    """A namespace that is empty, has a bad label, or starts with ``"langgraph"``."""


def check_labels(namespace: tuple[str, ...]) -> None:
    """Raise :class:`InvalidNamespaceError` for a label that is not a non-empty string
    without ``.`` or NUL (LangGraph's wording)."""
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {namespace}. Namespace labels"
                f" must be strings, but got {type(label).__name__}."
            )
        if "." in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {namespace}. Namespace labels "
                "cannot contain periods ('.')."
            )
        if "\x00" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label '{label}' found in {namespace}. Namespace labels "
                "cannot contain NUL bytes ('\\x00')."
            )
        if not label:
            raise InvalidNamespaceError(
                f"Namespace labels cannot be empty strings. Got {label} in {namespace}"
            )


def check_namespace(namespace: tuple[str, ...]) -> None:
    """:func:`check_labels`, and a namespace to write to is not empty nor LangGraph's own."""
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    check_labels(namespace)
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph". Got: {namespace}'
        )


def validate_op_namespace(op: Op) -> None:
    """Check the labels of an op given straight to ``batch`` (the public calls check them
    before they batch)."""
    if isinstance(op, GetOp | PutOp):
        check_labels(op.namespace)
    elif isinstance(op, SearchOp):
        check_labels(op.namespace_prefix)
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            check_labels(condition.path)
