"""What ``InMemoryStore(index={"embed": ...})`` embeds with: a LangChain ``Embeddings``
object (anything with ``embed_documents``/``embed_query``), a function from texts to
vectors (sync or async), or a ``"provider:model"`` string (through LangChain's
``init_embeddings``, when ``langchain`` is installed), as LangGraph accepts."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["Embedder", "ensure_embeddings"]

Vectors = list[list[float]]


def _is_async(func: Any) -> bool:
    call = getattr(func, "__call__", None)  # noqa: B004  (a callable object's method)
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(call)


class Embedder:
    """Embeds texts with a user's function (the store's view of LangChain's
    ``Embeddings``: ``embed_documents``, ``embed_query`` and their async twins)."""

    def __init__(self, func: Callable[[list[str]], Any]) -> None:
        self.func = func
        """The user's function: texts -> one vector each (maybe async)."""
        self.is_async = _is_async(func)
        """Whether it must be awaited (then only the async calls work)."""

    def embed_documents(self, texts: list[str]) -> Vectors:
        """One vector per text."""
        if self.is_async:
            raise ValueError(
                "EmbeddingsLambda was initialized with an async function but no sync function. "
                "Use aembed_documents for async operation or provide a sync function."
            )
        return list(self.func(texts))

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: list[str]) -> Vectors:
        """:meth:`embed_documents`, awaited (a sync function runs in a worker thread)."""
        if self.is_async:
            return list(await self.func(texts))
        return await asyncio.get_running_loop().run_in_executor(None, self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """:meth:`embed_query`, awaited."""
        return (await self.aembed_documents([text]))[0]


def _from_string(name: str) -> Any:
    try:
        from langchain.embeddings import init_embeddings  # type: ignore[import-not-found]
    except ImportError:
        raise ValueError(
            f"Could not load embeddings from string '{name}': loading embeddings by "
            "provider:identifier string needs langchain>=0.3.9 and the provider's package "
            "(pip install 'langchain>=0.3.9' 'langchain-openai'); or give 'embed' an "
            "Embeddings object or a Python function"
        ) from None
    return init_embeddings(name)


def ensure_embeddings(embed: Any) -> Any:
    """An object with ``embed_documents``/``embed_query`` (and async twins) for ``embed``."""
    if embed is None:
        raise ValueError("embed must be provided")
    if isinstance(embed, str):
        return _from_string(embed)
    if hasattr(embed, "embed_documents") and hasattr(embed, "embed_query"):
        return embed  # a LangChain Embeddings (or alike)
    if not callable(embed):
        raise TypeError(f"index 'embed' must be an Embeddings object or a function, not {embed!r}")
    return Embedder(embed)
