"""Channel table rows on the sample graphs: kinds, versions, who changed what, previews."""

from __future__ import annotations

from typing import Any, cast

import pytest

from sgdebug.inspect.channels import (
    UPDATE_WRITER,
    LastChange,
    changes_from_history,
    channel_kind,
    channel_rows,
    fold_changes,
    fold_edit,
    snapshot_channel_rows,
)
from sgdebug.inspect.history import history_tree
from sgdebug.inspect.preview import EMPTY
from sgdebug.runtime import BaseHook, CommitRecord, CompiledStateGraph, Run, RunView
from sgdebug.runtime.channels import MISSING
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.managed import RemainingStepsManager
from sgdebug.sample_graphs import RUNS_ALONE, load


class _Collect(BaseHook):
    """Keeps every commit record and the channel rows seen right after it."""

    def __init__(self) -> None:
        self.records: list[CommitRecord] = []
        self.rows: list[Any] = []

    def after_commit(self, run: RunView, record: CommitRecord) -> bool:
        self.records.append(record)
        graph = cast(CompiledStateGraph, run.graph)  # a run holds its graph's plan
        live = cast(Run, run)  # hooks see a RunView; channel_rows reads the live run
        self.rows.append(channel_rows(graph, live, fold_changes(self.records[:-1])))
        return False


def _run(name: str) -> tuple[Any, Run, _Collect]:
    sample = load(name)
    hook = _Collect()
    run = sample.graph.start(sample.EXAMPLE_INPUT, hooks=[hook])
    assert run.advance() == "done"
    return sample.graph, run, hook


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_rows_follow_the_schema_and_the_run(name: str) -> None:
    graph, run, hook = _run(name)

    rows = channel_rows(graph, run, fold_changes(hook.records))

    assert [r.name for r in rows] == list(graph.user_fields)
    for row in rows:
        if row.category == "managed":
            continue
        assert row.version == run.versions.get(row.name)
        assert row.value == run.read_values(row.name) or row.empty
        assert row.empty == (run.channels[row.name].peek() is MISSING)
        assert len(row.preview) <= 80


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_changed_flags_match_each_commit(name: str) -> None:
    graph, _, hook = _run(name)

    for record, rows in zip(hook.records, hook.rows, strict=True):
        changed = {c.channel for c in record.changes if c.channel in graph.user_fields}
        assert {r.name for r in rows if r.changed} == changed
        for row in rows:
            if row.changed:
                assert row.last_step == record.step


def test_kinds_of_each_channel() -> None:
    graph, run, _ = _run("channels")

    rows = {r.name: r for r in channel_rows(graph, run)}

    assert (rows["topic"].kind, rows["topic"].category) == ("LastValue", "value")
    assert (rows["signal"].kind, rows["signal"].category) == ("EphemeralValue", "ephemeral")
    assert (rows["history"].kind, rows["history"].reducer) == ("reducer add", "add")
    assert rows["history"].category == "reducer"
    assert rows["remaining_steps"].kind == "managed RemainingSteps"
    assert rows["remaining_steps"].category == "managed"
    assert channel_kind(RemainingStepsManager) == ("managed RemainingSteps", "managed")


def test_managed_row_shows_what_the_next_task_sees() -> None:
    sample = load("channels")
    run = sample.graph.start(sample.EXAMPLE_INPUT, {"recursion_limit": 10})
    run.advance(one_step=True)

    rows = {r.name: r for r in channel_rows(sample.graph, run)}

    # the next step is 1 of a run that may go to step 10
    assert rows["remaining_steps"].value == 9
    assert rows["remaining_steps"].version is None


def test_writers_name_the_nodes_in_application_order() -> None:
    _, _, hook = _run("fanout")

    changes = {c.channel: c for c in fold_changes(hook.records[:2])}

    assert changes["trail"] == LastChange("trail", 1, ("b", "c"))


def test_writers_of_a_send_step_are_deduplicated() -> None:
    _, _, hook = _run("map_reduce")

    rows = {r.name: r for r in hook.rows[2]}

    assert rows["counts"].writers == ("count_words",)
    assert rows["counts"].last_step == 2
    assert rows["counts"].preview.startswith("[{'index': 0, 'words': 10")


def test_cleared_ephemeral_value_is_empty_and_changed() -> None:
    _, _, hook = _run("channels")

    signal = [next(r for r in rows if r.name == "signal") for rows in hook.rows]

    assert [(s.empty, s.changed) for s in signal[1:3]] == [(False, True), (True, True)]
    assert signal[2].preview == EMPTY
    assert signal[2].writers == ()


def test_internal_channels_are_listed_last_when_asked() -> None:
    graph, run, _ = _run("fanout")

    rows = channel_rows(graph, run, internal=True)

    internal = [r.name for r in rows if r.category == "internal"]
    assert internal == [k for k in graph.channel_specs if k not in graph.user_fields]
    assert "join:b_2+c:d" in internal


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_snapshot_rows_from_history_agree_with_the_live_run(name: str) -> None:
    sample = load(name)
    graph = sample.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke(sample.EXAMPLE_INPUT, config)
    tree = history_tree(graph.get_state_history(config))
    live_graph, run, hook = _run(name)

    path = [n.snapshot for n in tree.path_to(tree.cursor or "") if n.snapshot is not None]
    rows = snapshot_channel_rows(graph, path[-1], changes_from_history(path))
    live = channel_rows(live_graph, run, fold_changes(hook.records))

    for snap_row, live_row in zip(rows, live, strict=True):
        assert snap_row.name == live_row.name
        assert snap_row.kind == live_row.kind
        if live_row.category in ("managed", "ephemeral"):
            continue
        assert snap_row.value == live_row.value
        assert snap_row.last_step == live_row.last_step
        assert snap_row.writers == live_row.writers


def test_update_state_changes_are_written_by_update() -> None:
    sample = load("loop")
    graph = sample.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke(sample.EXAMPLE_INPUT, config)
    graph.update_state(config, {"count": 10}, as_node="attempt")
    snapshots = list(graph.get_state_history(config))
    tree = history_tree(snapshots)

    path = [n.snapshot for n in tree.path_to(tree.cursor or "") if n.snapshot is not None]
    rows = {r.name: r for r in snapshot_channel_rows(graph, path[-1], changes_from_history(path))}

    assert rows["count"].writers == (UPDATE_WRITER,)
    assert rows["count"].changed
    assert rows["count"].value == 10


def _edited_loop() -> tuple[Any, Run, tuple[LastChange, ...]]:
    """The loop sample after its first commit (``attempt`` wrote count and status), then
    ``count`` edited: the changes a front end folded from that commit and that edit."""
    sample = load("loop")
    run = sample.graph.start(sample.EXAMPLE_INPUT, hooks=[BaseHook()])  # hooks: records kept
    run.advance(one_step=True)
    run.advance(one_step=True)
    record = run.last_commit
    assert record is not None and {"count", "status"} <= {c.channel for c in record.changes}
    run.edit([("count", 7)])
    changes = fold_edit(["count"], run.step - 1, fold_changes([record]))
    return sample.graph, run, changes


def test_an_edit_after_a_commit_is_the_last_write_of_its_keys() -> None:
    graph, run, changes = _edited_loop()
    record = run.last_commit
    assert record is not None

    rows = {r.name: r for r in channel_rows(graph, run, changes)}

    assert (rows["count"].writers, rows["count"].last_step) == ((UPDATE_WRITER,), record.step)
    assert rows["count"].value == 7
    assert (rows["status"].writers, rows["status"].last_step) == (("attempt",), record.step)
    assert [name for name, row in rows.items() if row.changed] == ["count"]


def test_the_next_commit_writes_over_an_edit() -> None:
    graph, run, changes = _edited_loop()

    run.advance(one_step=True)  # ``attempt`` runs again on the edited state
    record = run.last_commit
    assert record is not None
    rows = {r.name: r for r in channel_rows(graph, run, fold_changes([record], changes))}

    assert rows["count"].value == 8
    assert (rows["count"].writers, rows["count"].last_step) == (("attempt",), record.step)
    assert rows["count"].changed and rows["status"].changed


def test_an_edit_snapshot_marks_only_the_keys_the_edit_changed() -> None:
    sample = load("loop")
    graph = sample.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    run = graph.start(sample.EXAMPLE_INPUT, config)
    run.advance(one_step=True)
    run.advance(one_step=True)
    run.edit([("count", 7)])  # saved as an ``update`` snapshot at the commit's step
    tree = history_tree(graph.get_state_history(config))

    path = [n.snapshot for n in tree.path_to(tree.cursor or "") if n.snapshot is not None]
    rows = {r.name: r for r in snapshot_channel_rows(graph, path[-1], changes_from_history(path))}

    loop, update = ((s.metadata or {}) for s in path[-2:])
    assert (loop["source"], update["source"]) == ("loop", "update")
    assert loop["step"] == update["step"]
    assert rows["count"].writers == (UPDATE_WRITER,)
    assert rows["status"].writers == ("attempt",)
    assert [name for name, row in rows.items() if row.changed] == ["count"]
