"""The remote engine's reading side: a thread's snapshots and history, read over HTTP.

Each snapshot is read once per position (until :meth:`Reads.forget`, when the thread
moves). Views read all the time and must never fail: when the server cannot be reached,
a read gives what was last read for the same thing (or nothing), and ``Link.fault`` says
why, so a front end can show it. While the server is down, reads do not call it again
(a view makes many): the next moving command tries it, and clears the fault if it answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from sgdebug.debugger.engines import _remote_convert as convert
from sgdebug.debugger.engines._remote_client import Link, ServerFault
from sgdebug.runtime import StateSnapshot

__all__ = ["HISTORY_LIMIT", "Reads"]

HISTORY_LIMIT = 1000
"""The most snapshots of a thread read for its history (newest first)."""

T = TypeVar("T")


class Reads:
    """Cached reads of the server's threads; faults fall back on what was read before."""

    def __init__(self, link: Link, graph_id: str) -> None:
        self._link = link
        self._graph_id = graph_id
        self._cache: dict[str, Any] = {}
        self._known: dict[str, Any] = {}
        """What each read gave last time it worked (kept across :meth:`forget`)."""

    def forget(self) -> None:
        """Read everything again (the thread moved)."""
        self._cache.clear()

    def _read(self, key: str, read: Callable[[], T], fallback: T) -> T:
        if key in self._cache:
            return self._cache[key]  # type: ignore[no-any-return]
        if self._link.down:  # not again for every view: the next move tries the server
            return self._known.get(key, fallback)  # type: ignore[no-any-return]
        try:
            found = read()
        except ServerFault:
            return self._known.get(key, fallback)  # type: ignore[no-any-return]
        self._cache[key] = self._known[key] = found
        return found

    def state(self, thread_id: str, checkpoint: str | None) -> StateSnapshot | None:
        """The snapshot at ``checkpoint`` (the thread's newest for ``None``); ``None``
        when the server has no such thread or checkpoint (or cannot be reached)."""
        return self._read(f"state {thread_id} {checkpoint}",
                          lambda: self.fetch(thread_id, checkpoint), None)  # fmt: skip

    def fetch(self, thread_id: str, checkpoint: str | None) -> StateSnapshot | None:
        """The snapshot, read now; ``None`` for a 404; a fault raises :class:`ServerFault`."""
        from langgraph_sdk.errors import NotFoundError

        def get(client: Any) -> Any:
            try:
                return client.threads.get_state(thread_id, checkpoint_id=checkpoint)
            except NotFoundError:
                return None

        data = self._link.call(f"reading thread {thread_id}", get)
        if not data or not (data.get("checkpoint") or {}).get("checkpoint_id"):
            return None  # a thread without any checkpoint yet
        return convert.snapshot(data, thread_id)

    def subgraphs(self, thread_id: str, checkpoint: str) -> StateSnapshot | None:
        """The snapshot with its subgraph tasks' own state (``subgraphs=True``)."""

        def read() -> StateSnapshot | None:
            data = self._link.call(
                f"reading thread {thread_id}",
                lambda c: c.threads.get_state(thread_id, checkpoint_id=checkpoint,
                                              subgraphs=True),
            )  # fmt: skip
            return convert.snapshot(data, thread_id) if data else None

        return self._read(f"subgraphs {thread_id} {checkpoint}", read, None)

    def history(self, thread_id: str) -> list[StateSnapshot]:
        """Every snapshot of the thread, newest first."""

        def read() -> list[StateSnapshot]:
            items = self._link.call(
                f"reading the history of thread {thread_id}",
                lambda c: c.threads.get_history(thread_id, limit=HISTORY_LIMIT),
            )
            return [convert.snapshot(item, thread_id) for item in items or ()]

        return self._read(f"history {thread_id}", read, [])

    def threads(self) -> tuple[str, ...]:
        """The server's threads of this graph, most recently updated first."""
        return tuple(row[0] for row in self.thread_rows())

    def thread_rows(self) -> tuple[tuple[str, str, str], ...]:
        """``(thread id, status, updated at)`` of the graph's threads, newest first (status
        as the server keeps it: ``idle``, ``busy``, ``interrupted``, ``error``)."""

        def read() -> tuple[tuple[str, str, str], ...]:
            found = self._link.call(
                "listing threads",
                lambda c: c.threads.search(metadata={"graph_id": self._graph_id}, limit=100,
                                           sort_by="updated_at", sort_order="desc"),
            )  # fmt: skip
            return tuple(
                (str(t["thread_id"]), str(t.get("status") or ""), str(t.get("updated_at") or ""))
                for t in found or ()
            )

        return self._read("threads", read, ())
