"""What the two faces of a user's LangGraph-style saver share (``_sync_face``, ``_async_face``).

A face stands between a run and a saver that overrides LangGraph's store methods: it takes
the run's stores its own way, and for everything else it is the saver it wraps (ids, clock,
lock, encoding, the threads it lists).
"""

from __future__ import annotations

from typing import Any

from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver

__all__ = ["SaverFace"]


class SaverFace(BaseCheckpointSaver):
    """A saver standing for ``inner`` in one run: its ids, clock, lock and encoding."""

    journals = False

    def __init__(self, inner: BaseCheckpointSaver) -> None:
        # (no super().__init__: ids, clock and lock are the inner saver's)
        self.inner = inner
        self.new_id = inner.new_id
        self.now = inner.now
        self.lock = inner.lock
        self.raw_types = inner.raw_types

    def encode(self, value: Any, channel: str) -> Any:
        return self.inner.encode(value, channel)

    def decode(self, data: Any) -> Any:
        return self.inner.decode(data)

    def share_list(self, items: list[Any], length: int) -> Any | None:
        return self.inner.share_list(items, length)

    def threads(self) -> list[str]:
        return self.inner.threads()

    def namespaces(self, thread_id: str) -> list[str]:
        return self.inner.namespaces(thread_id)
