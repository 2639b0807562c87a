"""Long-term memory for graphs (LangGraph's ``langgraph.store``): ``compile(store=)``
hands a store to every node (a ``store`` parameter, ``runtime.store``, ``get_store()``),
shared across runs and threads; subgraphs use their parent's.

* ``base``: :class:`BaseStore`, the API nodes call, over one abstract ``batch``;
* ``memory``: :class:`InMemoryStore`;
* ``_items``: :class:`Item` / :class:`SearchItem`; ``_ops``: the operations, namespace
  checks and configuration types; ``_match``: search filters and namespace patterns;
* semantic search (``InMemoryStore(index=...)``): ``_paths`` (which texts of a document
  are embedded), ``_embed`` (what embeds them), ``_vectors`` (the vectors and ranking).
"""

from __future__ import annotations

from sgdebug.runtime.store._embed import ensure_embeddings
from sgdebug.runtime.store._items import Item, SearchItem
from sgdebug.runtime.store._ops import (
    NOT_PROVIDED,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    NamespaceMatchType,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
    validate_op_namespace,
)
from sgdebug.runtime.store._paths import texts_at, tokenize_path
from sgdebug.runtime.store.base import BaseStore
from sgdebug.runtime.store.memory import InMemoryStore

__all__ = [
    "NOT_PROVIDED",
    "BaseStore",
    "GetOp",
    "InMemoryStore",
    "IndexConfig",
    "InvalidNamespaceError",
    "Item",
    "ListNamespacesOp",
    "MatchCondition",
    "NamespaceMatchType",
    "NamespacePath",
    "NotProvided",
    "Op",
    "PutOp",
    "Result",
    "SearchItem",
    "SearchOp",
    "TTLConfig",
    "ensure_embeddings",
    "texts_at",
    "tokenize_path",
    "validate_op_namespace",
]
