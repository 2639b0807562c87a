"""Session files: reopened where they stopped, even after SIGKILL; foreign files left alone."""

from __future__ import annotations

import datetime as dt
import hashlib
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sgdebug.debugger import SessionStore
from sgdebug.debugger.session_file import (
    SCHEMA_VERSION,
    SessionFile,
    SessionFileError,
    SessionRecord,
)
from sgdebug.runtime.checkpoint.serde import Unresolved
from sgdebug.sample_graphs import linear, loop

ROOT = Path(__file__).resolve().parents[2]
BREAKS = ({"number": 1, "kind": "before", "target": "attempt", "condition": "state['count'] > 2"},)


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "debug.sgdb"


@pytest.fixture
def session(path: Path) -> Iterator[SessionFile]:
    with SessionFile.open(path) as opened:
        yield opened


def record(**changes: Any) -> SessionRecord:
    fields: dict[str, Any] = {
        "target": "sgdebug.sample_graphs.loop:graph",
        "cwd": "/work/project",
        "input": {"count": 0},
        "breakpoints": BREAKS,
        "thread_id": None,
        "recursion_limit": None,
    }
    return SessionRecord(**(fields | changes))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


# -- saving and reopening ------------------------------------------------------------------


def test_a_new_file_has_no_session_yet(session: SessionFile) -> None:
    assert session.record is None
    assert session.path.exists()


def test_a_reopened_file_restores_everything_saved(path: Path, session: SessionFile) -> None:
    saved = record(
        input={"count": 3, "when": dt.datetime(2024, 5, 1, 12, 30), "pair": (1, 2)},
        thread_id="thread-7",
        recursion_limit=80,
    )
    session.save(saved)
    session.close()

    with SessionFile.open(path) as reopened:
        assert reopened.record == saved
        assert type(reopened.record.input["pair"]) is tuple  # the safe serialiser's round trip


def test_partial_saves_change_one_field_each(path: Path, session: SessionFile) -> None:
    session.save(record())
    session.save_thread("t2")
    session.save_input({"count": 5})
    session.save_breakpoints([])
    session.save_recursion_limit(40)
    session.close()

    with SessionFile.open(path) as reopened:
        assert reopened.record == record(
            thread_id="t2", input={"count": 5}, breakpoints=(), recursion_limit=40
        )


def test_breakpoints_are_stored_as_json(session: SessionFile) -> None:
    watch = {"number": 2, "kind": "watch", "target": "count", "condition": None, "hits": 3}
    session.save(record(breakpoints=(watch,)))

    assert session.record is not None
    assert session.record.breakpoints == (watch,)
    with pytest.raises(SessionFileError, match="cannot save the breakpoints"):
        session.save_breakpoints([{"when": dt.date(2024, 1, 1)}])
    with pytest.raises(SessionFileError, match=r"cannot save the breakpoints.*'kind'"):
        session.save_breakpoints([{"number": 1, "kind": "sideways", "target": "a"}])


def test_an_input_the_serialiser_refuses_is_a_clear_error(session: SessionFile) -> None:
    with pytest.raises(SessionFileError, match="cannot save the input"):
        session.save(record(input={"handle": object()}))
    assert session.record is None  # nothing half-written


def test_partial_saves_need_a_session_first(session: SessionFile) -> None:
    with pytest.raises(RuntimeError, match="call save"):
        session.save_thread("t")


def test_the_file_is_the_store_a_session_saves_to(session: SessionFile) -> None:
    store: SessionStore = session  # checked by mypy against the session's protocol
    session.save(record())

    store.save_thread("t9")
    store.save_input([1])
    store.save_breakpoints([{"number": 1, "kind": "after", "target": "attempt"}])

    saved = ({"number": 1, "kind": "after", "target": "attempt"},)
    assert session.record == record(thread_id="t9", input=[1], breakpoints=saved)


def test_history_and_session_share_one_file(path: Path, session: SessionFile) -> None:
    graph = linear.build().compile(checkpointer=session.saver)
    graph.invoke(linear.EXAMPLE_INPUT, config("run-1"))
    session.save(record(target="sgdebug.sample_graphs.linear:graph", thread_id="run-1"))
    session.close()

    with SessionFile.open(path) as reopened:
        assert reopened.record is not None
        thread = reopened.record.thread_id
        assert thread is not None
        again = linear.build().compile(checkpointer=reopened.saver)
        history = list(again.get_state_history(config(thread)))
    assert len(history) == 4  # steps -1 (input), 0, 1 (node_1) and 2 (node_2)
    assert history[0].values["cur_id"] == "request-7:validated:done"
    assert sorted(sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master WHERE type='table'"
    ).fetchall()) == [("blobs",), ("checkpoints",), ("session",), ("writes",)]  # fmt: skip


def test_reading_the_input_imports_nothing_the_file_names(
    path: Path, session: SessionFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "payload_types.py").write_text(textwrap.dedent("""\
        import dataclasses

        @dataclasses.dataclass
        class Order:
            id: int
        """))  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    import payload_types  # type: ignore[import-not-found]

    session.save(record(input={"order": payload_types.Order(5)}))
    session.close()
    del sys.modules["payload_types"]

    with SessionFile.open(path) as reopened:
        assert reopened.record is not None
        assert isinstance(reopened.record.input["order"], Unresolved)
    assert "payload_types" not in sys.modules


def test_the_input_comes_back_typed_once_the_program_is_imported(
    path: Path, session: SessionFile
) -> None:
    stamp = dt.datetime(2024, 1, 2, tzinfo=dt.UTC)
    session.save(record(input={"stamp": stamp}))

    assert session.record is not None
    assert session.record.input == {"stamp": stamp}


# -- files that are not sessions -----------------------------------------------------------


def test_a_text_file_is_refused_and_left_untouched(path: Path) -> None:
    path.write_text("my notes\n")
    before = digest(path)

    with pytest.raises(SessionFileError, match="not an SQLite database"):
        SessionFile.open(path)
    assert digest(path) == before


def test_another_programs_database_is_refused_and_left_untouched(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    conn.execute("INSERT INTO users VALUES (1, 'ada')")
    conn.commit()
    conn.close()
    before = digest(path)

    with pytest.raises(SessionFileError, match=r"tables of another program \(users\)"):
        SessionFile.open(path)
    assert digest(path) == before
    assert not Path(f"{path}-wal").exists()


def test_a_foreign_session_table_is_refused(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE session (token TEXT, expires INTEGER)")
    conn.commit()
    conn.close()

    with pytest.raises(SessionFileError, match="belongs to another program"):
        SessionFile.open(path)


def test_a_bare_checkpoint_database_is_not_taken_for_a_session(path: Path) -> None:
    from sgdebug.runtime.checkpoint import SqliteSaver

    SqliteSaver.from_path(path).close()

    with pytest.raises(SessionFileError, match="checkpoints but no session"):
        SessionFile.open(path)


def test_a_damaged_file_is_refused(path: Path, session: SessionFile) -> None:
    session.save(record())
    session.close()
    data = bytearray(path.read_bytes())
    data[100:2000] = b"\xff" * 1900
    path.write_bytes(bytes(data))

    with pytest.raises(SessionFileError, match="damaged"):
        SessionFile.open(path)


def test_a_damaged_value_is_refused(path: Path, session: SessionFile) -> None:
    session.save(record())
    session.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE session SET value='{not json' WHERE key='breakpoints'")

    with pytest.raises(SessionFileError, match=r"damaged.*'breakpoints'"):
        SessionFile.open(path)


def test_a_file_from_a_newer_sgdebug_is_refused(path: Path, session: SessionFile) -> None:
    session.save(record())
    session.close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE session SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION + 1),)
        )

    with pytest.raises(SessionFileError, match="newer sgdebug"):
        SessionFile.open(path)


def test_folders_and_missing_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionFileError, match="is a folder"):
        SessionFile.open(tmp_path)
    with pytest.raises(SessionFileError, match="no folder"):
        SessionFile.open(tmp_path / "absent" / "s.sgdb")


# -- crash safety --------------------------------------------------------------------------

WRITER = """\
import sys
from sgdebug.debugger.session_file import SessionFile, SessionRecord
from sgdebug.sample_graphs import loop

session = SessionFile.open(sys.argv[1])
graph = loop.build(iterations=3).compile(checkpointer=session.saver)
session.save(SessionRecord("sgdebug.sample_graphs.loop:graph", "/", {"count": 0}))
n = 0
while True:
    n += 1
    thread = f"run-{n}"
    session.save_thread(thread)
    graph.invoke({"count": 0}, {"configurable": {"thread_id": thread}})
    session.save_breakpoints([{"number": n, "kind": "before", "target": "attempt"}])
    if n == 3:
        print("ready", flush=True)
"""


def test_a_session_killed_while_writing_reopens_where_it_stopped(path: Path) -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "ready\n", writer.stderr.read() if writer.stderr else ""
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL

    with SessionFile.open(path) as reopened:
        saved = reopened.record
        assert saved is not None
        assert saved.thread_id is not None
        runs = int(saved.thread_id.removeprefix("run-"))
        assert runs >= 3
        # The breakpoints were saved after the previous run finished: same run or the one before.
        assert saved.breakpoints[0]["number"] in (runs - 1, runs)
        graph = loop.build(iterations=3).compile(checkpointer=reopened.saver)
        finished = graph.get_state(config(f"run-{runs - 1}"))
        assert finished.values == {"count": 3, "status": "done after 3 attempts"}
        assert finished.next == ()
        current = graph.get_state(config(saved.thread_id))
        if current.next:  # killed mid-run: the run continues from its last committed step
            assert graph.invoke(None, config(saved.thread_id))["count"] == 3
