"""Properties of recorded history: snapshots never change, mutations are reported, storage is lean.

Issue 3's "properties that must hold": a snapshot is frozen once recorded even when a later
node mutates a list or dict it was given in place; the run reports which node mutated which
channel; and a 10,000-step run whose ``log`` grows by one item per step stores about one item
per step (not the whole list each step) while every snapshot stays restorable.

The in-place mutation report is not reachable from ``invoke``/``stream``: the tests drive a
:class:`~sgdebug.runtime.Run` (``graph.start(...)``) and read ``run.persist.mutations``.
"""

from __future__ import annotations

import copy
import operator
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sgdebug.runtime import END, START, Run, StateGraph
from sgdebug.runtime._compiled import CompiledStateGraph
from sgdebug.runtime.checkpoint import BaseCheckpointSaver, InMemorySaver, SqliteSaver
from sgdebug.runtime.checkpoint.memory import Prefix
from sgdebug.runtime.checkpoint.serde import dumps
from sgdebug.runtime.engine._journal import Mutation

Values = dict[str, Any]
SaverFactory = Callable[[], BaseCheckpointSaver]


def _sqlite_in_memory() -> BaseCheckpointSaver:
    return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None))


SAVERS: dict[str, SaverFactory] = {"memory": InMemorySaver, "sqlite": _sqlite_in_memory}


def cfg(thread: str = "t", checkpoint_id: str | None = None) -> dict[str, Any]:
    """A thread config, optionally naming a checkpoint."""
    configurable: dict[str, Any] = {"thread_id": thread}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def loop_steps(graph: CompiledStateGraph, thread: str = "t") -> dict[int, Values]:
    """Values of the thread's ``loop`` checkpoints by step (one branch, so steps are unique)."""
    out: dict[int, Values] = {}
    for snap in graph.get_state_history(cfg(thread)):
        assert snap.metadata is not None
        if snap.metadata["source"] == "loop":
            out[snap.metadata["step"]] = snap.values
    return out


# -- a chain of nodes, each doing one write or in-place mutation ---------------------------


class ChainState(TypedDict):
    log: Annotated[list[str], operator.add]
    d: dict[str, Any]
    x: str


INITIAL: Values = {"log": [], "d": {"items": []}, "x": ""}

WRITE_OPS = ("append", "set_x", "replace_d", "noop", "push_log_and_append", "edit_log_and_append")
"""Ops whose every in-place change is followed by a write of the same channel."""
MUTATION_OPS = ("push_log", "set_d_key", "push_d_items")
"""Ops that change a channel's value in place and write nothing to it."""
MUTATED_CHANNEL = {"push_log": "log", "set_d_key": "d", "push_d_items": "d"}
APPEND_AND_MUTATE_OPS = ("push_log_and_append", "edit_log_and_append")
"""Ops that change the log in place and also append to it."""


@dataclass(frozen=True)
class Op:
    """What one node of the chain does."""

    kind: str
    item: str


def apply_op(state: Values, op: Op) -> Values:
    """Do ``op`` on ``state`` the way a node would: mutate in place and/or return an update."""
    if op.kind == "append":
        return {"log": [op.item]}
    if op.kind == "set_x":
        return {"x": op.item}
    if op.kind == "replace_d":
        return {"d": {"items": [op.item]}}
    if op.kind == "push_log":
        state["log"].append(op.item)
    elif op.kind == "push_log_and_append":
        state["log"].append(op.item)
        return {"log": [op.item + "!"]}
    elif op.kind == "edit_log_and_append":  # same length: only comparing items shows it
        if state["log"]:
            state["log"][0] = op.item
        return {"log": [op.item + "!"]}
    elif op.kind == "set_d_key":
        state["d"][op.item] = op.item
    elif op.kind == "push_d_items":
        state["d"]["items"].append(op.item)
    return {}


def model_states(ops: list[Op]) -> list[Values]:
    """The state after each step, computed without the runtime: index = checkpoint step."""
    state = copy.deepcopy(INITIAL)
    states = [copy.deepcopy(state)]  # step 0: after the hidden __start__ task
    for op in ops:
        update = apply_op(state, op)
        if "log" in update:
            state["log"] = state["log"] + update["log"]
        state.update({k: v for k, v in update.items() if k != "log"})
        states.append(copy.deepcopy(state))
    return states


def chain(ops: list[Op], saver: BaseCheckpointSaver) -> CompiledStateGraph:
    """``START -> n0 -> n1 -> ... -> END``; node ``ni`` does ``ops[i]``."""
    builder = StateGraph(ChainState)
    names = [f"n{i}" for i in range(len(ops))]
    for name, op in zip(names, ops, strict=True):
        builder.add_node(name, _node(op))
    for src, dst in zip([START, *names], [*names, END], strict=True):
        builder.add_edge(src, dst)
    graph: CompiledStateGraph = builder.compile(checkpointer=saver)
    return graph


def _node(op: Op) -> Callable[[ChainState], Values]:
    def node(state: ChainState) -> Values:
        return apply_op(dict(state), op)

    return node


def run_to_end(run: Run) -> Iterator[None]:
    """Advance ``run`` one superstep at a time, yielding after each advance."""
    while True:
        status = run.advance(one_step=True)
        yield
        if status != "running":
            return


def expected_mutations(ops: list[Op]) -> list[Mutation]:
    """One report per in-place change, at the superstep its node ran in.

    An operation that leaves the value as it was (setting a key to the value it already
    has) changes nothing, so nothing is reported for it. A node that changes the log in
    place and also appends to it is reported with ``written``.
    """
    states = model_states(ops)
    found = []
    for step, op in enumerate(ops, start=1):
        node = (f"n{step - 1}",)
        if op.kind in MUTATION_OPS:
            channel = MUTATED_CHANNEL[op.kind]
            if states[step][channel] != states[step - 1][channel]:
                found.append(Mutation(step, channel, node))
        elif op.kind in APPEND_AND_MUTATE_OPS:
            before = states[step - 1]["log"]
            edits = op.kind == "push_log_and_append" or (before and before[0] != op.item)
            if edits:
                found.append(Mutation(step, "log", node, written=True))
    return found


items = st.text(alphabet="abcxyz", min_size=1, max_size=3)
all_ops = st.lists(
    st.builds(Op, st.sampled_from(WRITE_OPS + MUTATION_OPS), items), min_size=1, max_size=10
)
write_only_ops = st.lists(st.builds(Op, st.sampled_from(WRITE_OPS), items), min_size=1, max_size=10)
# A node that replaces ``d`` after changing it in place is left out: the change is gone
# with the old value, so there is nothing to report.
reportable_ops = st.lists(
    st.builds(
        Op,
        st.sampled_from(("append", "set_x", "noop", *MUTATION_OPS, *APPEND_AND_MUTATE_OPS)),
        items,
    ),
    min_size=1,
    max_size=10,
)
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PUSH_THEN_APPEND = [Op("append", "a"), Op("push_log", "m"), Op("append", "c")]
EDIT_THEN_APPEND = [Op("append", "a"), Op("append", "b"), Op("edit_log_and_append", "e")]


# -- snapshot immutability -----------------------------------------------------------------


def mutating_graph(saver: BaseCheckpointSaver) -> CompiledStateGraph:
    """``n0`` replaces ``d``, ``n1`` pushes onto ``log``, ``n2`` sets a key in ``d``.

    ``n1`` and ``n2`` change their channel in place and write nothing; ``n3`` appends.
    """
    return chain(
        [Op("replace_d", "a"), Op("push_log", "mut"), Op("set_d_key", "k"), Op("append", "c")],
        saver,
    )


@pytest.mark.parametrize("saver_name", sorted(SAVERS))
def test_in_place_mutation_leaves_earlier_snapshots_unchanged(saver_name: str) -> None:
    graph = mutating_graph(SAVERS[saver_name]())
    run = graph.start(copy.deepcopy(INITIAL), cfg())
    first_seen: dict[str, Values] = {}
    for _ in run_to_end(run):
        for snap in graph.get_state_history(cfg()):
            first_seen.setdefault(
                snap.config["configurable"]["checkpoint_id"], copy.deepcopy(snap.values)
            )
    assert run.status == "done"
    later = {
        s.config["configurable"]["checkpoint_id"]: s.values for s in graph.get_state_history(cfg())
    }
    assert later == first_seen
    # The snapshot after step 1 (``n0`` replaced ``d``) predates every mutation.
    assert loop_steps(graph)[1] == {"log": [], "d": {"items": ["a"]}, "x": ""}


@pytest.mark.parametrize("saver_name", sorted(SAVERS))
@PROPERTY
@given(ops=all_ops)
def test_recorded_snapshots_never_change(saver_name: str, ops: list[Op]) -> None:
    graph = chain(ops, SAVERS[saver_name]())
    run = graph.start(copy.deepcopy(INITIAL), cfg())
    recorded: dict[str, Values] = {}
    for _ in run_to_end(run):
        snap = graph.get_state(cfg())
        recorded[snap.config["configurable"]["checkpoint_id"]] = copy.deepcopy(snap.values)
    for checkpoint_id, values in recorded.items():
        assert graph.get_state(cfg(checkpoint_id=checkpoint_id)).values == values


@pytest.mark.parametrize("saver_name", sorted(SAVERS))
@PROPERTY
@given(ops=write_only_ops)
@example(ops=EDIT_THEN_APPEND)
def test_snapshots_equal_an_independent_model_when_nodes_write(
    saver_name: str, ops: list[Op]
) -> None:
    graph = chain(ops, SAVERS[saver_name]())
    result = graph.invoke(copy.deepcopy(INITIAL), cfg())
    expected = model_states(ops)
    assert result == expected[-1]
    assert loop_steps(graph) == dict(enumerate(expected))


@pytest.mark.parametrize("saver_name", sorted(SAVERS))
@PROPERTY
@given(ops=all_ops)
@example(ops=PUSH_THEN_APPEND[:2])
def test_every_snapshot_equals_the_state_recomputed_independently(
    saver_name: str, ops: list[Op]
) -> None:
    graph = chain(ops, SAVERS[saver_name]())
    result = graph.invoke(copy.deepcopy(INITIAL), cfg())
    expected = model_states(ops)
    assert result == expected[-1]
    assert loop_steps(graph) == dict(enumerate(expected))
    assert graph.get_state(cfg()).values == result


def test_latest_snapshot_after_an_in_place_mutation_equals_the_run_result() -> None:
    graph = chain([Op("replace_d", "a"), Op("set_d_key", "k")], InMemorySaver())
    result = graph.invoke(copy.deepcopy(INITIAL), cfg())
    assert result["d"] == {"items": ["a"], "k": "k"}
    assert graph.get_state(cfg()).values == result


def test_mutated_list_is_stored_whole_when_the_channel_is_next_written() -> None:
    graph = chain(PUSH_THEN_APPEND, InMemorySaver())
    result = graph.invoke(copy.deepcopy(INITIAL), cfg())
    assert result["log"] == ["a", "m", "c"]
    assert loop_steps(graph)[3]["log"] == ["a", "m", "c"]
    assert loop_steps(graph)[1]["log"] == ["a"]


# -- the mutation report -------------------------------------------------------------------


def mutations_of(ops: list[Op]) -> list[Mutation]:
    graph = chain(ops, InMemorySaver())
    run = graph.start(copy.deepcopy(INITIAL), cfg())
    assert run.advance() == "done"
    assert run.persist is not None
    return list(run.persist.mutations)


def test_run_reports_which_node_mutated_which_channel() -> None:
    ops = [Op("replace_d", "a"), Op("push_log", "mut"), Op("set_d_key", "k"), Op("append", "c")]
    reported = {(m.channel, m.tasks) for m in mutations_of(ops)}
    assert ("log", ("n1",)) in reported
    assert ("d", ("n2",)) in reported
    assert all(tasks != ("n0",) for _, tasks in reported)


def test_nodes_that_only_write_report_no_mutation() -> None:
    ops = [Op("append", "a"), Op("replace_d", "b"), Op("set_x", "c"), Op("noop", "")]
    assert mutations_of(ops) == []


def test_mutation_report_names_the_superstep_the_node_ran_in() -> None:
    # n0 runs in superstep 1 (LangGraph numbering: -1 input, 0 __start__), n1 in 2.
    ops = [Op("append", "a"), Op("push_log", "m")]
    assert [m.step for m in mutations_of(ops)] == [2]


def test_a_mutation_is_reported_once() -> None:
    ops = [Op("set_d_key", "k"), Op("set_x", "later"), Op("set_x", "again")]
    assert [(m.channel, m.tasks) for m in mutations_of(ops)] == [("d", ("n0",))]


def test_append_after_an_in_place_append_is_reported_as_written() -> None:
    # The classic bug: ``state["log"].append(x); return {"log": [x]}`` stores x twice.
    ops = [Op("append", "a"), Op("push_log_and_append", "m")]
    assert mutations_of(ops) == [Mutation(2, "log", ("n1",), written=True)]


def test_nested_in_place_mutation_is_reported() -> None:
    ops = [Op("push_d_items", "deep")]
    assert [(m.channel, m.tasks) for m in mutations_of(ops)] == [("d", ("n0",))]


@PROPERTY
@given(ops=reportable_ops)
@example(ops=[Op("push_log", "m")])
@example(ops=EDIT_THEN_APPEND)
@example(ops=[Op("append", "a"), Op("push_log_and_append", "m")])
def test_mutation_report_matches_the_in_place_changes(ops: list[Op]) -> None:
    assert mutations_of(ops) == expected_mutations(ops)


# -- history storage grows with what changed -----------------------------------------------


class LoopState(TypedDict):
    log: Annotated[list[str], operator.add]
    n: int


STEPS = 10_000


def item(i: int) -> str:
    """The item appended by pass ``i``."""
    return f"item-{i:05d}"


def append_loop(steps: int, saver: BaseCheckpointSaver) -> CompiledStateGraph:
    """``step`` appends one item to ``log`` per pass, ``steps`` passes."""

    def step(state: LoopState) -> Values:
        return {"log": [item(state["n"])], "n": state["n"] + 1}

    def again(state: LoopState) -> str:
        return "step" if state["n"] < steps else END

    builder = StateGraph(LoopState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", again, ["step", END])
    graph: CompiledStateGraph = builder.compile(checkpointer=saver)
    return graph


@dataclass(frozen=True)
class LongRun:
    graph: CompiledStateGraph
    saver: InMemorySaver
    ids: dict[int, str]
    """Checkpoint id of each ``loop`` step."""


@pytest.fixture(scope="module")
def long_run() -> LongRun:
    saver = InMemorySaver()
    graph = append_loop(STEPS, saver)
    result = graph.invoke({"log": [], "n": 0}, {**cfg(), "recursion_limit": STEPS + 10})
    assert result == {"log": [item(i) for i in range(STEPS)], "n": STEPS}
    ids = {r.step: r.id for r in saver.list_records("t") if r.source == "loop"}
    assert sorted(ids) == list(range(STEPS + 1))
    return LongRun(graph, saver, ids)


def spot_steps() -> list[int]:
    """Steps to check: both ends, around every delta-chain length up to 256, and a stride."""
    around = {m + d for m in (64, 128, 256, 4096, 8192) for d in (-1, 0, 1)}
    return sorted({0, 1, 2, STEPS - 1, STEPS, *around, *range(3, STEPS, 97)})


def test_every_snapshot_of_a_long_run_is_restorable(long_run: LongRun) -> None:
    for step in spot_steps():
        snap = long_run.graph.get_state(cfg(checkpoint_id=long_run.ids[step]))
        assert snap.metadata is not None and snap.metadata["step"] == step
        # Step s >= 1 has run the node s times (step 0 is the hidden __start__ task).
        assert snap.values == {"log": [item(i) for i in range(step)], "n": step}, step
        assert snap.next == (() if step == STEPS else ("step",))


def test_a_late_snapshot_of_a_long_run_resumes_to_the_same_result(long_run: LongRun) -> None:
    fork = cfg(checkpoint_id=long_run.ids[STEPS - 3])
    result = long_run.graph.invoke(None, {**fork, "recursion_limit": 50})
    assert result == {"log": [item(i) for i in range(STEPS)], "n": STEPS}


def stored_bytes(saver: InMemorySaver, thread: str) -> int:
    """Bytes of every value blob of ``thread`` (see :meth:`InMemorySaver.stored_bytes`)."""
    return saver.stored_bytes(thread)


def test_history_storage_grows_linearly_with_appended_items(long_run: LongRun) -> None:
    item_size = len(dumps(item(0)))
    stored = stored_bytes(long_run.saver, "t")
    # Whole-list-per-step storage would be ~steps**2 / 2 * item_size (~600 MB here).
    assert stored < 50 * STEPS * item_size, f"{stored:,} bytes for {STEPS:,} steps"


def test_history_storage_is_far_below_whole_state_per_step(long_run: LongRun) -> None:
    item_size = len(dumps(item(0)))
    stored = stored_bytes(long_run.saver, "t")
    quadratic = STEPS * STEPS // 2 * item_size
    assert stored < quadratic // 20, f"{stored:,} bytes for {STEPS:,} steps"


class DocState(TypedDict):
    doc: str
    log: Annotated[list[str], operator.add]
    n: int


def test_an_unchanged_large_value_is_stored_once_not_per_step() -> None:
    steps, doc = 300, "x" * 100_000

    def step(state: DocState) -> Values:
        return {"log": [item(state["n"])], "n": state["n"] + 1}

    def again(state: DocState) -> str:
        return "step" if state["n"] < steps else END

    builder = StateGraph(DocState)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    builder.add_conditional_edges("step", again, ["step", END])
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"doc": doc, "log": [], "n": 0}, {**cfg(), "recursion_limit": steps + 10})
    stored = stored_bytes(saver, "t")
    assert len(doc) < stored < 2 * len(doc) + steps * 200, f"{stored:,} bytes"
    middle = {r.step: r.id for r in saver.list_records("t")}[steps // 2]
    assert graph.get_state(cfg(checkpoint_id=middle)).values["doc"] == doc


def test_the_versions_of_an_append_only_list_share_one_copy(long_run: LongRun) -> None:
    saver = long_run.saver
    stored: list[Any] = [saver.get_blob("t", r.blobs["log"]).data for r in saver.list_records("t")]
    shared = {id(data.items) for data in stored if isinstance(data, Prefix)}
    assert len(shared) == 1  # one list for every version of ``log``


def test_a_restored_shared_list_is_the_callers_own(long_run: LongRun) -> None:
    target = cfg(checkpoint_id=long_run.ids[3])
    first = long_run.graph.get_state(target).values["log"]
    first.append("changed by the caller")
    first[0] = "edited"
    assert long_run.graph.get_state(target).values["log"] == [item(0), item(1), item(2)]
    later = long_run.graph.get_state(cfg(checkpoint_id=long_run.ids[5])).values["log"]
    assert later == [item(i) for i in range(5)]


class MixedState(TypedDict):
    log: Annotated[list[Any], operator.add]
    n: int


def test_a_dict_appended_to_a_shared_list_is_copied_for_every_reader() -> None:
    # ``log`` starts as a shareable list of strings; a dict then joins it. A caller that
    # changes the dict it read must not change the stored snapshots.
    items: list[Any] = ["a", {"k": 1}, "b", "c"]
    builder = StateGraph(MixedState)
    builder.add_node("step", lambda s: {"log": [items[s["n"]]], "n": s["n"] + 1})
    builder.add_edge(START, "step")
    builder.add_conditional_edges(
        "step", lambda s: "step" if s["n"] < len(items) else END, ["step", END]
    )
    graph = builder.compile(checkpointer=InMemorySaver())
    graph.invoke({"log": [], "n": 0}, cfg())
    for snapshot in graph.get_state_history(cfg()):
        if len(snapshot.values.get("log", [])) > 1:
            snapshot.values["log"][1]["k"] = 99
    for snapshot in graph.get_state_history(cfg()):
        log = snapshot.values.get("log", [])
        assert log == items[: len(log)]


class FlagState(TypedDict):
    flag: int | None
    n: int


@pytest.mark.parametrize("saver_name", ["memory", "sqlite"])
def test_a_number_written_again_unchanged_is_stored_once(saver_name: str) -> None:
    # ``flag`` is written every step; its value changes only at steps 3 and 6.
    flags = [None, None, None, 7, 7, 7, None, None]
    builder = StateGraph(FlagState)
    builder.add_node("step", lambda s: {"flag": flags[s["n"]], "n": s["n"] + 1})
    builder.add_edge(START, "step")
    builder.add_conditional_edges(
        "step", lambda s: "step" if s["n"] < len(flags) else END, ["step", END]
    )
    saver = SAVERS[saver_name]()
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"n": 0}, cfg())
    history = list(graph.get_state_history(cfg()))
    loops = [s for s in history if (s.metadata or {})["source"] == "loop" and s.values.get("n")]
    assert {s.values["n"]: s.values["flag"] for s in loops} == {
        n: flags[n - 1] for n in range(1, len(flags) + 1)
    }
    flag_blobs = {r.blobs["flag"] for r in saver.list_records("t") if "flag" in r.blobs}
    assert len(flag_blobs) == 3  # None, 7, None: one blob per change, not per write
