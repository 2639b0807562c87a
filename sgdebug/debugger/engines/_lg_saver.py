"""A LangGraph checkpointer keeping a LangGraph graph's history in a session file.

The session file's SQLite connection (and its lock) is shared with the runtime's
``SqliteSaver``; LangGraph's history goes to tables of its own, created on first use:
``lg_checkpoints`` (one row per checkpoint, its channel values left out), ``lg_blobs``
(one row per channel version: storage grows with what changed) and ``lg_writes`` (the
tasks' pending writes). Each ``put`` and ``put_writes`` is one transaction.

Values are written the way LangGraph's own checkpointers write them and read back by
:mod:`._lg_serde`, which never unpickles, imports or calls what a row names, so a session
file from someone else is safe to open. :meth:`LangGraphSessionSaver.verify` reads every
row once, so that a damaged file is refused when it is opened, not halfway through a run.

Only the LangGraph engine's session files import this module (it imports langgraph).
"""

from __future__ import annotations

import random
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Final

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)

from sgdebug.debugger.engines._lg_serde import (
    DamagedValueError,
    UnstorableValueError,
    decode,
    encode,
    serializer,
)

__all__ = ["TABLES", "DamagedRowError", "LangGraphSessionSaver", "UnstorableValueError"]

TABLES: Final = frozenset({"lg_checkpoints", "lg_blobs", "lg_writes"})
"""The tables this checkpointer keeps in the session file."""
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS lg_checkpoints (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    parent_id TEXT, type TEXT NOT NULL, checkpoint BLOB NOT NULL,
    metadata_type TEXT NOT NULL, metadata BLOB NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS lg_blobs (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, channel TEXT NOT NULL,
    version NOT NULL, type TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);
CREATE TABLE IF NOT EXISTS lg_writes (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT NOT NULL,
    value BLOB NOT NULL, task_path TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
"""
_COLUMNS: Final = "thread_id, checkpoint_ns, checkpoint_id, parent_id, type, checkpoint"
_LIST_QUERY: Final = (
    "WITH t AS (SELECT thread_id, MIN(rowid) AS first FROM lg_checkpoints GROUP BY thread_id), "
    "n AS (SELECT thread_id, checkpoint_ns, MIN(rowid) AS first FROM lg_checkpoints "
    "GROUP BY thread_id, checkpoint_ns) "
    f"SELECT {', '.join(f'c.{name}' for name in _COLUMNS.split(', '))}, "
    "c.metadata_type, c.metadata FROM lg_checkpoints c "
    "JOIN t ON t.thread_id = c.thread_id "
    "JOIN n ON n.thread_id = c.thread_id AND n.checkpoint_ns = c.checkpoint_ns "
    "{where}ORDER BY t.first, n.first, c.checkpoint_id DESC"
)
"""Threads (and namespaces) in the order they were first written, newest checkpoint first."""
_EMPTY: Final = "empty"
"""The type of a blob row recording that a channel was emptied."""


_Writes = list[tuple[str, str, Any]]


class DamagedRowError(ValueError):
    """A row of the file cannot be read back safely; the message says which and why."""


class LangGraphSessionSaver(BaseCheckpointSaver[str]):
    """LangGraph's checkpointer interface over a session file's SQLite connection."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        """Use ``conn`` (autocommit mode, shared) under ``lock``; create the tables."""
        super().__init__(serde=serializer())
        self.conn = conn
        self.lock = lock
        with self._transaction():
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.conn.execute(statement)

    # -- reading ---------------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        configurable = config["configurable"]
        thread_id, ns = configurable["thread_id"], configurable.get("checkpoint_ns", "")
        checkpoint_id = get_checkpoint_id(config)
        query = f"SELECT {_COLUMNS}, metadata_type, metadata FROM lg_checkpoints c "
        if checkpoint_id:
            query += "WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?"
            args: tuple[Any, ...] = (thread_id, ns, checkpoint_id)
        else:
            query += "WHERE thread_id=? AND checkpoint_ns=? ORDER BY checkpoint_id DESC LIMIT 1"
            args = (thread_id, ns)
        with self.lock:
            row = self.conn.execute(query, args).fetchone()
        if row is None:
            return None
        found = self._tuple(row, self._metadata(row))
        return found._replace(config=config) if checkpoint_id else found

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        query, args = _list_query(config, before)
        with self.lock:
            rows = self.conn.execute(query, args).fetchall()
        for row in rows:
            if limit is not None and limit <= 0:
                return
            metadata = self._metadata(row)
            if filter and not all(metadata.get(k) == v for k, v in filter.items()):
                continue
            if limit is not None:
                limit -= 1
            yield self._tuple(row, metadata)

    def verify(self) -> None:
        """Read every stored row once; raise :class:`DamagedRowError` at the first bad one."""
        with self.lock:
            rows = self.conn.execute(
                f"SELECT {_COLUMNS}, metadata_type, metadata FROM lg_checkpoints"
            ).fetchall()
            blobs = self.conn.execute("SELECT thread_id, channel, type, value FROM lg_blobs")
            for thread_id, channel, kind, data in blobs:
                if kind != _EMPTY:
                    _decode(kind, data, f"channel {channel!r} of thread {thread_id!r}")
            writes = self.conn.execute("SELECT thread_id, channel, type, value FROM lg_writes")
            for thread_id, channel, kind, data in writes:
                _decode(kind, data, f"a write to {channel!r} of thread {thread_id!r}")
        for row in rows:
            self._metadata(row)
            self._checkpoint(row)

    # -- writing ---------------------------------------------------------------------------

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        configurable = config["configurable"]
        thread_id, ns = configurable["thread_id"], configurable.get("checkpoint_ns", "")
        stored: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = stored.pop("channel_values")
        blobs = [
            (
                thread_id,
                ns,
                channel,
                version,
                *(encode(values[channel], channel) if channel in values else (_EMPTY, b"")),
            )
            for channel, version in new_versions.items()
        ]
        row = (
            thread_id,
            ns,
            checkpoint["id"],
            configurable.get("checkpoint_id"),
            *encode(stored, "(the checkpoint)"),
            *encode(get_checkpoint_metadata(config, metadata), "(the checkpoint's metadata)"),
        )
        with self._transaction():
            self.conn.executemany("INSERT OR REPLACE INTO lg_blobs VALUES (?,?,?,?,?,?)", blobs)
            self.conn.execute("INSERT OR REPLACE INTO lg_checkpoints VALUES (?,?,?,?,?,?,?,?)", row)
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint["id"],
            }
        }

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        configurable = config["configurable"]
        key = (
            configurable["thread_id"],
            configurable.get("checkpoint_ns", ""),
            configurable["checkpoint_id"],
            task_id,
        )
        # A task's own writes are kept from its first attempt; special ones are replaced.
        kept: list[tuple[Any, ...]] = []
        replaced: list[tuple[Any, ...]] = []
        for index, (channel, value) in enumerate(writes):
            slot = WRITES_IDX_MAP.get(channel, index)
            row = (*key, slot, channel, *encode(value, channel), task_path)
            (kept if slot >= 0 else replaced).append(row)
        with self._transaction():
            self.conn.executemany(
                "INSERT OR IGNORE INTO lg_writes VALUES (?,?,?,?,?,?,?,?,?)", kept
            )
            self.conn.executemany(
                "INSERT OR REPLACE INTO lg_writes VALUES (?,?,?,?,?,?,?,?,?)", replaced
            )

    def delete_thread(self, thread_id: str) -> None:
        with self._transaction():
            for table in ("lg_checkpoints", "lg_blobs", "lg_writes"):
                self.conn.execute(f"DELETE FROM {table} WHERE thread_id=?", (thread_id,))

    def get_next_version(self, current: str | None, channel: None) -> str:
        """The version after ``current``: a counter, then a random part, so that two
        branches forked from one checkpoint never store a channel under the same version."""
        count = 0 if current is None else int(str(current).split(".")[0])
        return f"{count + 1:032}.{random.random():016}"

    # -- async (the same calls: SQLite is local and each call is short) -------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for found in self.list(config, filter=filter, before=before, limit=limit):
            yield found

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(thread_id)

    # -- machinery -------------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """Hold the lock in one transaction: committed, or rolled back on an error."""
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                yield
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def _tuple(self, row: Sequence[Any], metadata: CheckpointMetadata) -> CheckpointTuple:
        thread_id, ns, checkpoint_id, parent_id = row[:4]
        checkpoint = self._checkpoint(row)
        where = (thread_id, ns, checkpoint_id)
        parent = _config(thread_id, ns, parent_id) if parent_id else None
        return CheckpointTuple(
            config=_config(thread_id, ns, checkpoint_id),
            checkpoint={**checkpoint, "channel_values": self._values(where, checkpoint)},
            metadata=metadata,
            parent_config=parent,
            pending_writes=self._writes(where),
        )

    def _checkpoint(self, row: Sequence[Any]) -> Checkpoint:
        label = f"checkpoint {row[2]!r} of thread {row[0]!r}"
        checkpoint = _decode(row[4], row[5], label)
        versions = checkpoint.get("channel_versions") if isinstance(checkpoint, dict) else None
        if not (
            isinstance(versions, dict)
            and all(isinstance(k, str) and _is_version(v) for k, v in versions.items())
            and isinstance(checkpoint.get("versions_seen"), dict)
        ):
            raise DamagedRowError(f"{label} is not a LangGraph checkpoint")
        result: Checkpoint = checkpoint
        return result

    def _metadata(self, row: Sequence[Any]) -> CheckpointMetadata:
        label = f"the metadata of checkpoint {row[2]!r} of thread {row[0]!r}"
        metadata = _decode(row[6], row[7], label)
        if not isinstance(metadata, dict):
            raise DamagedRowError(f"{label} is not a mapping")
        result: CheckpointMetadata = metadata  # type: ignore[assignment]
        return result

    def _values(self, where: tuple[str, str, str], checkpoint: Checkpoint) -> dict[str, Any]:
        versions: Mapping[str, Any] = checkpoint["channel_versions"]
        if not versions:
            return {}
        pairs = ",".join("(?,?)" for _ in versions)
        query = (  # a key lookup per channel (an IN list would scan the thread's blobs)
            f"SELECT b.channel, b.type, b.value FROM (VALUES {pairs}) AS w CROSS JOIN lg_blobs b "
            "WHERE b.thread_id=? AND b.checkpoint_ns=? AND b.channel=w.column1 "
            "AND b.version=w.column2"
        )
        args = [*(x for pair in versions.items() for x in pair), where[0], where[1]]
        with self.lock:
            rows = self.conn.execute(query, args).fetchall()
        found = {channel: (kind, data) for channel, kind, data in rows if kind != _EMPTY}
        label = f"channel {{!r}} of checkpoint {where[2]!r} of thread {where[0]!r}"
        return {
            channel: _decode(*found[channel], label.format(channel))
            for channel in versions
            if channel in found
        }

    def _writes(self, where: tuple[str, str, str]) -> _Writes:
        with self.lock:
            rows = self.conn.execute(
                "SELECT task_id, channel, type, value FROM lg_writes WHERE thread_id=? "
                "AND checkpoint_ns=? AND checkpoint_id=? ORDER BY task_path, task_id, idx",
                where,
            ).fetchall()
        label = f"a write to {{!r}} at checkpoint {where[2]!r} of thread {where[0]!r}"
        return [
            (task, channel, _decode(kind, data, label.format(channel)))
            for task, channel, kind, data in rows
        ]


def _decode(kind: Any, data: Any, label: str) -> Any:
    try:
        return decode(str(kind), data)
    except DamagedValueError as exc:
        raise DamagedRowError(f"{label}: {exc}") from None


def _is_version(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _config(thread_id: str, ns: str, checkpoint_id: str) -> RunnableConfig:
    return {
        "configurable": {
            "thread_id": thread_id,
            "checkpoint_ns": ns,
            "checkpoint_id": checkpoint_id,
        }
    }


def _list_query(
    config: RunnableConfig | None, before: RunnableConfig | None
) -> tuple[str, list[Any]]:
    """The query :meth:`LangGraphSessionSaver.list` runs, as LangGraph's in-memory saver
    selects: one thread (or all), one namespace if given, one checkpoint if given."""
    where, args = [], []
    if config is not None:
        configurable = config["configurable"]
        where.append("c.thread_id=?")
        args.append(configurable["thread_id"])
        if configurable.get("checkpoint_ns") is not None:
            where.append("c.checkpoint_ns=?")
            args.append(configurable["checkpoint_ns"])
        if checkpoint_id := get_checkpoint_id(config):
            where.append("c.checkpoint_id=?")
            args.append(checkpoint_id)
    if before is not None and (before_id := get_checkpoint_id(before)):
        where.append("c.checkpoint_id<?")
        args.append(before_id)
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    return _LIST_QUERY.format(where=clause), args
