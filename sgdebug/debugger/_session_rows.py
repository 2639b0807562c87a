"""Checking a session file's rows before the session uses (or writes) the file.

A session file may come from someone else, and SQLite only guarantees that its pages are
intact, not that its rows make sense. :func:`session_fields` checks the ``session`` table's
rows (known keys only; texts, absolute folder, counts >= 1, every breakpoint's fields).
:func:`verify_checkpoints` reads every row of the runtime's checkpoint tables
(``checkpoints``, ``blobs``, ``writes``) once: each column's type and range, the JSON
columns, each stored value decoded with the safe serialiser (no unpickling, no imports),
and that every blob a checkpoint or a delta names is there. The first bad row is a
:class:`DamagedRowError` naming the table and the row.

The ``step_times`` table keeps how long each step's tasks ran (:func:`save_step_time`,
:func:`read_step_times`): a row that does not read as ``[node, seconds]`` pairs is left
out, not an error (a time is a nicety; a file from before has no such table).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from sgdebug.debugger.breakpoints import BreakpointError, from_dicts
from sgdebug.runtime.checkpoint.serde import DeserializationError, loads
from sgdebug.runtime.checkpoint.sqlite import CorruptCheckpointError, shared_blob

__all__ = [
    "SESSION_KEYS",
    "DamagedRowError",
    "decode_row",
    "read_step_times",
    "save_step_time",
    "session_fields",
    "verify_checkpoints",
]

SESSION_KEYS: Final = frozenset(
    {"application", "schema_version", "target", "cwd", "input", "input_blob", "breakpoints",
     "thread_id", "recursion_limit", "channels", "created_at", "updated_at"}
)  # fmt: skip
"""The rows of the ``session`` table; any other row is damage (or a newer format)."""

_STEP_TIMES: Final = (
    "CREATE TABLE IF NOT EXISTS step_times (checkpoint_id TEXT PRIMARY KEY, tasks TEXT NOT NULL)"
)
"""A JSON list of ``[node, seconds]`` per checkpoint id, made when the first time is saved."""
_BLOB_KINDS: Final = ("full", "list", "str")
_DELTA_TYPES: Final[Mapping[str, type]] = {"list": list, "str": str}


class DamagedRowError(ValueError):
    """A row of a checkpoint table is not one sgdebug wrote; the message names it."""


# -- the session table ---------------------------------------------------------------------


def decode_row(key: str, text: object) -> Any:
    """The JSON value of the ``session`` row ``key``."""
    if not isinstance(text, str):
        raise DamagedRowError(f"{_row(key)} holds {type(text).__name__}, not text")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DamagedRowError(f"{_row(key)}: {exc}") from exc


def session_fields(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """The checked fields of the saved session (the ``SessionRecord`` fields but the input)
    from the decoded rows (``application`` and ``schema_version`` already checked), or
    ``None`` when no session was saved yet."""
    unknown = sorted(set(values) - SESSION_KEYS)
    if unknown:
        raise DamagedRowError(f"{_row(unknown[0])} is not one sgdebug writes")
    if values["schema_version"] < 1:
        raise DamagedRowError(f"{_row('schema_version')} is {values['schema_version']}")
    for key in ("created_at", "updated_at"):
        _optional(values, key, str)
    if "target" not in values:
        return None
    cwd = _typed(values, "cwd", str)
    if not os.path.isabs(cwd):
        raise DamagedRowError(f"{_row('cwd')} is {cwd!r}, not an absolute path")
    if _optional(values, "input_blob", str) is not None and values.get("thread_id") is None:
        raise DamagedRowError(f"{_row('input_blob')} names a blob of no thread")
    limit = _optional(values, "recursion_limit", int)
    if limit is not None and limit < 1:
        raise DamagedRowError(f"{_row('recursion_limit')} is {limit}, not a number >= 1")
    breakpoints = _typed(values, "breakpoints", list)
    try:
        from_dicts(breakpoints)
    except BreakpointError as exc:
        raise DamagedRowError(f"{_row('breakpoints')}: {exc}") from exc
    return {
        "target": _typed(values, "target", str), "cwd": cwd, "breakpoints": tuple(breakpoints),
        "thread_id": _optional(values, "thread_id", str), "recursion_limit": limit,
        "channels": _layout(values),
    }  # fmt: skip


def _layout(values: Mapping[str, Any]) -> dict[str, str] | None:
    """The ``channels`` row: state key -> how it merges writes (texts), if saved."""
    layout = values.get("channels")
    if layout is None:
        return None
    if not isinstance(layout, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in layout.items()
    ):
        raise DamagedRowError(f"{_row('channels')} is not an object of texts")
    return layout


def _row(key: str) -> str:
    return f"row {key!r} of its session table"


def _typed(values: Mapping[str, Any], key: str, kind: type) -> Any:
    value = values.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise DamagedRowError(f"{_row(key)} is {value!r}, not {_KIND_NAMES[kind]}")
    if isinstance(value, str) and not (value and value.isprintable()):
        raise DamagedRowError(f"{_row(key)} is {value!r}, not a line of text")
    return value


def _optional(values: Mapping[str, Any], key: str, kind: type) -> Any:
    return None if values.get(key) is None else _typed(values, key, kind)


_KIND_NAMES: Final[Mapping[type, str]] = {str: "text", int: "a whole number", list: "a list"}


# -- the checkpoint tables -----------------------------------------------------------------


def verify_checkpoints(conn: sqlite3.Connection) -> None:
    """Read every checkpoint, blob and write row of ``conn`` once; raise
    :class:`DamagedRowError` at the first bad one. Tables that do not exist are skipped."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    blob_ids: set[tuple[str, str]] = set()
    if "blobs" in tables:
        bases = _verify_blobs(conn, blob_ids)
        for thread_id, blob_id, base in bases:
            if (thread_id, base) not in blob_ids:
                raise DamagedRowError(
                    f"{_blob(thread_id, blob_id)}: it appends to blob {base!r}, which is missing"
                )
    if "checkpoints" in tables:
        _verify_checkpoint_rows(conn, blob_ids if "blobs" in tables else None)
    if "writes" in tables:
        _verify_writes(conn, blob_ids if "blobs" in tables else None)


def _verify_blobs(
    conn: sqlite3.Connection, ids: set[tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """Check each blob row, add its key to ``ids``; the (thread, blob, base) of each delta."""
    bases = []
    rows = conn.execute("SELECT thread_id, id, data, base, kind, depth FROM blobs")
    for thread_id, blob_id, data, base, kind, depth in rows:
        _texts(f"a blob of thread {thread_id!r}", thread_id=thread_id, id=blob_id)
        where = _blob(thread_id, blob_id)
        if kind not in _BLOB_KINDS:
            raise DamagedRowError(f"{where}: kind {kind!r} is not one of {', '.join(_BLOB_KINDS)}")
        if type(depth) is not int or depth < 0 or (depth == 0) != (kind == "full"):
            raise DamagedRowError(f"{where}: depth {depth!r} does not fit its kind {kind!r}")
        if (base is None) != (kind == "full") or not isinstance(base, str | None):
            raise DamagedRowError(f"{where}: base {base!r} does not fit its kind {kind!r}")
        value = _decode(data, where)
        expected = _DELTA_TYPES.get(kind)
        if expected is not None and not isinstance(value, expected):
            raise DamagedRowError(f"{where}: a {kind} delta holding a {type(value).__name__}")
        ids.add((thread_id, blob_id))
        if base is not None:
            bases.append((thread_id, blob_id, base))
    return bases


def _verify_checkpoint_rows(
    conn: sqlite3.Connection, blob_ids: set[tuple[str, str]] | None
) -> None:
    rows = conn.execute(
        "SELECT thread_id, id, parent_id, step, source, created_at, versions, blobs, "
        "versions_seen, metadata FROM checkpoints"
    )
    for thread_id, cid, parent, step, source, created, *documents in rows:
        _texts("a checkpoint", thread_id=thread_id, id=cid, source=source)
        where = f"checkpoint {cid!r} of thread {thread_id!r}"
        if not isinstance(parent, str | None):
            raise DamagedRowError(f"{where}: parent_id is {parent!r}")
        if type(step) is not int or step < -1:
            raise DamagedRowError(f"{where}: step {step!r} is not a whole number >= -1")
        if not isinstance(created, str | float | int):
            raise DamagedRowError(f"{where}: created_at is {created!r}")
        names = ("versions", "blobs", "versions_seen", "metadata")
        versions, blobs, seen, metadata = (
            _document(text, f"{where}: {name}") for name, text in zip(names, documents, strict=True)
        )
        _mapping(versions, f"{where}: versions", _is_version)
        _mapping(blobs, f"{where}: blobs", lambda value: isinstance(value, str))
        _mapping(seen, f"{where}: versions_seen", lambda value: isinstance(value, dict))
        _mapping(metadata, f"{where}: metadata", lambda value: True)
        for channel, blob_id in blobs.items():
            if blob_ids is not None and (thread_id, blob_id) not in blob_ids:
                missing = f"the value of {channel!r} (blob {blob_id!r}) is missing"
                raise DamagedRowError(f"{where}: {missing}")


def _verify_writes(conn: sqlite3.Connection, blob_ids: set[tuple[str, str]] | None) -> None:
    rows = conn.execute(
        "SELECT thread_id, checkpoint_id, task_id, idx, task_name, path, channel, value FROM writes"
    )
    for thread_id, cid, task_id, idx, task_name, path, channel, value in rows:
        texts = {"thread_id": thread_id, "checkpoint_id": cid, "task_id": task_id}
        _texts("a pending write", **texts, task_name=task_name, channel=channel)
        where = f"write {idx!r} of task {task_name!r} at checkpoint {cid!r} of thread {thread_id!r}"
        if type(idx) is not int:
            raise DamagedRowError(f"{where}: idx {idx!r} is not a whole number")
        if not isinstance(_document(path, f"{where}: path"), list):
            raise DamagedRowError(f"{where}: path {path!r} is not a JSON list")
        shared = _shared_blob(value, where)
        if shared is None:
            _decode(value, where)
        elif blob_ids is None or (thread_id, shared) not in blob_ids:
            raise DamagedRowError(f"{where}: its value is blob {shared!r}, which is missing")


def _shared_blob(value: Any, where: str) -> str | None:
    """The blob a write's value is stored in (a large value is stored once), or ``None``."""
    if not isinstance(value, bytes):
        return None
    try:
        return shared_blob(value)
    except CorruptCheckpointError as exc:
        raise DamagedRowError(f"{where}: {exc}") from exc


def _texts(what: str, **columns: Any) -> None:
    for name, value in columns.items():
        if not isinstance(value, str):
            raise DamagedRowError(f"{what}: column {name} is {value!r}, not text")


def _blob(thread_id: str, blob_id: str) -> str:
    return f"blob {blob_id!r} of thread {thread_id!r}"


def _decode(data: Any, where: str) -> Any:
    if not isinstance(data, bytes):
        raise DamagedRowError(f"{where}: the stored value is a {type(data).__name__}, not bytes")
    try:
        return loads(data)
    except (DeserializationError, RecursionError, ValueError) as exc:
        raise DamagedRowError(f"{where}: the stored value cannot be decoded ({exc})") from exc


def _document(text: Any, where: str) -> Any:
    if not isinstance(text, str):
        raise DamagedRowError(f"{where} is {text!r}, not JSON text")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DamagedRowError(f"{where} is not JSON ({exc})") from exc


def _mapping(value: Any, where: str, check: Callable[[Any], bool]) -> None:
    if not isinstance(value, dict):
        raise DamagedRowError(f"{where} is {value!r}, not a JSON object")
    for key, item in value.items():
        if not check(item):
            raise DamagedRowError(f"{where}: {key!r} is {item!r}")


def _is_version(value: Any) -> bool:
    return (type(value) is int and value >= 0) or isinstance(value, str | float)


def save_step_time(
    conn: sqlite3.Connection, checkpoint_id: str, tasks: Sequence[tuple[str, float]]
) -> None:
    """Keep how long the tasks of the step that made ``checkpoint_id`` ran."""
    text = json.dumps([[str(node), float(seconds)] for node, seconds in tasks])
    conn.execute(_STEP_TIMES)
    conn.execute(
        "INSERT OR REPLACE INTO step_times (checkpoint_id, tasks) VALUES (?, ?)",
        (checkpoint_id, text),
    )


def read_step_times(conn: sqlite3.Connection) -> dict[str, tuple[tuple[str, float], ...]]:
    """The kept step times, oldest first; ``{}`` without the table."""
    try:
        rows = conn.execute("SELECT checkpoint_id, tasks FROM step_times ORDER BY rowid")
        found = rows.fetchall()
    except sqlite3.OperationalError:  # a file from before times were kept
        return {}
    times = {}
    for checkpoint_id, text in found:
        tasks = _timed_tasks(text)
        if isinstance(checkpoint_id, str) and tasks is not None:
            times[checkpoint_id] = tasks
    return times


def _timed_tasks(text: object) -> tuple[tuple[str, float], ...] | None:
    try:
        pairs = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if not isinstance(pairs, list):
        return None
    tasks = []
    for pair in pairs:
        if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
            return None
        seconds = pair[1]
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            return None
        if not math.isfinite(seconds) or seconds < 0:
            return None
        tasks.append((pair[0], float(seconds)))
    return tuple(tasks)
