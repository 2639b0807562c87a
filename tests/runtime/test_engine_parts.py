"""The engine's parts on their own: planning (plan_tasks), applying writes (apply_writes and
the commit helpers), and the observer a run without hooks gets."""

from __future__ import annotations

import logging
import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, BaseHook, Send, StateGraph
from sgdebug.runtime.channels import (
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    LastValueAfterFinish,
    NamedBarrierValue,
)
from sgdebug.runtime.engine._apply import (
    Moved,
    apply_single,
    apply_writes,
    clear_unwritten,
    consume_triggers,
    finish_channels,
    lone_writes,
    step_writes,
)
from sgdebug.runtime.engine._observer import QUIET, HookObserver
from sgdebug.runtime.engine._plan import plan_tasks, stops_at
from sgdebug.runtime.engine._task import TaskIds
from sgdebug.runtime.errors import InvalidUpdateError


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def _node(word: str) -> Any:
    def node(state: S) -> dict[str, Any]:
        return {"log": [word]}

    node.__name__ = word
    return node


def _fanout() -> Any:
    builder = StateGraph(S)
    for name in ("c", "a", "b"):
        builder.add_node(name, _node(name))
    builder.add_edge(START, "c").add_edge(START, "a").add_edge(START, "b")
    return builder.compile()


def _started(graph: Any) -> Any:
    """A run past its input step, about to plan the start task (nothing ran yet)."""
    run = graph.start({"x": 1, "log": []})
    assert run.phase == "plan"
    return run


# -- plan_tasks -----------------------------------------------------------------------------


def test_plan_tasks_pulls_the_start_node_after_the_input_then_the_nodes_it_triggers() -> None:
    run = _started(_fanout())
    (start,) = plan_tasks(run, TaskIds())
    assert (start.name, start.input, start.path) == (
        START,
        {"x": 1, "log": []},
        ("__pregel_pull", START),
    )
    run.advance(one_step=True)  # the start task runs and commits; the next step is planned
    names = [t.name for t in plan_tasks(run, TaskIds())]
    assert names == ["a", "b", "c"]  # pulled nodes in name order
    assert [t.name for t in plan_tasks(run, TaskIds(), add_order=True)] == ["c", "a", "b"]


def test_plan_tasks_skips_a_node_that_already_ran_on_its_trigger_versions() -> None:
    run = _started(_fanout())
    run.advance(one_step=True)
    for name in ("a", "b"):
        run.versions_seen[name] = dict(run.versions)  # as if a and b ran on them
    assert [t.name for t in plan_tasks(run, TaskIds())] == ["c"]


def test_plan_tasks_gives_pull_tasks_their_state_view_and_ids_by_source() -> None:
    run = _started(_fanout())
    run.advance(one_step=True)
    ids = TaskIds()
    tasks = plan_tasks(run, ids)
    assert all(t.input == {"x": 1, "log": []} for t in tasks)
    assert len({t.id for t in tasks}) == 3 and ids.count == 3  # process-unique counter
    ids.base = "some-checkpoint"
    again = plan_tasks(run, ids)
    assert [t.id for t in again] == [t.id for t in plan_tasks(run, ids)]  # derived: stable


def test_plan_tasks_puts_send_tasks_first_in_send_order() -> None:
    def route(state: S) -> list[Send]:
        return [Send("b", {"x": 2, "log": []}), Send("a", {"x": 3, "log": []})]

    builder = StateGraph(S).add_node("a", _node("a")).add_node("b", _node("b"))
    builder.add_node("c", _node("c")).add_edge(START, "c")
    builder.add_conditional_edges(START, route, ["a", "b"])
    run = _started(builder.compile())
    run.advance(one_step=True)
    tasks = plan_tasks(run, TaskIds())
    assert [(t.name, t.path[:2]) for t in tasks] == [
        ("b", ("__pregel_push", 0)),
        ("a", ("__pregel_push", 1)),
        ("c", ("__pregel_pull", "c")),
    ]
    assert tasks[0].input == {"x": 2, "log": []}


def test_stops_at_fires_for_a_listed_node_once_per_change() -> None:
    run = _started(_fanout())
    run.advance(one_step=True)
    tasks = plan_tasks(run, TaskIds())
    assert stops_at(run, ("b",), tasks)
    assert not stops_at(run, ("z",), tasks)
    assert stops_at(run, "*", tasks)
    run.versions_seen["__interrupt__"] = dict(run.versions)  # stopped here already
    assert not stops_at(run, "*", tasks)


# -- apply_writes and the commit helpers -----------------------------------------------------


def _channels() -> dict[str, Any]:
    return {
        "x": LastValue(int, key="x"),
        "log": BinaryOperatorAggregate(list, operator.add, key="log"),
        "flag": EphemeralValue(Any, key="flag"),
    }


def test_apply_writes_reduces_in_order_and_moves_only_changed_versions() -> None:
    channels = _channels()
    versions = {"x": 1, "log": 1, "flag": 1}
    moved = Moved.at(versions, 2)
    apply_writes(channels, {"x": [5], "log": [["a"], ["b"]]}, moved)
    assert channels["x"].get() == 5 and channels["log"].get() == ["a", "b"]
    assert versions == {"x": 2, "log": 2, "flag": 1}
    assert moved.updated == {"x", "log"} and moved.all() == {"x", "log"}


def test_apply_writes_lets_a_last_value_refuse_two_writes() -> None:
    channels = _channels()
    with pytest.raises(InvalidUpdateError, match="Can receive only one value per step"):
        apply_writes(channels, {"x": [1, 2]}, Moved.at({}, 1))


def test_apply_writes_takes_channels_a_lone_task_already_reduced() -> None:
    channels = _channels()
    folded = channels["log"].folded(["a"])
    moved = Moved.at({}, 3)
    apply_writes(channels, {"log": [["a"]]}, moved, applied={"log": folded})
    assert channels["log"] is folded and channels["log"].get() == ["a"]  # not reduced twice
    assert moved.updated == {"log"}


def test_clear_unwritten_empties_volatile_channels_nobody_wrote_as_unlisted_moves() -> None:
    channels = _channels()
    apply_writes(channels, {"flag": [True]}, Moved.at({}, 1))
    moved = Moved.at({"flag": 1}, 2)
    clear_unwritten(channels, {"flag"}, {"flag": [True]}, moved)  # written again: stays
    assert channels["flag"].get() is True and not moved.all()
    clear_unwritten(channels, {"flag"}, {}, moved)
    assert not channels["flag"].is_available()
    assert moved.unlisted == ["flag"] and moved.updated == set() and moved.versions["flag"] == 2


def test_consume_and_finish_move_barriers_and_deferred_channels() -> None:
    barrier = NamedBarrierValue(("a", "b"), key="join")
    later = LastValueAfterFinish(Any, key="later")
    channels: dict[str, Any] = {"join": barrier, "later": later}
    apply_writes(channels, {"join": ["a", "b"], "later": ["go"]}, Moved.at({}, 1))
    assert barrier.is_available() and not later.is_available()
    moved = Moved.at({}, 2)
    consume_triggers(channels, ["join", "unknown"], moved)
    assert not barrier.is_available() and moved.unlisted == ["join"]
    finish_channels(channels, moved)
    assert later.get() == "go" and "later" in moved.updated


def test_step_writes_keeps_task_order_owners_and_drops_unknown_channels(
    caplog: pytest.LogCaptureFixture,
) -> None:
    run = _started(_fanout())
    run.advance(one_step=True)
    tasks = plan_tasks(run, TaskIds())
    for task, word in zip(tasks, "abc", strict=True):
        task.writes = [("log", [word]), ("nowhere", 1)]
    seen: dict[str, dict[str, int]] = {}
    with caplog.at_level(logging.WARNING, logger="sgdebug.runtime"):
        grouped, owners, consumed = step_writes(tasks, run.channels, seen, run.versions, True)
    assert grouped == {"log": [["a"], ["b"], ["c"]]}
    assert owners is not None and [t.name for t in owners["log"]] == ["a", "b", "c"]
    assert consumed == set()
    assert "wrote to unknown channel nowhere" in caplog.text
    assert step_writes(tasks, run.channels, {}, run.versions, False)[1] is None


def test_step_writes_records_trigger_versions_in_a_new_dict_and_what_joins_consume() -> None:
    def c(state: S) -> dict[str, Any]:
        return {"log": ["c"]}

    builder = StateGraph(S).add_node("a", _node("a")).add_node("b", _node("b")).add_node(c)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    run = _started(builder.compile())
    run.advance(one_step=True)  # start
    run.advance(one_step=True)  # a and b: the join fills
    (join,) = plan_tasks(run, TaskIds())
    assert join.name == "c"
    seen = {"c": {"old": 1}}
    before = seen["c"]
    _, _, consumed = step_writes([join], run.channels, seen, run.versions, False)
    assert seen["c"] is not before and before == {"old": 1}
    assert all(seen["c"][t] == run.versions[t] for t in join.triggers if t in run.versions)
    assert consumed == set(join.node.consumes) and consumed


def test_a_lone_task_writing_each_key_once_is_folded_as_step_writes_and_apply_writes_do() -> None:
    """The usual step's commit skips the grouping: same channels, versions, seen marks and
    consumed channels as the grouped commit; a key written twice or an unknown channel
    goes to the grouped commit, with nothing changed."""
    builder = (
        StateGraph(S).add_node("a", _node("a")).add_node("b", _node("b")).add_node("c", _node("c"))
    )
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")

    def ready() -> tuple[Any, Any]:
        run = _started(builder.compile())
        run.advance(one_step=True)  # start
        run.advance(one_step=True)  # a and b: the join fills
        (join,) = plan_tasks(run, TaskIds())
        join.writes = [("log", ["c"]), ("x", 5), ("branch:to:a", None)]
        return run, join

    folded_run, folded = ready()
    grouped_run, grouped = ready()
    seen_f: dict[str, dict[str, int]] = {}
    seen_g: dict[str, dict[str, int]] = {}
    lone = lone_writes(folded, folded_run.graph.channel_keys, seen_f, folded_run.versions)
    assert lone is not None
    single, consumed = lone
    assert single == {"log": ["c"], "x": 5, "branch:to:a": None}
    by_key, _, consumed_g = step_writes(
        [grouped], grouped_run.channels, seen_g, grouped_run.versions, False
    )
    assert (seen_f, consumed) == (seen_g, consumed_g) and consumed
    moved_f, moved_g = Moved.at({}, 7), Moved.at({}, 7)
    apply_single(folded_run.channels, single, moved_f)
    apply_writes(grouped_run.channels, by_key, moved_g)
    assert moved_f == moved_g and moved_f.updated == {"log", "x", "branch:to:a"}
    values = {k: c.checkpoint() for k, c in folded_run.channels.items()}
    assert values == {k: c.checkpoint() for k, c in grouped_run.channels.items()}
    assert values["log"] == ["a", "b", "c"] and values["x"] == 5

    folded.writes = [("x", 1), ("x", 2)]
    assert lone_writes(folded, folded_run.graph.channel_keys, {}, folded_run.versions) is None
    folded.writes = [("x", 1), ("nowhere", 2)]
    kept = dict(seen_f)
    assert lone_writes(folded, folded_run.graph.channel_keys, seen_f, folded_run.versions) is None
    assert seen_f == kept


def test_a_lone_task_that_writes_a_key_twice_fails_its_commit_as_the_grouped_one_does() -> None:
    def twice(state: S) -> Any:
        from sgdebug.runtime import Command

        return [Command(update={"x": 1}), Command(update={"x": 2})]

    graph = StateGraph(S).add_node("twice", twice).add_edge(START, "twice").compile()
    with pytest.raises(InvalidUpdateError, match="Can receive only one value per step"):
        graph.invoke({"x": 0, "log": []})


# -- the observer ------------------------------------------------------------------------------


def test_a_run_without_hooks_gets_the_quiet_observer_and_one_with_hooks_calls_them_all() -> None:
    graph = _fanout()
    assert graph.start({"x": 1, "log": []}).observer is QUIET

    class Pause(BaseHook):
        def __init__(self) -> None:
            self.calls = 0

        def after_plan(self, run: Any, tasks: Any) -> bool:
            self.calls += 1
            return True

    first, second = Pause(), Pause()
    run = graph.start({"x": 1, "log": []}, hooks=[first, second])
    assert isinstance(run.observer, HookObserver)
    assert run.advance() == "paused"
    assert (first.calls, second.calls) == (1, 1)  # both asked, though the first paused
    assert not QUIET.planned(run, run.tasks) and not QUIET.watched


# -- the run's own attributes ---------------------------------------------------------------


def test_a_run_refuses_an_attribute_it_does_not_declare() -> None:
    """A misspelt attribute set on a run raises instead of starting a second, unread one
    (the run is slotted, which also keeps its many attributes in CPython's fast layout)."""
    run = _started(_fanout())
    run.step = run.step  # a declared one can be set
    with pytest.raises(AttributeError):
        run.setp = 3
    assert not hasattr(run, "__dict__")
