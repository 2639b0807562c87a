"""A session file holds a large value once per version, and reads it back whole."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypedDict

import pytest

from sgdebug.debugger import Session, Target
from sgdebug.debugger.session_file import SessionFile, SessionFileError, SessionRecord
from sgdebug.runtime import END, START, StateGraph

SIZE = 2_000_000


class State(TypedDict):
    n: int
    text: str


def graph() -> Any:
    """``grow`` makes a new 2 MB string each step (three steps)."""

    def grow(state: State) -> dict[str, Any]:
        n = state["n"] + 1
        return {"n": n, "text": str(n) * SIZE}

    builder = StateGraph(State)
    builder.add_node("grow", grow)
    builder.add_edge(START, "grow")
    builder.add_conditional_edges("grow", lambda s: "grow" if s["n"] < 3 else END)
    return builder.compile()


def session_on(store: SessionFile) -> Session:
    return Session(Target(graph(), {}, "grow"), input={"n": 0, "text": ""},
                   saver=store.saver, store=store)  # fmt: skip


def run_to_the_end(path: Path) -> None:
    store = SessionFile.open(path)
    store.save(SessionRecord("grow:graph", str(path.parent), {"n": 0, "text": ""}))
    session = session_on(store)
    assert session.restart().ok and session.continue_().status == "done"
    store.close()


def stored_bytes(path: Path) -> int:
    """The bytes of every value the file holds (session rows, writes, blobs)."""
    with sqlite3.connect(path) as conn:
        total = 0
        for table, column in (("session", "value"), ("writes", "value"), ("blobs", "data")):
            (size,) = conn.execute(f"SELECT sum(length({column})) FROM {table}").fetchone()
            total += int(size)
    return total


def test_each_version_of_a_large_value_is_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "session.db"
    run_to_the_end(path)
    versions = 3 * SIZE  # "1" * SIZE, "2" * SIZE, "3" * SIZE
    assert versions < stored_bytes(path) < versions * 1.01  # each once, not twice
    # A task's writes are saved before its step commits: at most one value's pages are
    # left free in the file (and used again by the next step).
    assert path.stat().st_size < versions + 1.2 * SIZE


def test_a_reopened_session_reads_every_version_back(tmp_path: Path) -> None:
    path = tmp_path / "session.db"
    run_to_the_end(path)
    store = SessionFile.open(path)
    session = session_on(store)
    record = store.record
    assert record is not None and record.thread_id is not None
    assert session.attach(record.thread_id, input=record.input).ok
    assert session.state().value == {"n": 3, "text": "3" * SIZE}
    entries = session.history().value
    for entry in entries:
        shown = session.show(str(entry.index)).value
        for task in shown.tasks:
            if task.name == "grow" and task.result is not None:
                n = task.result["n"]
                assert task.result == {"n": n, "text": str(n) * SIZE}
    store.close()


def test_a_write_naming_a_missing_value_is_refused_as_damage(tmp_path: Path) -> None:
    path = tmp_path / "session.db"
    run_to_the_end(path)
    with sqlite3.connect(path) as conn:  # a write naming a blob that is not there
        conn.execute("UPDATE writes SET value = CAST(? AS BLOB) WHERE substr(value, 1, 1) = ?",
                     (b"\x00blob nowhere", b"\x00"))  # fmt: skip
    with pytest.raises(SessionFileError, match="its value is blob 'nowhere', which is missing"):
        SessionFile.open(path)


BIG_INPUT = {"n": 0, "text": "x" * SIZE}


def run_on_a_big_input(path: Path) -> None:
    store = SessionFile.open(path)
    store.save(SessionRecord("grow:graph", str(path.parent), BIG_INPUT))
    session = Session(Target(graph(), {}, "grow"), input=BIG_INPUT, saver=store.saver, store=store)
    assert session.restart().ok and session.continue_().status == "done"
    store.close()


def session_rows(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT key, length(value) FROM session").fetchall())


def test_a_large_input_is_stored_once_and_read_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "session.db"
    run_on_a_big_input(path)
    rows = session_rows(path)
    assert "input" not in rows and "input_blob" in rows  # the history's copy is the one kept
    # The input (the history's __start__ value), the text it sets, then three versions:
    # five values, each once (the input's row would make it six).
    assert stored_bytes(path) < 5 * SIZE * 1.01
    store = SessionFile.open(path)
    record = store.record
    assert record is not None and record.input == BIG_INPUT
    session = Session(Target(graph(), {}, "grow"), input=record.input, saver=store.saver,
                      store=store)  # fmt: skip
    assert record.thread_id is not None and session.attach(record.thread_id, input=record.input).ok
    assert session.restart({"n": 1, "text": "y"}).ok  # a new input replaces the reference
    assert "input" in session_rows(path) and "input_blob" not in session_rows(path)
    store.close()
    assert SessionFile.open(path).record.input == {"n": 1, "text": "y"}  # type: ignore[union-attr]


def test_a_session_killed_before_closing_keeps_its_input_once_when_reopened(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session.db"
    store = SessionFile.open(path)
    store.save(SessionRecord("grow:graph", str(path.parent), BIG_INPUT))
    session = Session(Target(graph(), {}, "grow"), input=BIG_INPUT, saver=store.saver, store=store)
    assert session.restart().ok and session.step().ok
    assert "input" in session_rows(path)  # not closed yet: both copies (as after kill -9)
    store.saver.close()
    store._lock.release()  # type: ignore[union-attr]  # the process "dies" without close()
    reopened = SessionFile.open(path)
    assert "input" not in session_rows(path) and "input_blob" in session_rows(path)
    assert reopened.record is not None and reopened.record.input == BIG_INPUT
    reopened.close()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("UPDATE session SET value = '\"nowhere:__start__\"' WHERE key = 'input_blob'",
         "names blob 'nowhere:__start__', which its history does not hold"),
        ("INSERT INTO session VALUES ('input', '{}')", "both an 'input' and an 'input_blob' row"),
        ("UPDATE session SET value = 'null' WHERE key = 'thread_id'", "names a blob of no thread"),
        ("UPDATE session SET value = '7' WHERE key = 'input_blob'", "row 'input_blob'"),
    ],
)  # fmt: skip
def test_a_crafted_input_reference_is_refused_as_damage(
    tmp_path: Path, change: str, message: str
) -> None:
    path = tmp_path / "session.db"
    run_on_a_big_input(path)
    with sqlite3.connect(path) as conn:
        conn.execute(change)
    with pytest.raises(SessionFileError, match="is damaged") as raised:
        SessionFile.open(path)
    assert message in str(raised.value)
