"""``SqliteSaver``: crash safety, exact round-trips of non-JSON values, safe loading, clear errors.

Issue 3: a file written by a run killed mid-step (SIGKILL from a parent process) reopens with
every committed superstep intact and the run resumable; dataclasses, pydantic models,
langchain-core messages, sets, tuples and datetimes come back with their exact types from a
reopened file; loading never unpickles or imports anything the file names; a value that
cannot be stored gets an error naming the channel and its type; a corrupt file gets
:class:`CorruptCheckpointError`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import importlib.util
import os
import pickle
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any, TypedDict
from zoneinfo import ZoneInfo

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from pydantic import BaseModel

from sgdebug.runtime import END, START, StateGraph, add_messages
from sgdebug.runtime._compiled import CompiledStateGraph
from sgdebug.runtime.checkpoint import CorruptCheckpointError, SqliteSaver
from sgdebug.runtime.checkpoint.serde import SerializationError, Unresolved
from sgdebug.runtime.persist._persist import load_value

ROOT = Path(__file__).resolve().parents[2]
Values = dict[str, Any]


def cfg(thread: str = "t", checkpoint_id: str | None = None) -> dict[str, Any]:
    """A thread config, optionally naming a checkpoint."""
    configurable: dict[str, Any] = {"thread_id": thread}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "history.sqlite"


@pytest.fixture
def open_saver(db: Path) -> Iterator[Callable[[], SqliteSaver]]:
    """Opens the test's database file; every saver opened is closed at the end."""
    opened: list[SqliteSaver] = []

    def make() -> SqliteSaver:
        saver = SqliteSaver.from_path(db)
        opened.append(saver)
        return saver

    yield make
    for saver in opened:
        saver.close()


# -- killed mid-step -----------------------------------------------------------------------

LOOP_MODULE = '''
"""A loop appending one item per pass; with SLOW_AT set, that pass signals READY and sleeps."""

from __future__ import annotations

import operator
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

from sgdebug.runtime import END, START, SqliteSaver, StateGraph

PASSES = int(os.environ.get("PASSES", "8"))


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    n: int


def step(state: State) -> dict[str, Any]:
    n = state["n"]
    if os.environ.get("READY_AT") == str(n):
        Path(os.environ["READY"]).write_text("ready")
    if os.environ.get("SLOW_AT") == str(n):
        time.sleep(120)
    return {"log": [f"pass {n}"], "n": n + 1}


def again(state: State) -> str:
    return "step" if state["n"] < PASSES else END


def build(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", again, ["step", END])
    return builder.compile(checkpointer=saver)


if __name__ == "__main__":
    graph = build(SqliteSaver.from_path(sys.argv[1]))
    config = {"configurable": {"thread_id": "killed"}, "recursion_limit": PASSES + 10}
    graph.invoke({"log": [], "n": 0}, config)
'''


def load_module(path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Import ``path`` under a unique name (the parent's copy of the child's graph).

    The module is registered in ``sys.modules`` so its string annotations resolve.
    """
    name = f"killed_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


def run_and_kill(
    tmp_path: Path, db: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> ModuleType:
    """Run the loop in a child process, SIGKILL it once it signals READY; the graph module."""
    script = tmp_path / "loop_graph.py"
    script.write_text(LOOP_MODULE)
    ready = tmp_path / "ready"
    child_env = {**os.environ, **env, "READY": str(ready)}
    child_env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    child = subprocess.Popen(
        [sys.executable, str(script), str(db)], env=child_env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            if child.poll() is not None:
                _, err = child.communicate()
                pytest.fail(f"child exited early ({child.returncode}): {err.decode()}")
            assert time.monotonic() < deadline, "child never reached the READY pass"
            time.sleep(0.001)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        assert child.stderr is not None
        child.stderr.close()
    monkeypatch.setenv("PASSES", env.get("PASSES", "8"))  # the parent's copy loops as far
    return load_module(script, monkeypatch)


def passes(count: int) -> list[str]:
    return [f"pass {i}" for i in range(count)]


def test_sigkill_mid_step_keeps_every_committed_superstep_and_resumes(
    tmp_path: Path,
    db: Path,
    open_saver: Callable[[], SqliteSaver],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow = 5  # the node's pass n runs in superstep n + 1, so supersteps -1..5 committed
    module = run_and_kill(tmp_path, db, {"SLOW_AT": str(slow), "READY_AT": str(slow)}, monkeypatch)
    assert Path(f"{db}-wal").stat().st_size > 0  # the commits live in the WAL the kill left

    graph: CompiledStateGraph = module.build(open_saver())
    history = list(graph.get_state_history(cfg("killed")))
    assert [s.metadata["step"] for s in history if s.metadata] == list(range(slow, -2, -1))
    for snap in history:
        assert snap.metadata is not None
        step = snap.metadata["step"]
        if step >= 0:
            assert snap.values == {"log": passes(step), "n": step}
    latest = graph.get_state(cfg("killed"))
    assert latest.next == ("step",)
    assert latest.tasks[0].result is None  # the killed task left nothing behind

    result = graph.invoke(None, {**cfg("killed"), "recursion_limit": 50})
    assert result == {"log": passes(8), "n": 8}
    steps = [s.metadata["step"] for s in graph.get_state_history(cfg("killed")) if s.metadata]
    assert steps == list(range(8, -2, -1))


def test_sigkill_at_an_arbitrary_moment_leaves_a_consistent_resumable_file(
    tmp_path: Path,
    db: Path,
    open_saver: Callable[[], SqliteSaver],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No sleep: the kill lands wherever the child is, possibly inside a transaction.
    module = run_and_kill(tmp_path, db, {"PASSES": "400", "READY_AT": "40"}, monkeypatch)
    graph: CompiledStateGraph = module.build(open_saver())
    history = list(graph.get_state_history(cfg("killed")))
    steps = [s.metadata["step"] for s in history if s.metadata]
    assert steps == list(range(steps[0], -2, -1))
    assert steps[0] >= 40, steps[0]
    for snap in history[:40]:
        assert snap.metadata is not None
        step = snap.metadata["step"]
        assert snap.values == {"log": passes(step), "n": step}
    result = graph.invoke(None, {**cfg("killed"), "recursion_limit": 500})
    assert result == {"log": passes(400), "n": 400}


# -- values that are not JSON --------------------------------------------------------------


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str = ""


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Profile(BaseModel):
    name: str
    tags: list[str]
    joined: dt.datetime
    color: Color


class RichState(TypedDict, total=False):
    point: Point
    profile: Profile
    messages: Annotated[list[AnyMessage], add_messages]
    tags: set[str]
    frozen: frozenset[int]
    pair: tuple[int, str, tuple[float, ...]]
    when: dt.datetime
    day: dt.date
    span: dt.timedelta
    amount: Decimal
    uid: uuid.UUID
    raw: bytes
    report: dict[str, str]


PARIS = ZoneInfo("Europe/Paris")


def rich_values() -> Values:
    """Every non-JSON kind of value the issue names, and a few more."""
    return {
        "point": Point(1, 2.5, "p"),
        "profile": Profile(
            name="ada",
            tags=["x", "y"],
            joined=dt.datetime(2024, 1, 2, tzinfo=dt.UTC),
            color=Color.GREEN,
        ),
        "tags": {"b", "a", "c"},
        "frozen": frozenset({3, 1, 2}),
        "pair": (1, "two", (3.0, 4.5)),
        "when": dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=PARIS),
        "day": dt.date(2024, 2, 29),
        "span": dt.timedelta(days=1, seconds=2, microseconds=3),
        "amount": Decimal("12.3400"),
        "uid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "raw": b"\x00\xffbytes",
    }


MESSAGES: list[AnyMessage] = [
    HumanMessage("what is 2 + 2?", id="m1"),
    AIMessage("", id="m2", tool_calls=[{"name": "add", "args": {"a": 2, "b": 2}, "id": "c1"}]),
    ToolMessage("4", tool_call_id="c1", id="m3"),
]


def fill(state: RichState) -> Values:
    return {**rich_values(), "messages": MESSAGES}


def check(state: RichState) -> Values:
    """Report the exact type of each value the node receives."""
    return {"report": {k: type(v).__name__ for k, v in state.items() if k != "report"}}


def rich_graph(saver: SqliteSaver) -> CompiledStateGraph:
    builder = StateGraph(RichState)
    builder.add_node("fill", fill)
    builder.add_node("check", check)
    builder.add_edge(START, "fill")
    builder.add_edge("fill", "check")
    builder.add_edge("check", END)
    graph: CompiledStateGraph = builder.compile(checkpointer=saver, interrupt_before=["check"])
    return graph


def as_read(value: Any) -> Any:
    """A value as a run reads it back from any checkpointer: plain tuples become lists.

    LangGraph does this (its serialiser has no tuple), and sgdebug's runtime copies it so
    programs behave the same; the saver itself stores the tuple.
    """
    if type(value) in (tuple, list):
        return [as_read(v) for v in value]
    return value


def assert_exact(values: Values, *, stored: bool = False) -> None:
    """``values`` equal :func:`rich_values` plus the messages, with the same types.

    ``stored``: ``values`` were decoded straight from the saver (tuples kept as tuples).
    """
    expected = {**rich_values(), "messages": MESSAGES}
    if not stored:
        expected = {k: as_read(v) for k, v in expected.items()}
    for key, value in expected.items():
        assert values[key] == value, key
        assert type(values[key]) is type(value), key
    assert [type(m) for m in values["messages"]] == [HumanMessage, AIMessage, ToolMessage]
    assert values["messages"][1].tool_calls[0]["args"] == {"a": 2, "b": 2}
    assert values["when"].tzinfo == PARIS
    assert values["when"].utcoffset() == dt.timedelta(hours=2)
    assert type(values["pair"][2]) is (tuple if stored else list)
    assert type(values["profile"].joined) is dt.datetime
    assert values["profile"].color is Color.GREEN


def written_rich_thread(open_saver: Callable[[], SqliteSaver]) -> SqliteSaver:
    """Run the rich graph up to its breakpoint, close the file, and open it again."""
    writer = open_saver()
    rich_graph(writer).invoke({"tags": set()}, cfg())
    writer.close()
    return open_saver()


def test_non_json_values_round_trip_exactly_through_a_reopened_file(
    open_saver: Callable[[], SqliteSaver],
) -> None:
    saver = written_rich_thread(open_saver)
    record = saver.get_record("t")
    assert record is not None
    stored = {k: load_value(saver, "t", blob_id)[0] for k, blob_id in record.blobs.items()}
    assert_exact(stored, stored=True)


def test_non_json_values_read_back_from_a_reopened_file(
    open_saver: Callable[[], SqliteSaver],
) -> None:
    graph = rich_graph(written_rich_thread(open_saver))
    snap = graph.get_state(cfg())
    assert snap.next == ("check",)
    assert_exact(snap.values)
    history = {s.metadata["step"]: s for s in graph.get_state_history(cfg()) if s.metadata}
    assert_exact(graph.get_state(history[1].config).values)


def test_a_run_resumed_from_a_reopened_file_gets_the_same_types(
    open_saver: Callable[[], SqliteSaver],
) -> None:
    result = rich_graph(written_rich_thread(open_saver)).invoke(None, cfg())
    expected = {k: as_read(v) for k, v in {**rich_values(), "messages": []}.items()}
    assert result["report"] == {k: type(v).__name__ for k, v in expected.items()}
    assert_exact(result)


# -- loading never runs code from the file -------------------------------------------------


TRAP = '''
"""Importing this module leaves a mark: loading a checkpoint must never import it."""
from pathlib import Path
Path(__file__).with_suffix(".imported").write_text("imported")


class Point:
    pass
'''


def stored_blobs(db: Path) -> list[tuple[str, bytes]]:
    with sqlite3.connect(db) as conn:
        return [(r[0], bytes(r[1])) for r in conn.execute("SELECT id, data FROM blobs")]


def rewrite_blob(db: Path, blob_id: str, data: bytes) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE blobs SET data=? WHERE id=?", (data, blob_id))
    conn.close()


def point_graph(saver: SqliteSaver) -> CompiledStateGraph:
    builder = StateGraph(RichState)
    builder.add_node("fill", fill)
    builder.add_edge(START, "fill")
    graph: CompiledStateGraph = builder.compile(checkpointer=saver)
    return graph


def test_loading_a_row_naming_an_unimported_module_does_not_import_it(
    tmp_path: Path,
    db: Path,
    open_saver: Callable[[], SqliteSaver],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trap_name = f"sgdebug_trap_{uuid.uuid4().hex}"
    (tmp_path / f"{trap_name}.py").write_text(TRAP)
    monkeypatch.syspath_prepend(str(tmp_path))
    writer = open_saver()
    point_graph(writer).invoke({"tags": set()}, cfg())
    writer.close()
    ours = f"{Point.__module__}:Point".encode()
    [(blob_id, data)] = [(i, d) for i, d in stored_blobs(db) if ours in d]
    rewrite_blob(db, blob_id, data.replace(ours, f"{trap_name}:Point".encode()))

    values = point_graph(open_saver()).get_state(cfg()).values
    assert isinstance(values["point"], Unresolved)
    assert values["point"].type == f"{trap_name}.Point"
    assert values["point"].data == {"x": 1, "y": 2.5, "label": "p"}
    assert trap_name not in sys.modules
    assert not (tmp_path / f"{trap_name}.imported").exists()


class Payload:
    """Unpickling this would write a file."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (self.mark, "unpickled"))


def test_a_pickle_in_the_file_is_refused_not_unpickled(
    tmp_path: Path, db: Path, open_saver: Callable[[], SqliteSaver]
) -> None:
    writer = open_saver()
    point_graph(writer).invoke({"tags": set()}, cfg())
    writer.close()
    mark = tmp_path / "unpickled.txt"
    ours = f"{Point.__module__}:Point".encode()
    [blob_id] = [i for i, d in stored_blobs(db) if ours in d]
    rewrite_blob(db, blob_id, pickle.dumps(Payload(mark)))

    with pytest.raises(ValueError, match="stored value"):
        point_graph(open_saver()).get_state(cfg())
    assert not mark.exists()


def test_an_undecodable_value_row_is_a_corrupt_checkpoint_error(
    db: Path, open_saver: Callable[[], SqliteSaver]
) -> None:
    writer = open_saver()
    point_graph(writer).invoke({"tags": set()}, cfg())
    writer.close()
    blob_id, _ = stored_blobs(db)[0]
    rewrite_blob(db, blob_id, b"\x80\x04 not a value")
    with pytest.raises(CorruptCheckpointError):
        point_graph(open_saver()).get_state(cfg())


# -- values that cannot be stored ----------------------------------------------------------


class LoopState(TypedDict, total=False):
    n: int
    handler: Any
    settings: dict[str, Any]


def storing(value_of: Callable[[], Values]) -> Callable[[SqliteSaver], CompiledStateGraph]:
    """A graph whose node ``a`` returns ``value_of()``."""

    def a(state: LoopState) -> Values:
        return value_of()

    def build(saver: SqliteSaver) -> CompiledStateGraph:
        builder = StateGraph(LoopState)
        builder.add_node("a", a)
        builder.add_edge(START, "a")
        graph: CompiledStateGraph = builder.compile(checkpointer=saver)
        return graph

    return build


@pytest.mark.parametrize(
    ("value_of", "channel", "type_name"),
    [
        (lambda: {"handler": lambda x: x}, "handler", "function"),
        (lambda: {"handler": threading.Lock()}, "handler", "lock"),
        (lambda: {"settings": {"lock": threading.RLock()}}, "settings", "RLock"),
    ],
    ids=["lambda", "lock", "nested-rlock"],
)
def test_a_value_that_cannot_be_stored_names_its_channel_and_type(
    open_saver: Callable[[], SqliteSaver],
    value_of: Callable[[], Values],
    channel: str,
    type_name: str,
) -> None:
    graph = storing(value_of)(open_saver())
    with pytest.raises(SerializationError) as info:
        graph.invoke({"n": 1}, cfg())
    message = str(info.value)
    assert repr(channel) in message
    assert type_name in message
    assert info.value.channel == channel
    assert isinstance(info.value, TypeError)
    # Nothing of the failed step was written: the file holds the steps before it.
    reopened = storing(value_of)(open_saver())
    steps = [s.metadata["step"] for s in reopened.get_state_history(cfg()) if s.metadata]
    assert steps == [0, -1]


# -- corrupt files -------------------------------------------------------------------------


def test_a_file_that_is_not_a_database_is_a_corrupt_checkpoint_error(db: Path) -> None:
    db.write_bytes(b"this is not a database, just text. " * 200)
    with pytest.raises(CorruptCheckpointError, match="not a database"):
        SqliteSaver.from_path(db)


def written_file(db: Path, threads: int) -> bytes:
    """A database with ``threads`` finished threads, WAL merged; its bytes."""
    saver = SqliteSaver.from_path(db)
    graph = point_graph(saver)
    for i in range(threads):
        graph.invoke({"tags": {f"t{i}" * 40}, "raw": b"x" * 200}, cfg(str(i)))
    saver.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    saver.close()
    return db.read_bytes()


def test_a_truncated_file_is_a_corrupt_checkpoint_error(tmp_path: Path, db: Path) -> None:
    data = written_file(db, 150)
    broken = tmp_path / "truncated.sqlite"
    broken.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptCheckpointError):
        point_graph(SqliteSaver.from_path(broken)).get_state(cfg("120"))


def test_damaged_pages_are_a_corrupt_checkpoint_error(tmp_path: Path, db: Path) -> None:
    data = bytearray(written_file(db, 150))
    start = len(data) // 3
    data[start : start + 4096] = bytes(b ^ 0xFF for b in data[start : start + 4096])
    broken = tmp_path / "damaged.sqlite"
    broken.write_bytes(bytes(data))
    with pytest.raises(CorruptCheckpointError):
        graph = point_graph(SqliteSaver.from_path(broken))
        for i in range(150):
            graph.get_state(cfg(str(i)))


def test_another_programs_database_is_a_corrupt_checkpoint_error(db: Path) -> None:
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "CREATE TABLE checkpoints (thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL "
            "DEFAULT '', checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT, "
            "checkpoint BLOB, metadata BLOB, PRIMARY KEY (thread_id, checkpoint_ns, "
            "checkpoint_id))"
        )
        conn.execute("INSERT INTO checkpoints VALUES ('t', '', '1', NULL, 'msgpack', x'00', x'00')")
    conn.close()
    with pytest.raises(CorruptCheckpointError):
        point_graph(SqliteSaver.from_path(db)).get_state(cfg())


def test_a_copy_of_a_closed_file_opens_with_every_thread(tmp_path: Path, db: Path) -> None:
    written_file(db, 3)
    copy = tmp_path / "copy.sqlite"
    shutil.copy(db, copy)
    saver = SqliteSaver.from_path(copy)
    try:
        assert sorted(saver.threads()) == ["0", "1", "2"]
        values = point_graph(saver).get_state(cfg("2")).values
        assert values["tags"] == {"a", "b", "c"}
        assert values["point"] == Point(1, 2.5, "p")
    finally:
        saver.close()
