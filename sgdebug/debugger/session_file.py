"""Session files: one SQLite file holding a debugging session, so it can be reopened.

The file holds the runtime's checkpoint tables (``checkpoints``, ``blobs``, ``writes``,
written by :class:`~sgdebug.runtime.SqliteSaver`: the run's history tree; a LangGraph
graph's history goes to ``lg_*`` tables instead, see :meth:`SessionFile.langgraph_saver`) and a
``session`` table of key/value rows: which graph (the target and the directory it was
loaded from), the run's input, the breakpoints, the current thread, the recursion limit
and the schema version. Each save is one transaction, so a session killed at any moment
reopens where its last save left it. A large input is kept once: when the run's history
holds it byte for byte (the native runtime's ``__start__`` blob of the thread's input
checkpoint), the ``input`` row gives way to an ``input_blob`` row naming that blob; this
happens when the file is closed or next opened.

A session file is untrusted input (it may come from someone else). Opening one never
changes a file that is not an sgdebug session, nor a damaged one: a foreign file, a corrupt
one, or one with a row sgdebug would not have written (every row is checked: its type, its
range, the breakpoints' fields, the history's values decoded) is refused with
:class:`SessionFileError` naming the row, before anything is written. Loading reads data
only: the input is decoded with the runtime's safe serialiser (no unpickling, no imports)
and the rest is plain JSON. The target is imported, and breakpoint conditions evaluated,
only when the caller chooses to continue the session (see ``sgdebug.cli``: the user
confirms the target, and conditions stay disabled until enabled or ``--trust``).

One process at a time: an open session file is locked (an OS lock on ``FILE.lock``, gone
with its process however it ends); a second open is refused, naming the holder's pid. A
read-only file or folder is refused as read-only.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from sgdebug.debugger._session_lock import SessionLock, SessionLockedError
from sgdebug.debugger._session_rows import (
    DamagedRowError,
    decode_row,
    read_step_times,
    save_step_time,
    session_fields,
    verify_checkpoints,
)
from sgdebug.debugger.breakpoints import from_dicts
from sgdebug.runtime.checkpoint import CorruptCheckpointError, SqliteSaver, utc_clock
from sgdebug.runtime.checkpoint.serde import (
    DeserializationError,
    SerializationError,
    dumps,
    loads,
)

__all__ = [
    "SCHEMA_VERSION",
    "SessionFile",
    "SessionFileError",
    "SessionRecord",
]

SCHEMA_VERSION: Final = 1
"""Version of the ``session`` table's contents; a file from a newer version is refused."""
SHARED_INPUT_MIN: Final = 4096
"""An encoded input at least this long is not kept twice (see :meth:`SessionFile.share_input`)."""
APPLICATION: Final = "sgdebug-session"
_SQLITE_MAGIC: Final = b"SQLite format 3\x00"
_CHECKPOINT_TABLES: Final = frozenset(
    {"checkpoints", "blobs", "writes", "lg_checkpoints", "lg_blobs", "lg_writes"}
)
"""The runtime's checkpoint tables and those of a LangGraph graph's history."""
_SCHEMA: Final = "CREATE TABLE IF NOT EXISTS session (key TEXT PRIMARY KEY, value TEXT NOT NULL)"


class SessionFileError(Exception):
    """The file cannot be used as a session file; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """What a session needs to continue where it stopped (besides the checkpoints)."""

    target: str
    """The target spec, as :attr:`LoadedTarget.spec` gives it."""
    cwd: str
    """The directory the target is loaded from (put on ``sys.path``)."""
    input: Any = None
    """The run's input (any value the checkpoint serialiser stores)."""
    breakpoints: tuple[Mapping[str, Any], ...] = ()
    """The breakpoints, as JSON objects in the form the session writes them."""
    thread_id: str | None = None
    """The thread of the current run; ``None`` before the first run."""
    recursion_limit: int | None = None
    """The run's recursion limit; ``None`` for the default."""
    channels: Mapping[str, str] | None = None
    """The state keys of the graph that ran the current thread, each with how it merges
    writes (``BinaryOperatorAggregate(operator.add)``); ``None`` when not saved."""


class SessionFile:
    """A session file opened for reading and writing; use :meth:`open`.

    It is the :class:`sgdebug.debugger.SessionStore` a session saves its input, thread and
    breakpoints to; :attr:`saver` is the checkpointer that keeps the run's history (of a
    LangGraph graph: :meth:`langgraph_saver`).
    """

    def __init__(
        self, path: Path, saver: SqliteSaver, rows: dict[str, str], lock: SessionLock | None = None
    ) -> None:
        self.path = path
        """Where the file is."""
        self.saver = saver
        """The checkpointer writing the run's history into this file."""
        self._rows = rows
        self._lock = lock
        self._clock: Callable[[], str] = utc_clock
        self._langgraph: Any = None

    @classmethod
    def open(cls, path: str | Path) -> SessionFile:
        """Open the session file at ``path``, creating it if it does not exist (or is empty).

        Raises :class:`SessionFileError` for a folder, a file that is not SQLite, a SQLite
        database of another program, a damaged file, one written by a newer sgdebug, a
        read-only file or folder, or a file another process has open.
        """
        path = Path(path)
        _check_path(path)
        _check_writable(path)
        try:
            lock = SessionLock.acquire(path)
        except SessionLockedError as exc:
            raise SessionFileError(str(exc)) from exc
        except OSError as exc:
            raise SessionFileError(f"cannot lock session file {path}: {exc}") from exc
        try:
            conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            lock.release()
            raise SessionFileError(f"cannot open session file {path}: {exc}") from exc
        try:
            opened = cls(path, *_open_connection(conn, path), lock)
        except BaseException:
            conn.close()
            lock.release()
            raise
        with contextlib.suppress(sqlite3.Error):  # the file is complete without it
            opened.share_input()  # a session killed before closing kept two copies
        return opened

    def langgraph_saver(self) -> Any:
        """The LangGraph checkpointer keeping a LangGraph graph's history in this file.

        It shares the file's connection and lock, in tables of its own (created on the first
        call). Every row already stored is read once first, without importing or calling
        anything a row names: call this after importing the program, so that its classes
        are found. Raises :class:`SessionFileError` for a damaged row. Imports langgraph.
        """
        if self._langgraph is None:
            from sgdebug.debugger.engines._lg_saver import DamagedRowError, LangGraphSessionSaver

            try:
                saver = LangGraphSessionSaver(self.saver.conn, self.saver.lock)
                saver.verify()
            except (DamagedRowError, sqlite3.DatabaseError) as exc:
                raise SessionFileError(_corrupt(self.path, exc)) from exc
            self._langgraph = saver
        return self._langgraph

    # -- reading ---------------------------------------------------------------------------

    @property
    def record(self) -> SessionRecord | None:
        """What the file holds, or ``None`` if no session has been saved in it yet.

        The input is decoded on each access: read it after importing the target, so that
        values of the program's own classes come back as those classes.
        """
        with self.saver.lock:
            return _parse_rows(self._rows, self.path, self.saver.conn)

    # -- writing ---------------------------------------------------------------------------

    def save(self, record: SessionRecord) -> None:
        """Write the whole record, in one transaction."""
        rows: dict[str, Any] = {
            "target": record.target,
            "cwd": record.cwd,
            "input": _encode_input(record.input),
            "breakpoints": _plain_breakpoints(record.breakpoints),
            "thread_id": record.thread_id,
            "recursion_limit": record.recursion_limit,
            "channels": dict(record.channels) if record.channels is not None else None,
        }
        if "created_at" not in self._rows:
            rows["created_at"] = self._clock()
        self._write(rows, drop=("input_blob",))

    def save_input(self, value: Any) -> None:
        """Replace the run's input."""
        self._write({"input": _encode_input(value)}, drop=("input_blob",))

    def save_breakpoints(self, breakpoints: Sequence[Mapping[str, Any]]) -> None:
        """Replace the breakpoints (JSON objects)."""
        self._write({"breakpoints": _plain_breakpoints(breakpoints)})

    def save_thread(self, thread_id: str) -> None:
        """Replace the current thread."""
        self._write({"thread_id": thread_id})

    def save_recursion_limit(self, limit: int | None) -> None:
        """Replace the recursion limit."""
        self._write({"recursion_limit": limit})

    def save_channels(self, layout: Mapping[str, str]) -> None:
        """Replace the channel layout (see :attr:`SessionRecord.channels`)."""
        self._write({"channels": dict(layout)})

    def save_step_time(self, checkpoint_id: str, tasks: Sequence[tuple[str, float]]) -> None:
        """Keep how long the tasks of the step that made ``checkpoint_id`` ran."""
        with self.saver.lock:
            save_step_time(self.saver.conn, checkpoint_id, tasks)

    def step_times(self) -> dict[str, tuple[tuple[str, float], ...]]:
        """The steps' times kept in the file, oldest first (none in a file from before)."""
        with self.saver.lock:
            return read_step_times(self.saver.conn)

    def share_input(self) -> bool:
        """Keep a large input once: if the current thread's history holds it byte for byte,
        replace the ``input`` row by an ``input_blob`` row naming that blob. Returns whether
        it did. Called on closing and opening; a session killed before keeps both copies."""
        text = self._rows.get("input")
        thread_id = _thread_of(self._rows)
        if text is None or len(text) < SHARED_INPUT_MIN or thread_id is None:
            return False
        with self.saver.lock:
            found = self.saver.conn.execute(
                "SELECT id FROM blobs WHERE thread_id = ? AND kind = 'full' AND id LIKE ? "
                "AND data = ? LIMIT 1",
                (thread_id, "%:__start__", text.encode("utf-8")),
            ).fetchone()
        if found is None:
            return False
        self._write({"input_blob": str(found[0])}, drop=("input",), stamp=False)
        return True

    def _write(
        self, rows: Mapping[str, Any], *, drop: Sequence[str] = (), stamp: bool = True
    ) -> None:
        """Put ``rows`` (the input already encoded) and delete the ``drop`` rows, in one
        transaction; ``stamp`` also sets ``updated_at``."""
        if "target" not in rows and "target" not in self._rows:
            raise RuntimeError("no session saved yet: call save() with the target first")
        if stamp:
            rows = {**rows, "updated_at": self._clock()}
        with self.saver.lock:
            self.saver.conn.execute("BEGIN")
            try:
                written = _put(self.saver.conn, rows)
                self.saver.conn.executemany(
                    "DELETE FROM session WHERE key = ?", [(key,) for key in drop]
                )
            except BaseException:
                self.saver.conn.execute("ROLLBACK")
                raise
            self.saver.conn.execute("COMMIT")
        self._rows.update(written)
        for key in drop:
            self._rows.pop(key, None)

    # -- closing ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close the file (everything is already saved) and let another sgdebug open it."""
        with contextlib.suppress(sqlite3.Error):  # the file is complete without it
            self.share_input()
        self.saver.close()
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# -- opening checks ------------------------------------------------------------------------


def _open_connection(conn: sqlite3.Connection, path: Path) -> tuple[SqliteSaver, dict[str, str]]:
    """Check everything the file holds, then (and only then) write the session's own rows."""
    try:
        rows = _read_existing(conn, path)
        _parse_rows(rows, path, conn)  # refuse a damaged file before writing anything
        verify_checkpoints(conn)
        saver = SqliteSaver(conn)
        wanted = {"application": APPLICATION, "schema_version": SCHEMA_VERSION}
        with saver.lock:
            conn.execute("BEGIN")
            conn.execute(_SCHEMA)
            if any(rows.get(key) != json.dumps(value) for key, value in wanted.items()):
                rows.update(_put(conn, wanted))
            conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc) or "read-only" in str(exc):
            raise SessionFileError(_read_only(path, str(exc))) from exc
        raise SessionFileError(_corrupt(path, exc)) from exc
    except (sqlite3.DatabaseError, CorruptCheckpointError, DamagedRowError) as exc:
        raise SessionFileError(_corrupt(path, exc)) from exc
    return saver, rows


def _check_writable(path: Path) -> None:
    """Refuse a read-only file or folder: a session writes every step to the file."""
    folder = path.parent
    if path.exists() and not os.access(path, os.W_OK):
        raise SessionFileError(_read_only(path, "the file is read-only"))
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SessionFileError(_read_only(path, f"its folder {folder} is read-only"))


def _read_only(path: Path, reason: str) -> str:
    return (
        f"session file {path} cannot be written ({reason}): sgdebug saves every step to it; "
        f"make it writable, copy it to a writable folder, or choose another --session path"
    )


def _check_path(path: Path) -> None:
    if path.is_dir():
        raise SessionFileError(f"{path} is a folder; --session needs a file path")
    if not path.exists():
        if not path.parent.is_dir():
            raise SessionFileError(f"cannot create session file {path}: no folder {path.parent}")
        return
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise SessionFileError(f"cannot read session file {path}: {exc}") from exc
    if head and head != _SQLITE_MAGIC:
        raise SessionFileError(
            f"{path} is not an sgdebug session file (it is not an SQLite database); "
            f"it was left untouched: choose another --session path"
        )


def _read_existing(conn: sqlite3.Connection, path: Path) -> dict[str, str]:
    """The session rows of an existing file (none for an empty file); refuse foreign ones."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return {}
    if "session" not in tables:
        kind = (
            "sgdebug checkpoints but no session"
            if tables <= _CHECKPOINT_TABLES
            else f"tables of another program ({', '.join(sorted(tables))})"
        )
        raise SessionFileError(
            f"{path} is not an sgdebug session file: it is an SQLite database holding "
            f"{kind}; it was left untouched: choose another --session path"
        )
    try:
        rows = dict(conn.execute("SELECT key, value FROM session").fetchall())
    except sqlite3.OperationalError as exc:
        raise SessionFileError(
            f"{path} is not an sgdebug session file: its 'session' table belongs to another "
            f"program ({exc}); it was left untouched: choose another --session path"
        ) from exc
    return {str(key): str(value) for key, value in rows.items()}


def _parse_rows(
    rows: Mapping[str, str], path: Path, conn: sqlite3.Connection
) -> SessionRecord | None:
    """The record the rows hold (``None``: no session saved yet), every row checked."""
    if not rows:
        return None  # a new file
    try:
        values = {key: decode_row(key, text) for key, text in rows.items() if key != "input"}
    except DamagedRowError as exc:
        raise SessionFileError(_corrupt(path, exc)) from exc
    if values.get("application") != APPLICATION:
        raise SessionFileError(
            f"{path} is not an sgdebug session file (its 'session' table is not ours); "
            f"it was left untouched: choose another --session path"
        )
    version = values.get("schema_version")
    if type(version) is not int or version > SCHEMA_VERSION:
        raise SessionFileError(
            f"{path} was written by a newer sgdebug (session format {version}; this version "
            f"reads format {SCHEMA_VERSION} and older): upgrade sgdebug to reopen it"
        )
    if "input" in rows and "input_blob" in rows:
        raise SessionFileError(_corrupt(path, "it holds both an 'input' and an 'input_blob' row"))
    try:
        fields = session_fields(values)
    except DamagedRowError as exc:
        raise SessionFileError(_corrupt(path, exc)) from exc
    if fields is None:
        return None  # created, but the session was never saved
    return SessionRecord(input=_read_input(rows, values, path, conn), **fields)


def _read_input(
    rows: Mapping[str, str], values: Mapping[str, Any], path: Path, conn: sqlite3.Connection
) -> Any:
    """The input: the ``input`` row, or the blob the ``input_blob`` row names."""
    blob_id = values.get("input_blob")
    if blob_id is None:
        return _decode_input(rows.get("input", "null").encode("utf-8"), path, "input")
    found = conn.execute(
        "SELECT data FROM blobs WHERE thread_id = ? AND id = ? AND kind = 'full'",
        (values["thread_id"], blob_id),
    ).fetchone()
    if found is None or not isinstance(found[0], bytes):
        raise SessionFileError(
            _corrupt(
                path,
                f"row 'input_blob' of its session table names blob {blob_id!r}, "
                f"which its history does not hold",
            )
        )
    return _decode_input(found[0], path, "input_blob")


def _thread_of(rows: Mapping[str, str]) -> str | None:
    try:
        thread_id = json.loads(rows.get("thread_id", "null"))
    except ValueError:
        return None
    return thread_id if isinstance(thread_id, str) else None


def _corrupt(path: Path, reason: object) -> str:
    return (
        f"session file {path} is damaged and cannot be reopened ({reason}); it was left "
        f"untouched: move it away or choose another --session path"
    )


# -- encoding ------------------------------------------------------------------------------


def _put(conn: sqlite3.Connection, rows: Mapping[str, Any]) -> dict[str, str]:
    """Write ``rows`` (the input already encoded, the rest as JSON); return the stored text."""
    encoded = {
        key: value if key == "input" else json.dumps(value, allow_nan=False)
        for key, value in rows.items()
    }
    conn.executemany("INSERT OR REPLACE INTO session VALUES (?, ?)", list(encoded.items()))
    return encoded


def _encode_input(value: Any) -> str:
    try:
        return dumps(value, channel="input").decode("utf-8")
    except SerializationError as exc:
        raise SessionFileError(f"cannot save the input in the session file: {exc}") from exc


def _decode_input(data: bytes, path: Path, row: str) -> Any:
    try:
        return loads(data)
    except (DeserializationError, RecursionError, ValueError) as exc:
        raise SessionFileError(_corrupt(path, f"row {row!r} of its session table: {exc}")) from exc


def _plain_breakpoints(breakpoints: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The breakpoints as JSON objects; refuse anything JSON cannot hold exactly."""
    try:
        plain: list[dict[str, Any]] = json.loads(
            json.dumps([dict(b) for b in breakpoints], allow_nan=False)
        )
        from_dicts(plain)  # never write what reopening would call damage
    except (TypeError, ValueError) as exc:
        raise SessionFileError(f"cannot save the breakpoints in the session file: {exc}") from exc
    return plain
