"""The history tree: parent links, branch points, sources, cursor and display prefixes."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sgdebug.inspect.history import HistoryTree, history_tree, short_ids
from sgdebug.runtime import StateSnapshot
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.types import PregelTask
from sgdebug.sample_graphs import SAMPLES, load


def _thread(name: str) -> tuple[Any, dict[str, Any]]:
    sample = load(name)
    graph = sample.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": name}}
    graph.invoke(sample.EXAMPLE_INPUT, config)
    return graph, config


def _snap(ident: str, parent: str | None, step: int, source: str = "loop") -> StateSnapshot:
    """A bare snapshot for shape tests."""

    def config(i: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": i}}

    return StateSnapshot(
        values={},
        next=(),
        config=config(ident),
        metadata={"source": source, "step": step, "parents": {}},
        created_at=None,
        parent_config=config(parent) if parent else None,
        tasks=(),
        interrupts=(),
    )


def _drawn(tree: HistoryTree) -> list[str]:
    return [f"{row.prefix}{node.id}" for row, node in tree.display()]


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_plain_run_is_one_straight_line(name: str) -> None:
    graph, config = _thread(name)
    snapshots = list(graph.get_state_history(config))

    tree = history_tree(snapshots)

    assert len(tree.nodes) == len(snapshots)
    assert [n.id for n in tree.nodes] == [n.id for n in sorted(tree.nodes, key=lambda n: n.id)]
    assert [r.id for r in tree.rows] == [n.id for n in tree.nodes]
    assert all(r.prefix == "" and r.depth == 0 for r in tree.rows)
    assert [n.step for n in tree.nodes] == list(range(-1, len(snapshots) - 1))
    assert [n.source for n in tree.nodes] == ["input"] + ["loop"] * (len(snapshots) - 1)
    assert tree.roots == (tree.nodes[0].id,)
    assert not any(n.is_branch_point for n in tree.nodes)
    assert tree.cursor == snapshots[0].config["configurable"]["checkpoint_id"]
    assert all(n.on_cursor_path for n in tree.nodes)
    assert [n.is_cursor for n in tree.nodes] == [False] * (len(snapshots) - 1) + [True]
    assert len({n.short_id for n in tree.nodes}) == len(tree.nodes)


def test_ran_lists_the_nodes_that_made_each_snapshot() -> None:
    graph, config = _thread("fanout")

    tree = history_tree(graph.get_state_history(config))

    assert [n.ran for n in tree.nodes] == [(), ("__start__",), ("b", "c"), ("b_2",), ("d",)]
    assert [n.next for n in tree.nodes] == [("__start__",), ("b", "c"), ("b_2",), ("d",), ()]


def test_update_and_fork_start_branches() -> None:
    graph, config = _thread("loop")
    first = list(graph.get_state_history(config))
    step2 = next(s for s in first if s.metadata["step"] == 2)
    step1 = next(s for s in first if s.metadata["step"] == 1)
    graph.invoke(None, graph.update_state(step2.config, {"count": 10}))
    graph.invoke(None, step1.config)  # replay from step 1: a fork

    tree = history_tree(graph.get_state_history(config))

    by_step = {(n.step, n.source): n for n in tree.nodes}
    step1_node = next(
        n for n in tree.nodes if n.id == step1.config["configurable"]["checkpoint_id"]
    )
    step2_node = next(
        n for n in tree.nodes if n.id == step2.config["configurable"]["checkpoint_id"]
    )
    assert step1_node.is_branch_point and step2_node.is_branch_point
    assert by_step[(3, "update")].parent_id == step2_node.id
    assert by_step[(2, "fork")].parent_id == step1_node.id
    assert by_step[(3, "update")].ran == () and by_step[(2, "fork")].ran == ()
    sources = [tree.node(r.id).source for r in tree.rows]
    prefixes = [r.prefix for r in tree.rows]
    assert sources[:3] == ["input", "loop", "loop"]
    assert prefixes[:3] == ["", "", ""]
    # step 1 has two children: the original line (├─, then │ ) and the fork (└─, then blanks)
    assert prefixes[3] == "├─"
    assert "└─" in prefixes and "│ ├─" in prefixes and "│ └─" in prefixes
    fork_row = next(r for r in tree.rows if tree.node(r.id).source == "fork")
    assert fork_row.prefix == "└─" and fork_row.depth == 1
    newest = tree.node(tree.cursor or "")
    assert newest.is_leaf and newest.on_cursor_path
    assert [n.source for n in tree.path_to(newest.id)][:3] == ["input", "loop", "loop"]
    assert tree.path_to(newest.id)[3].source == "fork"


def test_cursor_marks_its_path() -> None:
    snapshots = [
        _snap("a", None, -1, "input"),
        _snap("b", "a", 0),
        _snap("c", "b", 1),
        _snap("d", "b", 1, "update"),
    ]

    tree = history_tree(snapshots, cursor="c")

    assert tree.cursor == "c"
    assert {n.id for n in tree.nodes if n.on_cursor_path} == {"a", "b", "c"}
    assert [n.id for n in tree.nodes if n.is_cursor] == ["c"]
    assert history_tree(snapshots, cursor="unknown").cursor == "d"


def test_nested_branches_draw_as_a_tree() -> None:
    snapshots = [
        _snap("a", None, -1, "input"),
        _snap("b", "a", 0),
        _snap("c", "b", 1),
        _snap("d", "c", 2),
        _snap("e", "c", 2, "update"),
        _snap("f", "e", 3),
        _snap("g", "b", 1, "fork"),
        _snap("h", "g", 2),
    ]
    random.Random(4).shuffle(snapshots)

    tree = history_tree(snapshots)

    assert _drawn(tree) == [
        "a",
        "b",
        "├─c",
        "│ ├─d",
        "│ └─e",
        "│   f",
        "└─g",
        "  h",
    ]
    assert [r.depth for r in tree.rows] == [0, 0, 1, 2, 2, 2, 1, 1]


def test_snapshots_whose_parent_is_missing_are_roots() -> None:
    snapshots = [_snap("c", "b", 1), _snap("d", "c", 2)]

    tree = history_tree(snapshots)

    assert tree.roots == ("c",)
    assert tree.node("c").parent_id == "b"
    assert tree.path_to("d") == (tree.node("c"), tree.node("d"))


def test_deep_histories_do_not_recurse() -> None:
    snapshots = [_snap(f"{i:06d}", f"{i - 1:06d}" if i else None, i) for i in range(5000)]

    tree = history_tree(snapshots)

    assert len(tree.rows) == 5000
    assert len(tree.path_to("004999")) == 5000


def test_short_ids_and_find() -> None:
    graph, config = _thread("linear")
    tree = history_tree(graph.get_state_history(config))
    node = tree.nodes[2]

    assert tree.find(node.id) == node
    assert tree.find(node.short_id) == node
    assert tree.find("#2") == node
    assert tree.find("#99") is None
    assert tree.find("-") is None
    assert tree.find(node.id[:4]) is None  # every id starts alike: ambiguous
    assert all(len(n.short_id) >= 6 for n in tree.nodes)
    with pytest.raises(KeyError):
        tree.node("nope")


def test_short_ids_skip_the_shared_parts() -> None:
    ids = ["18ec9ddb-43a0-793e-0007-157fd25a3308", "18ec9ddb-43a0-793f-0008-157fd25a3308"]

    assert short_ids(ids) == {ids[0]: "3e0007", ids[1]: "3f0008"}
    assert short_ids(["only-one-id"]) == {"only-one-id": "onlyonei"}


def test_snapshot_tasks_give_ran_only_to_loop_children() -> None:
    parent = _snap("a", None, 0)._replace(
        tasks=(
            PregelTask("t1", "x", ("__pregel_pull", "x"), result={"k": 1}),
            PregelTask("t2", "y", ("__pregel_pull", "y"), result=None),
        )
    )
    snapshots = [parent, _snap("b", "a", 1), _snap("c", "a", 1, "update")]

    tree = history_tree(snapshots)

    assert tree.node("b").ran == ("x",)
    assert tree.node("c").ran == ()
