"""A LangGraph program debugged with a session file: its history is kept in the file by
sgdebug's LangGraph checkpointer, reopened where it stopped, and read back safely.

The checkpointer is held to LangGraph's own behaviour: the same program, run with it and
with LangGraph's ``InMemorySaver``, gives the same history, states, forks and updates. A
row someone crafted (a pickle, an object naming ``os.system``) is refused as damaged, and
nothing it names runs.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import pickle
import sqlite3
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import ormsgpack
import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, Send, interrupt
from pydantic import BaseModel

from sgdebug.debugger.engines._lg_saver import DamagedRowError
from sgdebug.debugger.session_file import SessionFile, SessionFileError, SessionRecord

Run = Callable[..., subprocess.CompletedProcess[str]]

# -- the checkpointer against LangGraph's InMemorySaver --------------------------------------


class Fan(TypedDict):
    n: int
    log: Annotated[list[Any], operator.add]


def _double(state: Fan) -> dict[str, Any]:
    return {"n": state["n"] * 2, "log": [("double", state["n"])]}  # a tuple: stored as a list


def _fan_out(state: Fan) -> list[Send]:
    return [Send("work", {"n": i, "log": []}) for i in range(2)]


def _work(state: Fan) -> dict[str, Any]:
    return {"log": [f"work {state['n']}"]}


def _ask(state: Fan) -> dict[str, Any]:
    return {"log": [interrupt(f"approve {state['n']}?")]}


def fan_graph(saver: BaseCheckpointSaver[Any]) -> Any:
    """double -> (Send) work x2 -> ask (interrupts)."""
    builder = StateGraph(Fan)
    builder.add_node("double", _double)
    builder.add_node("work", _work)
    builder.add_node("ask", _ask)
    builder.add_edge(START, "double")
    builder.add_conditional_edges("double", _fan_out, ["work"])
    builder.add_edge("work", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=saver)


def exercise(saver: BaseCheckpointSaver[Any]) -> tuple[list[Any], Any]:
    """Run, answer, fork an old snapshot with an update, run the fork: history and state."""
    graph, thread = fan_graph(saver), {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 1, "log": []}, thread)
    graph.invoke(Command(resume="yes"), thread)
    old = list(graph.get_state_history(thread))[3]  # step 0: before ``double`` ran
    forked = graph.update_state(old.config, {"n": 100}, as_node="double")
    graph.invoke(None, forked)
    graph.invoke(Command(resume="again"), thread)
    return list(graph.get_state_history(thread)), graph.get_state(thread)


def comparable(history: list[Any]) -> list[tuple[Any, ...]]:
    """Snapshots without their ids and times (ids are uuids): parents by position."""
    position = {s.config["configurable"]["checkpoint_id"]: i for i, s in enumerate(history)}
    rows = []
    for snap in history:
        parent = snap.parent_config["configurable"]["checkpoint_id"] if snap.parent_config else None
        tasks = [
            (t.name, t.path, t.error, [i.value for i in t.interrupts], t.result) for t in snap.tasks
        ]
        meta = {k: v for k, v in snap.metadata.items() if k != "run_id"}
        rows.append((snap.values, snap.next, meta, tasks, position.get(parent)))
    return rows


@pytest.fixture
def session_file(tmp_path: Path) -> Iterator[SessionFile]:
    with SessionFile.open(tmp_path / "lg.sgdb") as opened:
        yield opened


def test_history_forks_and_updates_match_langgraphs_own_saver(session_file: SessionFile) -> None:
    expected_history, expected_state = exercise(InMemorySaver())

    history, state = exercise(session_file.langgraph_saver())

    assert comparable(history) == comparable(expected_history)
    assert comparable([state]) == comparable([expected_state])
    assert state.values == {"n": 100, "log": ["work 0", "work 1", "again"]}  # the fork's end
    assert len(history) == 8  # both branches: 5 snapshots, then 3 from the update on


def test_reading_the_history_looks_rows_up_by_key(session_file: SessionFile) -> None:
    # Reopening a long LangGraph session reads every checkpoint: each read must be a key
    # lookup, not a scan of the thread's rows (that made reopening quadratic in its steps).
    saver = session_file.langgraph_saver()
    graph, thread = fan_graph(saver), {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 1, "log": []}, thread)
    statements: list[str] = []
    saver.conn.set_trace_callback(statements.append)
    try:
        assert len(list(graph.get_state_history(thread))) == 4  # to the interrupt
    finally:
        saver.conn.set_trace_callback(None)
    plans = [
        " | ".join(row[3] for row in saver.conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        for sql in statements
        if sql.lstrip().upper().startswith(("SELECT", "WITH"))
    ]
    assert plans and not [p for p in plans if "CORRELATED" in p]
    blob_reads = [p for p in plans if " b USING" in p or "lg_blobs" in p]
    assert blob_reads and all("channel=? AND version=?" in p for p in blob_reads), blob_reads


def test_the_history_is_read_back_from_the_file(tmp_path: Path) -> None:
    with SessionFile.open(tmp_path / "lg.sgdb") as first:
        written, _ = exercise(first.langgraph_saver())

    with SessionFile.open(tmp_path / "lg.sgdb") as again:
        graph = fan_graph(again.langgraph_saver())
        reread = list(graph.get_state_history({"configurable": {"thread_id": "t"}}))

    assert comparable(reread) == comparable(written)
    assert [s.config for s in reread] == [s.config for s in written]


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


CALL = {"name": "lookup", "args": {"city": "Paris"}, "id": "call-1", "type": "tool_call"}
MESSAGES: list[AnyMessage] = [
    HumanMessage("weather?", id="h1"),
    AIMessage("", tool_calls=[CALL], id="a1", usage_metadata=None),
    ToolMessage("sunny", tool_call_id="call-1", name="lookup", id="t1"),
    AIMessage("It is sunny.", id="a2", response_metadata={"model": "fake"}),
]


def test_langchain_messages_with_tool_calls_come_back_equal(tmp_path: Path) -> None:
    builder = StateGraph(Chat)
    builder.add_node("agent", lambda state: {"messages": MESSAGES[1:]})
    builder.add_edge(START, "agent")
    thread: RunnableConfig = {"configurable": {"thread_id": "chat"}}
    start: Chat = {"messages": MESSAGES[:1]}
    with SessionFile.open(tmp_path / "chat.sgdb") as first:
        builder.compile(checkpointer=first.langgraph_saver()).invoke(start, thread)

    with SessionFile.open(tmp_path / "chat.sgdb") as again:
        values = builder.compile(checkpointer=again.langgraph_saver()).get_state(thread).values

    assert values["messages"] == MESSAGES
    assert [type(m) for m in values["messages"]] == [type(m) for m in MESSAGES]
    assert values["messages"][1].tool_calls == [CALL]


class Level(enum.Enum):
    LOW = 1


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    level: Level


class Inner(BaseModel):
    pair: tuple[int, int]


class Outer(BaseModel):
    name: str
    inner: Inner
    extras: list[Inner] = []


def test_the_programs_own_classes_come_back_as_those_classes(session_file: SessionFile) -> None:
    saver = session_file.langgraph_saver()
    value = {
        "point": Point(1, Level.LOW),
        "model": Outer(name="o", inner=Inner(pair=(1, 2)), extras=[Inner(pair=(3, 4))]),
    }
    config = saver.put(
        {"configurable": {"thread_id": "own", "checkpoint_ns": ""}}, _checkpoint("c1"), {}, {}
    )
    saver.put_writes(config, [("value", value)], "task-1")

    found = saver.get_tuple(config)

    assert found is not None
    assert found.pending_writes == [("task-1", "value", value)]


def test_a_value_that_cannot_be_stored_names_its_channel(session_file: SessionFile) -> None:
    saver = session_file.langgraph_saver()
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c1"}}

    with pytest.raises(TypeError, match=r"cannot store channel 'handle' in the session file"):
        saver.put_writes(config, [("ok", 1), ("handle", object())], "task-1")

    count = session_file.saver.conn.execute("SELECT COUNT(*) FROM lg_writes").fetchone()
    assert count == (0,)  # nothing half-written


def _checkpoint(checkpoint_id: str) -> Any:
    return {
        "v": 4,
        "id": checkpoint_id,
        "ts": "2024-01-01T00:00:00+00:00",
        "channel_values": {},
        "channel_versions": {},
        "versions_seen": {},
        "updated_channels": None,
    }


# -- crafted rows --------------------------------------------------------------------------


class _Touch:
    """Unpickling this creates the marker file: proof that a pickle ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def _touch(marker: Path) -> list[str]:
    return ["touch", str(marker)]


def _ext(code: int, *payload: Any) -> bytes:
    return ormsgpack.packb(ormsgpack.Ext(code, ormsgpack.packb(list(payload))))


LANGCHAIN_JSON = b'{"lc": 1, "type": "constructor", "id": ["os", "system"]}'
CRAFTED: dict[str, Callable[[Path], tuple[str, bytes]]] = {
    "pickle": lambda m: ("pickle", pickle.dumps(_Touch(m))),
    "os.system": lambda m: ("msgpack", _ext(0, "os", "system", f"touch {m}")),
    "a method call": lambda m: ("msgpack", _ext(3, "os", "system", f"touch {m}", "x")),
    "subprocess.Popen": lambda m: ("msgpack", _ext(2, "subprocess", "Popen", {"args": _touch(m)})),
    "langchain json": lambda m: ("json", LANGCHAIN_JSON),
}


@pytest.mark.parametrize("kind", sorted(CRAFTED))
def test_a_crafted_row_is_refused_as_damaged_and_nothing_runs(tmp_path: Path, kind: str) -> None:
    path, marker = tmp_path / "lg.sgdb", tmp_path / "ran"
    with SessionFile.open(path) as first:
        exercise(first.langgraph_saver())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE lg_blobs SET type=?, value=? WHERE channel='n'", CRAFTED[kind](marker))

    with SessionFile.open(path) as again, pytest.raises(SessionFileError, match="damaged"):
        again.langgraph_saver()
    assert not marker.exists()


# -- the command line ----------------------------------------------------------------------

APP = """\
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    count: int
    log: Annotated[list[str], operator.add]


def plan(state):
    call = {"name": "times_ten", "args": {"n": state["count"]}, "id": "call-1"}
    return {"messages": [AIMessage("", tool_calls=[call], id="ai-1")],
            "count": state["count"] + 1, "log": ["plan"]}


def act(state):
    call = state["messages"][-1].tool_calls[0]
    return {"messages": [ToolMessage("ok", tool_call_id=call["id"], id="tool-1")],
            "count": state["count"] * 10, "log": ["act"]}


def answer(state):
    return {"messages": [AIMessage(f"total {state['count']}", id="ai-2")], "log": ["answer"]}


builder = StateGraph(State)
for node in (plan, act, answer):
    builder.add_node(node)
builder.add_edge(START, "plan")
builder.add_edge("plan", "act")
builder.add_edge("act", "answer")
builder.add_edge("answer", END)
graph = builder.compile()
"""
INPUT = '{"messages": [], "count": 1, "log": []}'
RESULT = "print state['count'], state['log'], [type(m).__name__ for m in state['messages']]"


@pytest.fixture
def run(tmp_path: Path) -> Run:
    """``python -m sgdebug run ARGS`` in a folder holding ``app.py`` (a LangGraph program)."""
    (tmp_path / "app.py").write_text(APP)

    def sgdebug(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "sgdebug", "run", *args],
            cwd=tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    return sgdebug


def langgraphs_own_result(edited_count: int) -> str:
    """What LangGraph gives for the app stopped before ``act``, ``count`` set, then run on."""
    module = types.ModuleType("lg_session_app")
    sys.modules[module.__name__] = module  # LangGraph reads the state's hints through it
    try:
        exec(APP, module.__dict__)
        graph = module.builder.compile(checkpointer=InMemorySaver(), interrupt_before=["act"])
        thread = {"configurable": {"thread_id": "t"}}
        graph.invoke({"messages": [], "count": 1, "log": []}, thread)
        graph.update_state(thread, {"count": edited_count}, as_node="plan")
        state = graph.invoke(None, thread)
    finally:
        del sys.modules[module.__name__]
    return repr((state["count"], state["log"], [type(m).__name__ for m in state["messages"]]))


def _history(out: str) -> str:
    """The lines ``history`` printed (up to the next prompt)."""
    return out.split("(sgdebug) history\n")[1].split("(sgdebug)")[0]


def test_a_langgraph_session_reopens_where_it_stopped(run: Run) -> None:
    first = run(
        "app.py:graph",
        "--input",
        INPUT,
        "--session",
        "s.sgdb",
        stdin="break before answer\nstep 2\nset count = 7\nhistory\nquit\n",
    )
    script = f"history\nbreaks\nprint state['count']\ncontinue\ncontinue\n{RESULT}\n"
    second = run("app.py:graph", "--session", "s.sgdb", stdin=script)

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    out = second.stdout
    reopened = "At snapshot 3 (recorded at step 2): the run is paused before step 3."
    assert out.splitlines()[0] == reopened  # the edit's snapshot, where the first one quit
    assert _history(out) == _history(first.stdout)  # the same tree, the edit included
    assert "1    yes      0     before answer" in out
    assert "(sgdebug) print state['count']\n7\n" in out
    assert "breakpoint 1 (before answer)" in out
    assert out.endswith(f"{langgraphs_own_result(7)}\n")


def test_a_tampered_langgraph_row_is_a_clear_error_and_nothing_runs(
    run: Run, tmp_path: Path
) -> None:
    run("app.py:graph", "--input", INPUT, "--session", "s.sgdb", stdin="step 2\n")
    marker = tmp_path / "ran"
    with sqlite3.connect(tmp_path / "s.sgdb") as conn:
        conn.execute(
            "UPDATE lg_blobs SET type='pickle', value=? WHERE channel='messages'",
            (pickle.dumps(_Touch(marker)),),
        )

    reopened = run("--session", "s.sgdb", "--trust", stdin="print state\n")

    assert reopened.returncode == 2
    assert "session file s.sgdb is damaged and cannot be reopened" in reopened.stderr
    assert "channel 'messages'" in reopened.stderr
    assert "unknown encoding 'pickle'" in reopened.stderr
    assert not marker.exists()


NATIVE = APP.replace("from langgraph.graph import", "from sgdebug.runtime import").replace(
    "from langgraph.graph.message import add_messages", "from sgdebug.runtime import add_messages"
)


def test_a_native_graphs_session_file_reopens_as_before(run: Run, tmp_path: Path) -> None:
    (tmp_path / "native_app.py").write_text(NATIVE)
    first = run("native_app.py:graph", "--input", INPUT, "--session", "n.sgdb", stdin="step 2\n")
    script = f"print state['count']\ncontinue\n{RESULT}\n"
    second = run("native_app.py:graph", "--session", "n.sgdb", stdin=script)

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert "(sgdebug) print state['count']\n2\n" in second.stdout
    assert second.stdout.endswith(
        "(20, ['plan', 'act', 'answer'], ['AIMessage', 'ToolMessage', 'AIMessage'])\n"
    )
    with sqlite3.connect(tmp_path / "n.sgdb") as conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    assert not {t for t in tables if t.startswith("lg_")}  # LangGraph's tables: not made


def test_a_session_record_names_the_langgraph_program(session_file: SessionFile) -> None:
    session_file.save(SessionRecord("app.py:graph", "/work", {"messages": MESSAGES[:1]}))

    assert session_file.record is not None
    assert session_file.record.input == {"messages": MESSAGES[:1]}


def test_a_row_damaged_while_the_file_is_open_is_refused_when_read(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    with SessionFile.open(tmp_path / "lg.sgdb") as opened:
        graph = fan_graph(opened.langgraph_saver())
        graph.invoke({"n": 1, "log": []}, {"configurable": {"thread_id": "t"}})
        opened.saver.conn.execute(
            "UPDATE lg_writes SET type='pickle', value=?", (pickle.dumps(_Touch(marker)),)
        )

        with pytest.raises(DamagedRowError, match="unknown encoding 'pickle'"):
            graph.get_state({"configurable": {"thread_id": "t"}})
    assert not marker.exists()
