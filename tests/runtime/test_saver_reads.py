"""What history views read from a saver, and what a saver stores of a large value.

``list_record_info`` and ``list_write_info`` are one read each (no value decoded); they
must say what ``list_records`` and ``get_writes`` say. A large value a node writes is
stored once by ``SqliteSaver`` (the write refers to the channel's blob) and reads back the
same through every reader.
"""

from __future__ import annotations

import operator
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.checkpoint import (
    BaseCheckpointSaver,
    CorruptCheckpointError,
    InMemorySaver,
    SqliteSaver,
)
from sgdebug.runtime.checkpoint.sqlite import SHARE_MIN

CFG: dict[str, Any] = {"configurable": {"thread_id": "t"}}
BIG = 300_000


class State(TypedDict):
    text: str
    log: Annotated[list[int], operator.add]


def fan_out(saver: BaseCheckpointSaver) -> Any:
    """START -> a and b (both append to ``log``) -> c (sets ``text``)."""
    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": [1]})
    builder.add_node("b", lambda s: {"log": [2]})
    builder.add_node("c", lambda s: {"text": "c"})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    return builder.compile(checkpointer=saver)


def big_writer(saver: BaseCheckpointSaver) -> Any:
    """``write`` sets ``text`` to a large string and appends a large list to ``log``."""
    builder = StateGraph(State)
    builder.add_node("write", lambda s: {"text": "y" * BIG, "log": list(range(BIG // 10))})
    builder.add_edge(START, "write")
    return builder.compile(checkpointer=saver)


def sqlite_file(path: Path) -> SqliteSaver:
    return SqliteSaver.from_path(path)


def savers(tmp_path: Path) -> dict[str, BaseCheckpointSaver]:
    return {"memory": InMemorySaver(), "sqlite": sqlite_file(tmp_path / "c.db")}


@pytest.mark.parametrize("name", ["memory", "sqlite"])
def test_history_reads_say_what_records_and_writes_say(name: str, tmp_path: Path) -> None:
    saver = savers(tmp_path)[name]
    graph = fan_out(saver)
    graph.invoke({"text": "", "log": []}, CFG)
    graph.update_state(CFG, {"text": "edited"}, as_node="c")
    records = list(saver.list_records("t"))
    assert [tuple(r) for r in saver.list_record_info("t")] == [
        (r.id, r.parent_id, r.step, r.source, r.created_at) for r in records
    ]
    expected = Counter(
        (r.id, w.task_id, w.task_name, w.path, w.channel)
        for r in records
        for w in saver.get_writes("t", r.id)
    )
    assert Counter(tuple(w) for w in saver.list_write_info("t")) == expected
    assert {w[4] for w in expected} >= {"log", "text"}


def stored_bytes(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        (writes,) = conn.execute("SELECT sum(length(value)) FROM writes").fetchone()
        (blobs,) = conn.execute("SELECT sum(length(data)) FROM blobs").fetchone()
    return int(writes) + int(blobs)


def test_a_large_value_a_node_writes_is_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    saver = sqlite_file(path)
    graph = big_writer(saver)
    graph.invoke({"text": "", "log": []}, CFG)
    text, log = saver.encode("y" * BIG, "text"), saver.encode(list(range(BIG // 10)), "log")
    assert len(text) >= SHARE_MIN and len(log) >= SHARE_MIN
    assert stored_bytes(path) < 1.05 * (len(text) + len(log))  # not twice
    saver.close()

    again = sqlite_file(path)  # another connection reads it back the same
    history = list(big_writer(again).get_state_history(CFG))
    assert history[0].values == {"text": "y" * BIG, "log": list(range(BIG // 10))}
    wrote = next(t for s in history for t in s.tasks if t.name == "write")
    assert wrote.result == {"text": "y" * BIG, "log": list(range(BIG // 10))}


def test_a_write_whose_stored_value_is_missing_is_damage(tmp_path: Path) -> None:
    path = tmp_path / "c.db"
    saver = sqlite_file(path)
    big_writer(saver).invoke({"text": "", "log": []}, CFG)
    saver.conn.execute("DELETE FROM blobs WHERE id LIKE '%:text' AND length(data) > 1000")
    parent = next(r for r in saver.list_records("t") if r.step == 0)
    with pytest.raises(CorruptCheckpointError, match="missing value blob"):
        saver.get_writes("t", parent.id)


@pytest.mark.parametrize("name", ["memory", "sqlite"])
def test_a_checkpoints_number_is_how_many_came_before_it(name: str, tmp_path: Path) -> None:
    saver = savers(tmp_path)[name]
    graph = fan_out(saver)
    graph.invoke({"text": "", "log": []}, CFG)
    graph.update_state(CFG, {"text": "edited"}, as_node="c")
    oldest_first = [r.id for r in saver.list_records("t")][::-1]
    assert [saver.count_before("t", i) for i in oldest_first] == list(range(len(oldest_first)))
    assert saver.count_before("other thread", oldest_first[-1]) == 0
