"""``SqliteSaver``: checkpoints in one SQLite file (WAL, one transaction per checkpoint)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sgdebug.runtime.checkpoint._async_writes import langgraph_put, langgraph_writes
from sgdebug.runtime.checkpoint._load import CorruptCheckpointError
from sgdebug.runtime.checkpoint.base import (
    NS_KEY_SEP,
    BaseCheckpointSaver,
    Blob,
    CheckpointRecord,
    PendingWrite,
    RecordInfo,
    TaskWrites,
    WriteInfo,
    task_id,
    write_slots,
)
from sgdebug.runtime.checkpoint.serde import DeserializationError

__all__ = ["SHARE_MIN", "CorruptCheckpointError", "SqliteSaver", "shared_blob"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT, step INTEGER NOT NULL,
    source TEXT NOT NULL, created_at TEXT NOT NULL, versions TEXT NOT NULL,
    blobs TEXT NOT NULL, versions_seen TEXT NOT NULL, metadata TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (thread_id, id)
);
CREATE TABLE IF NOT EXISTS blobs (
    thread_id TEXT NOT NULL, id TEXT NOT NULL, data BLOB NOT NULL, base TEXT,
    kind TEXT NOT NULL, depth INTEGER NOT NULL, PRIMARY KEY (thread_id, id)
);
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL, checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL,
    idx INTEGER NOT NULL, task_name TEXT NOT NULL, path TEXT NOT NULL, channel TEXT NOT NULL,
    value BLOB NOT NULL, PRIMARY KEY (thread_id, checkpoint_id, task_id, idx)
);
"""


class SqliteSaver(BaseCheckpointSaver):
    """Stores checkpoints in a SQLite database; reopening the file restores every thread.

    Values are stored with the safe serialiser: loading never unpickles or imports code.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        ids: Callable[[], str] | None = None,
        clock: Callable[[], str | float] | None = None,
    ) -> None:
        super().__init__(ids=ids, clock=clock)
        self.conn = conn
        try:
            with self.lock, conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.executescript(_SCHEMA)
                _check_schema(conn)
        except sqlite3.DatabaseError as exc:
            raise CorruptCheckpointError(f"not a usable checkpoint database: {exc}") from exc

    @classmethod
    def from_path(cls, path: str | Path, **kwargs: Any) -> SqliteSaver:
        """Open (or create) the database file at ``path``."""
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        return cls(conn, **kwargs)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def put(
        self,
        record: CheckpointRecord,
        blobs: Mapping[str, Blob],
        writes: Sequence[TaskWrites] = (),
        new_versions: Mapping[str, Any] | None = None,
    ) -> Any:
        config = None
        if new_versions is not None:  # put(config, checkpoint, metadata, new_versions)
            record, blobs, config = langgraph_put(self, blobs)
            writes = ()  # (the metadata came here: the record has its own)
        rows = [
            (record.thread_id, bid, b.data, b.base, b.kind, b.depth) for bid, b in blobs.items()
        ]
        write_rows: list[tuple[Any, ...]] = []
        if writes:
            parent = record.parent_id
            assert parent is not None, "task writes belong to the parent checkpoint"
            for batch in writes:
                # A task's writes reach put() only from its first finished attempt (one
                # whose writes were stored is not run again), so nothing is replaced.
                pending = [
                    PendingWrite(task_id(parent, batch.path), batch.task_name, batch.path, k, v)
                    for k, v in batch.writes
                ]
                _, _, task_rows = self._write_rows(record.thread_id, parent, pending, encode=False)
                write_rows += task_rows
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                if write_rows:
                    self.conn.executemany(
                        "INSERT OR REPLACE INTO writes VALUES (?,?,?,?,?,?,?,?)", write_rows
                    )
                self.conn.executemany("INSERT OR REPLACE INTO blobs VALUES (?,?,?,?,?,?)", rows)
                self._share_values(record, blobs)
                self.conn.execute(
                    "INSERT OR REPLACE INTO checkpoints VALUES (?,?,?,?,?,?,?,?,?,?)",
                    _record_row(record),
                )
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        return config

    def _share_values(self, record: CheckpointRecord, blobs: Mapping[str, Blob]) -> None:
        """Store each large new value once: a write of the step that made ``record`` whose
        value is the new blob of its channel (a ``LastValue`` set, an append to a list or a
        string) refers to that blob instead of holding a copy."""
        if record.parent_id is None:
            return
        for channel, blob_id in record.blobs.items():
            blob = blobs.get(blob_id)
            if blob is None or len(blob.data) < SHARE_MIN:
                continue
            self.conn.execute(
                "UPDATE writes SET value=? WHERE thread_id=? AND checkpoint_id=? AND channel=? "
                "AND length(value)=? AND value=?",
                (_SHARED + blob_id.encode(), record.thread_id, record.parent_id, channel,
                 len(blob.data), blob.data),
            )  # fmt: skip

    def put_writes(
        self,
        thread_id: str,
        checkpoint_id: str,
        writes: Sequence[PendingWrite] = (),
        task_path: str = "",
    ) -> None:
        if type(thread_id) is not str:  # put_writes(config, writes, task_id, task_path)
            thread_id, checkpoint_id, writes = langgraph_writes(
                thread_id, checkpoint_id, writes, task_path
            )
        if not writes:
            return
        batch_rows = self._write_rows(thread_id, checkpoint_id, writes, encode=True)
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                self._insert_writes(*batch_rows)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def _write_rows(
        self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite], *, encode: bool
    ) -> tuple[tuple[str, str, str], bool, list[tuple[Any, ...]]]:
        """One task's rows: the task's key, whether it replaces channel writes, the rows."""
        slots = write_slots(writes)
        path = json.dumps(list(writes[0].path))  # one task: one path
        rows = [
            (thread_id, checkpoint_id, w.task_id, i, w.task_name, path,
             w.channel, self.encode(w.value, w.channel) if encode else w.value)
            for i, w in slots
        ]  # fmt: skip
        replaces = any(slot >= 0 for slot, _ in slots)
        return (thread_id, checkpoint_id, writes[0].task_id), replaces, rows

    def _insert_writes(
        self, key: tuple[str, str, str], replaces: bool, rows: list[tuple[Any, ...]]
    ) -> None:
        if replaces:
            where = "thread_id=? AND checkpoint_id=? AND task_id=?"
            self.conn.execute(f"DELETE FROM writes WHERE {where} AND idx>=0", key)
        self.conn.executemany("INSERT OR REPLACE INTO writes VALUES (?,?,?,?,?,?,?,?)", rows)

    def update_seen(
        self, thread_id: str, checkpoint_id: str, key: str, seen: Mapping[str, int]
    ) -> None:
        record = self.get_record(thread_id, checkpoint_id)
        if record is None:
            return
        updated = record.with_seen(key, seen)
        with self.lock:
            self.conn.execute(
                "UPDATE checkpoints SET versions_seen=? WHERE thread_id=? AND id=?",
                (json.dumps(updated.versions_seen), thread_id, checkpoint_id),
            )

    def get_record(
        self, thread_id: str, checkpoint_id: str | None = None
    ) -> CheckpointRecord | None:
        query = "SELECT * FROM checkpoints WHERE thread_id=?"
        args: tuple[Any, ...] = (thread_id,)
        if checkpoint_id is None:
            query += " ORDER BY id DESC LIMIT 1"
        else:
            query += " AND id=?"
            args += (checkpoint_id,)
        with self.lock, _reading(f"checkpoint {checkpoint_id or '(latest)'} of {thread_id}"):
            row = self.conn.execute(query, args).fetchone()
        return None if row is None else _parse_record(row)

    def list_records(self, thread_id: str) -> Iterator[CheckpointRecord]:
        with self.lock, _reading(f"the checkpoints of {thread_id}"):
            rows = self.conn.execute(
                "SELECT * FROM checkpoints WHERE thread_id=? ORDER BY id DESC", (thread_id,)
            ).fetchall()
        for row in rows:
            yield _parse_record(row)

    def list_record_info(self, thread_id: str) -> Iterator[RecordInfo]:
        with self.lock, _reading(f"the checkpoints of {thread_id}"):
            rows = self.conn.execute(
                "SELECT id, parent_id, step, source, created_at FROM checkpoints "
                "WHERE thread_id=? ORDER BY id DESC",
                (thread_id,),
            ).fetchall()
        for row in rows:
            yield _record_info(row)

    def count_before(self, thread_id: str, checkpoint_id: str) -> int:
        with self.lock, _reading(f"the checkpoints of {thread_id}"):
            (found,) = self.conn.execute(
                "SELECT count(*) FROM checkpoints WHERE thread_id=? AND id<?",
                (thread_id, checkpoint_id),
            ).fetchone()
        return int(found)

    def get_blob(self, thread_id: str, blob_id: str) -> Blob:
        with self.lock, _reading(f"value blob {blob_id} of {thread_id}"):
            row = self.conn.execute(
                "SELECT data, base, kind, depth FROM blobs WHERE thread_id=? AND id=?",
                (thread_id, blob_id),
            ).fetchone()
        if row is None:
            raise CorruptCheckpointError(f"missing value blob {blob_id} of thread {thread_id}")
        return Blob(bytes(row[0]), row[1], row[2], int(row[3]))

    def get_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        with self.lock, _reading(f"the pending writes of {thread_id}"):
            rows = self.conn.execute(
                "SELECT task_id, task_name, path, channel, value FROM writes "
                "WHERE thread_id=? AND checkpoint_id=? ORDER BY task_id, idx < 0, abs(idx)",
                (thread_id, checkpoint_id),
            ).fetchall()
            data = [self._shared_value(thread_id, bytes(r[4])) for r in rows]
        with _reading(f"the pending writes of checkpoint {checkpoint_id} of {thread_id}"):
            return [
                PendingWrite(r[0], r[1], tuple(json.loads(r[2])), r[3], self.decode(d))
                for r, d in zip(rows, data, strict=True)
            ]

    def _shared_value(self, thread_id: str, data: bytes) -> bytes:
        """A write's stored value: its own, or the blob it refers to (see :func:`shared_blob`)."""
        blob_id = shared_blob(data)
        if blob_id is None:
            return data
        row = self.conn.execute(
            "SELECT data FROM blobs WHERE thread_id=? AND id=?", (thread_id, blob_id)
        ).fetchone()
        if row is None:
            raise CorruptCheckpointError(f"missing value blob {blob_id} of thread {thread_id}")
        return bytes(row[0])

    def list_write_info(self, thread_id: str) -> Iterator[WriteInfo]:
        with self.lock, _reading(f"the pending writes of {thread_id}"):
            rows = self.conn.execute(
                "SELECT checkpoint_id, task_id, task_name, path, channel FROM writes "
                "WHERE thread_id=? ORDER BY checkpoint_id, task_id, idx",  # the key's order
                (thread_id,),
            ).fetchall()
        paths: dict[str, tuple[Any, ...]] = {}
        with _reading(f"the pending writes of {thread_id}"):
            for checkpoint_id, task, name, text, channel in rows:
                path = paths.get(text)
                if path is None:
                    path = paths[text] = _task_path(text)
                yield WriteInfo(checkpoint_id, task, name, path, channel)

    def delete_thread(self, thread_id: str) -> None:
        with self.lock:
            self.conn.execute("BEGIN")
            try:
                prefix = f"{thread_id}{NS_KEY_SEP}"  # (and its subgraphs' namespaces)
                for table in ("writes", "blobs", "checkpoints"):
                    self.conn.execute(
                        f"DELETE FROM {table} WHERE thread_id=? OR substr(thread_id, 1, ?)=?",
                        (thread_id, len(prefix), prefix),
                    )
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def threads(self) -> list[str]:
        """Every thread id in the file (subgraphs' namespaces are not threads)."""
        with self.lock:
            rows = self.conn.execute("SELECT DISTINCT thread_id FROM checkpoints").fetchall()
        return [r[0] for r in rows if NS_KEY_SEP not in r[0]]

    def namespaces(self, thread_id: str) -> list[str]:
        prefix = f"{thread_id}{NS_KEY_SEP}"
        with self.lock, _reading(f"the subgraph namespaces of {thread_id}"):
            rows = self.conn.execute(
                "SELECT thread_id FROM checkpoints WHERE substr(thread_id, 1, ?)=? "
                "GROUP BY thread_id ORDER BY MIN(id)",
                (len(prefix), prefix),
            ).fetchall()
        return [r[0][len(prefix) :] for r in rows]


_SOURCES = frozenset(("input", "loop", "update", "fork"))
_SHARED = b"\x00blob "
"""How a write's value that is stored in a blob starts (never the start of a JSON text)."""
SHARE_MIN = 1024
"""Values of at least this many bytes are stored once when a write and a blob hold them."""


def shared_blob(value: bytes) -> str | None:
    """The id of the blob (of the same thread) holding a write's value, when the write's
    row refers to one instead of holding the value."""
    if not value.startswith(_SHARED):
        return None
    try:
        return value[len(_SHARED) :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptCheckpointError(
            f"unreadable blob reference of a pending write: {exc}"
        ) from exc


_COLUMNS = {
    "checkpoints": ["thread_id", "id", "parent_id", "step", "source", "created_at", "versions",
                    "blobs", "versions_seen", "metadata"],
    "blobs": ["thread_id", "id", "data", "base", "kind", "depth"],
    "writes": ["thread_id", "checkpoint_id", "task_id", "idx", "task_name", "path", "channel",
               "value"],
}  # fmt: skip


def _check_schema(conn: sqlite3.Connection) -> None:
    for table, expected in _COLUMNS.items():
        found = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
        if found != expected:
            raise CorruptCheckpointError(
                f"not an sgdebug checkpoint file: its {table!r} table has the columns "
                f"{', '.join(found)} (another program's database?)"
            )


@contextmanager
def _reading(what: str) -> Iterator[None]:
    """Turn damage found while reading into a :class:`CorruptCheckpointError`."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise CorruptCheckpointError(f"cannot read {what}: {exc}") from exc
    except DeserializationError as exc:
        raise CorruptCheckpointError(f"cannot decode {what}: {exc}") from exc


def _record_info(row: Sequence[Any]) -> RecordInfo:
    checkpoint_id, parent_id, step, source, created_at = row
    if not (
        isinstance(checkpoint_id, str)
        and (parent_id is None or isinstance(parent_id, str))
        and isinstance(step, int)
        and source in _SOURCES
        and isinstance(created_at, str)
    ):
        raise CorruptCheckpointError(f"unreadable checkpoint row: {tuple(row)!r:.120}")
    return RecordInfo(checkpoint_id, parent_id, step, source, created_at)


def _task_path(text: str) -> tuple[Any, ...]:
    try:
        path = json.loads(text)
    except ValueError as exc:
        raise CorruptCheckpointError(f"unreadable task path of a pending write: {exc}") from exc
    if not isinstance(path, list):
        raise CorruptCheckpointError(f"unreadable task path of a pending write: {text[:40]!r}")
    return tuple(path)


def _record_row(r: CheckpointRecord) -> tuple[Any, ...]:
    return (
        r.thread_id, r.id, r.parent_id, r.step, r.source, r.created_at,
        json.dumps(dict(r.versions)), json.dumps(dict(r.blobs)), json.dumps(r.versions_seen),
        json.dumps(dict(r.user_metadata), default=repr),
    )  # fmt: skip


def _parse_record(row: Sequence[Any]) -> CheckpointRecord:
    try:
        return CheckpointRecord(
            thread_id=row[0], id=row[1], parent_id=row[2], step=int(row[3]), source=row[4],
            created=row[5], versions=json.loads(row[6]), blobs=json.loads(row[7]),
            versions_seen=json.loads(row[8]), user_metadata=json.loads(row[9]),
        )  # fmt: skip
    except (ValueError, TypeError, IndexError) as exc:
        raise CorruptCheckpointError(f"unreadable checkpoint row: {exc}") from exc
