"""Checkpoint ids and timestamps: injectable, deterministic when injected, ordered otherwise."""

from __future__ import annotations

import datetime as dt
import itertools
import operator
import sqlite3
import sys
import threading
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteSaver
from sgdebug.runtime.checkpoint.base import id_text, sequential_ids, task_id, time_ordered_ids


class LoopState(TypedDict):
    log: Annotated[list[str], operator.add]


Factory = Callable[..., BaseCheckpointSaver]


def _sqlite(**kwargs: Any) -> BaseCheckpointSaver:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    return SqliteSaver(conn, **kwargs)


SAVERS: dict[str, Factory] = {"memory": InMemorySaver, "sqlite": _sqlite}
CFG = {"configurable": {"thread_id": "t"}}


def two_steps(saver: BaseCheckpointSaver) -> Any:
    builder = StateGraph(LoopState)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", lambda s: {"log": ["b"]})
    builder.add_edge(START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("name", sorted(SAVERS))
def test_injected_ids_and_clock_make_history_deterministic(name: str) -> None:
    def history() -> list[tuple[str, str, str | None]]:
        counter = itertools.count(1)
        ticks = itertools.count(1)
        saver = SAVERS[name](
            ids=lambda: f"cp-{next(counter):04d}",
            clock=lambda: f"2026-11-29T00:00:{next(ticks):02d}+00:00",
        )
        graph = two_steps(saver)
        graph.invoke({"log": []}, CFG)
        return [
            (
                h.config["configurable"]["checkpoint_id"],
                h.created_at,
                h.parent_config["configurable"]["checkpoint_id"] if h.parent_config else None,
            )
            for h in graph.get_state_history(CFG)
        ]

    first = history()
    assert first == history()
    assert first == [
        ("cp-0004", "2026-11-29T00:00:04+00:00", "cp-0003"),
        ("cp-0003", "2026-11-29T00:00:03+00:00", "cp-0002"),
        ("cp-0002", "2026-11-29T00:00:02+00:00", "cp-0001"),
        ("cp-0001", "2026-11-29T00:00:01+00:00", None),
    ]


@pytest.mark.parametrize("name", sorted(SAVERS))
def test_default_timestamps_are_utc_iso_text_of_the_save_time(name: str) -> None:
    before = dt.datetime.now(dt.UTC)
    graph = two_steps(SAVERS[name]())
    graph.invoke({"log": []}, CFG)
    after = dt.datetime.now(dt.UTC)
    stamps = [h.created_at for h in graph.get_state_history(CFG)]
    assert all(isinstance(s, str) for s in stamps)
    times = [dt.datetime.fromisoformat(s) for s in stamps]
    assert all(t.utcoffset() == dt.timedelta(0) for t in times)
    assert all(before <= t <= after for t in times)
    assert times == sorted(times, reverse=True)


@pytest.mark.parametrize("source", [time_ordered_ids, sequential_ids])
def test_ids_increase_and_stay_unique_across_threads(source: Callable[[], Any]) -> None:
    make = source()
    sequence = [make() for _ in range(5_000)]
    assert sequence == sorted(sequence) and len(set(sequence)) == len(sequence)

    made: list[list[str]] = [[] for _ in range(4)]

    def worker(out: list[str]) -> None:
        out.extend(make() for _ in range(5_000))

    threads = [threading.Thread(target=worker, args=(out,)) for out in made]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [i for out in made for i in out]
    assert len(set(everything)) == len(everything)


@pytest.mark.parametrize("source", [time_ordered_ids, sequential_ids])
def test_ids_of_two_sources_differ_even_when_made_together(source: Callable[[], Any]) -> None:
    first, second = source(), source()
    assert not {first() for _ in range(1_000)} & {second() for _ in range(1_000)}


def test_sequential_ids_are_uuid_shaped_text_that_sorts_as_they_count() -> None:
    first = sequential_ids()
    made = [id_text(first()) for _ in range(70_000)]  # past 16 bits of counter
    assert made == sorted(made)
    second = sequential_ids()
    assert id_text(second()) > made[-1]
    assert [len(part) for part in made[-1].split("-")] == [8, 4, 4, 4, 12]
    assert id_text(made[0]) == made[0]  # text stays as it is


def test_memory_saver_ids_count_up_by_default() -> None:
    saver = InMemorySaver()
    two_steps(saver).invoke({"log": []}, CFG)
    ids = [r.id for r in saver.list_records("t")]
    assert ids == sorted(ids, reverse=True)
    assert len({i[:24] for i in ids}) == 1  # one source: the prefix is shared


def test_task_ids_are_uuid_shaped_and_depend_on_checkpoint_and_path() -> None:
    one = task_id("cp-1", ("__pregel_pull", "a"))
    assert one == task_id("cp-1", ("__pregel_pull", "a"))
    assert [len(part) for part in one.split("-")] == [8, 4, 4, 4, 12]
    assert one != task_id("cp-2", ("__pregel_pull", "a"))
    assert one != task_id("cp-1", ("__pregel_pull", "b"))
    assert task_id("cp-1", ("__pregel_push", 0, False)) != task_id(
        "cp-1", ("__pregel_push", 1, False)
    )


def test_memory_saver_reads_find_every_put_while_runs_go_on_in_other_threads() -> None:
    # ``put`` only journals; reads file the journal. Runs on four threads save while the
    # main thread keeps reading: no checkpoint may be lost or filed twice.
    saver = InMemorySaver()
    graph = two_steps(saver)
    names = [f"t{i}" for i in range(4)]

    def worker(name: str) -> None:
        for _ in range(50):
            graph.invoke({"log": []}, {"configurable": {"thread_id": name}})

    threads = [threading.Thread(target=worker, args=(n,)) for n in names]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, so puts land in the middle of reads
    try:
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            for name in names:
                ids = [r.id for r in saver.list_records(name)]
                assert len(ids) == len(set(ids))
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    for name in names:
        history = list(graph.get_state_history({"configurable": {"thread_id": name}}))
        assert len(history) == 50 * 4  # input, __start__, a, b per run
        assert history[0].values == {"log": ["a", "b"] * 50}  # the runs continue the thread
        assert not saver.journal


def test_a_task_id_is_the_same_from_a_sequence_number_and_from_its_text() -> None:
    # A run holds InMemorySaver's ids as numbers; snapshots read them as text: the ids of
    # the tasks planned from a checkpoint must not depend on which one was at hand.
    number = sequential_ids()()
    path = ("__pregel_pull", "a")
    assert task_id(number, path) == task_id(id_text(number), path)
    saver = InMemorySaver()
    graph = two_steps(saver)
    graph.invoke({"log": []}, {**CFG, "configurable": {"thread_id": "t"}}, interrupt_before=["b"])
    snapshot = graph.get_state(CFG)
    (task,) = snapshot.tasks
    assert task.id == task_id(snapshot.config["configurable"]["checkpoint_id"], task.path)
