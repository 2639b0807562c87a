"""Structural diffs, ``apply``, reducer diffs of real supersteps and snapshot diffs."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from sgdebug.inspect.diff import (
    SAME,
    FieldsDiff,
    MappingDiff,
    Replaced,
    SequenceDiff,
    SetDiff,
    apply,
    diff,
    diff_lines,
    summary,
)
from sgdebug.inspect.step_diff import StepDiff, reducer_diff, snapshot_diff, snapshot_diff_lines
from sgdebug.runtime import BaseHook, CommitRecord, RunView
from sgdebug.runtime.channels import MISSING
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.sample_graphs import RUNS_ALONE, load


@dataclasses.dataclass(frozen=True)
class Point:
    x: int
    y: int


class Doc(BaseModel):
    title: str
    tags: list[str]


def _ops(value: SequenceDiff) -> list[tuple[str, int, int, int, int]]:
    return [(o.tag, o.old_start, o.old_end, o.new_start, o.new_end) for o in value.ops]


# -- value diffs ---------------------------------------------------------------------------


def test_equal_values_are_same() -> None:
    assert diff([1, {"a": 2}], [1, {"a": 2}]) is SAME
    assert summary(SAME) == "unchanged"


def test_list_append_is_one_insert_at_the_end() -> None:
    change = diff(["a", "b"], ["a", "b", "c", "d"])

    assert isinstance(change, SequenceDiff)
    assert _ops(change) == [("insert", 2, 2, 2, 4)]
    assert change.ops[0].added == ("c", "d")
    assert summary(change) == "+2 items"


def test_list_removal_and_replacement_are_found_by_a_sequence_diff() -> None:
    change = diff([1, 2, 3, 4, 5], [1, 3, 4, 9, 5])

    assert isinstance(change, SequenceDiff)
    assert _ops(change) == [("delete", 1, 2, 1, 1), ("insert", 4, 4, 3, 4)]


def test_list_items_of_the_same_shape_change_in_place() -> None:
    change = diff([{"id": 1, "n": 1}, {"id": 2}], [{"id": 1, "n": 2}, {"id": 2}])

    assert isinstance(change, SequenceDiff)
    [op] = change.ops
    assert op.tag == "change"
    assert isinstance(op.change, MappingDiff)
    assert [(c.key, c.diff) for c in op.change.changed] == [("n", Replaced(1, 2, "1", "2"))]


def test_messages_are_matched_by_id() -> None:
    old = [HumanMessage(content="hi", id="u1"), AIMessage(content="draft", id="a1")]
    new = [
        HumanMessage(content="hi", id="u1"),
        AIMessage(content="final", id="a1"),
        AIMessage(content="more", id="a2"),
    ]

    change = diff(old, new)

    assert isinstance(change, SequenceDiff)
    assert [o.tag for o in change.ops] == ["change", "insert"]
    edit = change.ops[0].change
    assert isinstance(edit, FieldsDiff) and edit.type_name == "AIMessage"
    assert [c.key for c in edit.changed] == ["content"]
    assert apply(old, change) == new


def test_messages_with_different_ids_are_replaced_not_edited() -> None:
    old = [AIMessage(content="x", id="a1")]
    new = [AIMessage(content="x", id="a2")]

    change = diff(old, new)

    assert isinstance(change, SequenceDiff)
    assert [o.tag for o in change.ops] == ["replace"]


def test_dict_diff_is_recursive() -> None:
    change = diff({"a": 1, "b": {"c": [1]}, "gone": 0}, {"a": 1, "b": {"c": [1, 2]}, "new": 3})

    assert isinstance(change, MappingDiff)
    assert change.added == (("new", 3),)
    assert change.removed == (("gone", 0),)
    [nested] = change.changed
    assert nested.key == "b"
    assert summary(change) == "+1 -1 ~1 keys"


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ([1], [1, 2], "+1 item"),
        ([1], [1, 2, 3], "+2 items"),
        ({"a": 1}, {"a": 2}, "~1 key"),
        ({"a": 1, "b": 2}, {}, "-2 keys"),
        ({1}, {1, 2}, "+1 member"),
        ("hello", "hello!", "+1 char"),
    ],
)
def test_a_single_count_of_one_is_singular(old: Any, new: Any, words: str) -> None:
    assert summary(diff(old, new)) == words


def test_string_diff_finds_the_edit() -> None:
    change = diff("hello world", "hello brave world")

    assert isinstance(change, SequenceDiff)
    assert [(o.tag, o.old_start, o.added) for o in change.ops] == [("insert", 6, "brave ")]
    assert summary(change) == "+6 chars"


def test_sets_records_and_type_changes() -> None:
    assert diff({1, 2}, {2, 3}) == SetDiff("set", (3,), (1,))
    fields = diff(Point(1, 2), Point(1, 3))
    assert isinstance(fields, FieldsDiff) and [c.key for c in fields.changed] == ["y"]
    assert apply(Point(1, 2), fields) == Point(1, 3)
    model = diff(Doc(title="a", tags=[]), Doc(title="a", tags=["x"]))
    assert apply(Doc(title="a", tags=[]), model) == Doc(title="a", tags=["x"])
    assert isinstance(diff([1], (1,)), Replaced)
    assert isinstance(diff(MISSING, [1]), Replaced)


def test_diff_lines_read_like_a_unified_diff() -> None:
    change = diff({"log": ["a"], "n": 1}, {"log": ["a", "b"], "n": 2})

    lines = [(line.sign, line.path, line.text) for line in diff_lines(change, "state")]

    assert lines == [
        ("+", "state['log'][1]", "'b'"),
        ("-", "state['n']", "1"),
        ("+", "state['n']", "2"),
    ]


def test_diff_lines_are_bounded() -> None:
    change = diff([], list(range(1000)))

    per_op = diff_lines(change)
    capped = diff_lines(change, limit=10)

    assert len(per_op) == 21
    assert (per_op[-1].path, per_op[-1].text) == ("[20:]", "… 980 more")
    assert len(capped) == 11
    assert capped[-1].sign == "…"


# -- huge values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (list(range(1_000_000)), [*range(1_000_000), -1]),
        (list(range(1_000_000)), [*range(500_000), -1, *range(500_001, 1_000_000)]),
        ("x" * 10_000_000, "x" * 5_000_000 + "yy" + "x" * 5_000_000),
        (dict.fromkeys(range(1_000_000), 0), {**dict.fromkeys(range(1_000_000), 0), 7: 1}),
    ],
    ids=["append", "replace-middle", "text-insert", "dict-change"],
)
def test_huge_values_diff_exactly_and_briefly(old: Any, new: Any) -> None:
    # How fast (under 2 s) is a goal of benchmarks/inspect_views.py, on these same values.
    change = diff(old, new)

    assert apply(old, change) == new
    assert len(diff_lines(change)) < 10


def test_unmatched_huge_middles_become_one_replacement() -> None:
    old, new = list(range(10_000)), list(range(10_000, 20_000))

    change = diff(old, new)

    assert isinstance(change, SequenceDiff)
    assert _ops(change) == [("replace", 0, 10_000, 0, 10_000)]
    assert apply(old, change) == new


# -- the apply property --------------------------------------------------------------------

_scalars = st.integers(-3, 3) | st.text("ab", max_size=3) | st.none() | st.booleans()
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text("abc", max_size=2), inner, max_size=4)
        | st.tuples(inner, inner)
    ),
    max_leaves=25,
)


def _edited(values: st.SearchStrategy[list[Any]]) -> st.SearchStrategy[tuple[list[Any], list[Any]]]:
    """Pairs of lists where the second is the first with random edits (so they overlap)."""

    @st.composite
    def pair(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
        old = draw(values)
        new = list(old)
        for _ in range(draw(st.integers(0, 4))):
            where = draw(st.integers(0, len(new)))
            action = draw(st.sampled_from(["insert", "delete", "replace"]))
            if action == "insert" or not new:
                new.insert(where, draw(_values))
            elif action == "delete":
                del new[min(where, len(new) - 1)]
            else:
                new[min(where, len(new) - 1)] = draw(_values)
        return old, new

    return pair()


@settings(max_examples=300, deadline=None)
@given(_edited(st.lists(_values, max_size=12)))
def test_apply_of_list_diff_gives_the_new_list(pair: tuple[list[Any], list[Any]]) -> None:
    old, new = pair
    assert apply(old, diff(old, new)) == new


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.text("abcd", max_size=2), _values),
    st.dictionaries(st.text("abcd", max_size=2), _values),
)
def test_apply_of_dict_diff_gives_the_new_dict(old: dict[str, Any], new: dict[str, Any]) -> None:
    merged = {**old, **new} if new else old
    for target in (new, merged):
        assert apply(old, diff(old, target)) == target


@settings(max_examples=300, deadline=None)
@given(st.text("ab\nc", max_size=40), st.text("ab\nc", max_size=40))
def test_apply_of_string_diff_gives_the_new_string(old: str, new: str) -> None:
    assert apply(old, diff(old, new)) == new
    assert apply(old, diff(old, old + new)) == old + new


@settings(max_examples=200, deadline=None)
@given(_values, _values)
def test_apply_of_any_diff_gives_the_new_value_and_leaves_the_old_alone(old: Any, new: Any) -> None:
    before = repr(old)
    assert apply(old, diff(old, new)) == new
    assert repr(old) == before


def test_long_texts_are_matched_by_lines() -> None:
    old = "".join(f"line {i}\n" for i in range(3000))
    new = old.replace("line 1500\n", "line 1500 changed\n").replace("line 10\n", "")

    change = diff(old, new)

    assert isinstance(change, SequenceDiff)
    assert len(change.ops) == 2
    assert apply(old, change) == new


# -- reducer diffs of real supersteps -------------------------------------------------------


class _Records(BaseHook):
    def __init__(self) -> None:
        self.records: list[CommitRecord] = []

    def after_commit(self, run: RunView, record: CommitRecord) -> bool:
        self.records.append(record)
        return False


def _run(name: str) -> tuple[Any, list[CommitRecord]]:
    sample = load(name)
    hook = _Records()
    run = sample.graph.start(sample.EXAMPLE_INPUT, hooks=[hook])
    assert run.advance() == "done"
    return sample.graph, hook.records


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_reducer_diff_explains_every_commit_of_every_sample(name: str) -> None:
    graph, records = _run(name)

    for record in records:
        step = reducer_diff(graph, record)
        assert isinstance(step, StepDiff) and step.step == record.step
        assert {c.channel for c in step.channels} <= set(graph.state_keys)
        for channel in step.channels:
            assert apply(channel.old, channel.diff) == channel.new
            assert [w.task_name for w in channel.writes] == [
                w.task_name
                for c in record.changes
                if c.channel == channel.channel
                for w in c.writes
            ]
            assert channel.kind == graph.channel_specs[channel.channel].describe()


def test_reducer_diff_shows_parallel_writes_in_application_order() -> None:
    graph, records = _run("fanout")
    step1 = reducer_diff(graph, records[1])

    [trail] = [c for c in step1.channels if c.channel == "trail"]

    assert (trail.reducer, trail.applied) == ("add", "reducer add")
    assert [(w.task_name, w.value) for w in trail.writes] == [("b", ["b"]), ("c", ["c"])]
    assert trail.summary == "+2 items"
    assert [o.added for o in trail.diff.ops] == [("b", "c")]  # type: ignore[union-attr]


def test_overwrite_is_shown_as_such() -> None:
    graph, records = _run("overwrite")
    compact = next(r for r in records if r.tasks == ("compact",))

    [notes] = reducer_diff(graph, compact).channels

    assert notes.applied == "overwrite"
    assert [w.overwrite for w in notes.writes] == [True]
    assert notes.writes[0].preview.startswith("Overwrite([")
    assert notes.new == ["summary of 3 notes at revision 2"]
    assert apply(notes.old, notes.diff) == notes.new


def test_cleared_ephemeral_value_is_a_change_without_writes() -> None:
    graph, records = _run("channels")

    cleared = [c for r in records for c in reducer_diff(graph, r).channels if c.channel == "signal"]

    assert [c.applied for c in cleared] == ["last value", "cleared"]
    assert cleared[1].writes == () and cleared[1].new is MISSING


def test_messages_reducer_diff_appends_by_id() -> None:
    graph, records = _run("chatbot")

    diffs = [c for r in records for c in reducer_diff(graph, r).channels]

    assert {c.reducer for c in diffs} == {"add_messages"}
    assert all(c.summary == "+1 item" for c in diffs)


def test_internal_channels_only_when_asked() -> None:
    graph, records = _run("linear")

    names = {c.channel for c in reducer_diff(graph, records[1], internal=True).channels}

    assert "branch:to:node_2" in names


# -- snapshot diffs ------------------------------------------------------------------------


def _history(name: str) -> Sequence[Any]:
    sample = load(name)
    graph = sample.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": name}}
    graph.invoke(sample.EXAMPLE_INPUT, config)
    return list(graph.get_state_history(config))


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_snapshot_diff_between_any_two_snapshots(name: str) -> None:
    history = _history(name)
    newest, oldest = history[0], history[-1]

    change = snapshot_diff(oldest, newest)

    assert change.new_step == newest.metadata["step"]
    assert change.old_step == -1
    assert apply(oldest.values, change.diff) == newest.values
    assert set(change.channels) == {
        k for k in newest.values if newest.values[k] != oldest.values.get(k, MISSING)
    }


def test_snapshot_diff_of_plain_values() -> None:
    change = snapshot_diff({"a": 1}, {"a": 2})

    assert change.channels == ("a",)
    assert change.old_id is None


def test_snapshot_diff_lines_name_state_keys_bare_and_go_down_into_values() -> None:
    old = {"count": 1, "gone": 0, "messages": [HumanMessage("hi", id="1")]}
    new = {"count": 2, "messages": [HumanMessage("hi there", id="1")], "note": "new"}

    lines = snapshot_diff_lines(snapshot_diff(old, new))

    assert [(line.sign, line.path, line.text) for line in lines] == [
        ("-", "gone", "0"),
        ("-", "count", "1"),
        ("+", "count", "2"),
        ("-", "messages[0].content", "'hi'"),
        ("+", "messages[0].content", "'hi there'"),
        ("+", "note", "'new'"),
    ]


def test_snapshot_diff_lines_stop_at_the_limit_with_one_line_saying_so() -> None:
    change = snapshot_diff({f"k{i}": i for i in range(10)}, {f"k{i}": -i for i in range(10)})

    lines = snapshot_diff_lines(change, limit=5)

    assert len(lines) == 6
    assert lines[-1].sign == "…"
    assert snapshot_diff_lines(snapshot_diff([1], [1, 2])) == diff_lines(diff([1], [1, 2]))


def test_apply_keeps_the_mapping_and_sequence_types() -> None:
    from collections import OrderedDict, defaultdict, namedtuple

    counts: defaultdict[str, int] = defaultdict(int, {"a": 1})
    new_counts = defaultdict(int, {"a": 2, "b": 1})
    applied = apply(counts, diff(counts, new_counts))
    pair = namedtuple("pair", "x y")

    assert applied == new_counts and applied["zzz"] == 0
    assert counts == {"a": 1}
    ordered = OrderedDict(a=1)
    assert type(apply(ordered, diff(ordered, OrderedDict(a=1, b=2)))) is OrderedDict
    assert apply((1, 2), diff((1, 2), (1, 2, 3))) == (1, 2, 3)
    assert apply(pair(1, 2), diff(pair(1, 2), pair(1, 5))) == pair(1, 5)
    assert apply(b"abc", diff(b"abc", b"abxc")) == b"abxc"


@settings(max_examples=300, deadline=None)
@given(st.text("ab _.\n", max_size=40), st.text("ab _.\n", max_size=40))
def test_a_text_diff_edits_whole_words_and_still_applies(old: str, new: str) -> None:
    change = diff(old, new)
    assert apply(old, change) == new
    if isinstance(change, SequenceDiff):
        for op in change.ops:
            for text, start, end in (
                (old, op.old_start, op.old_end),
                (new, op.new_start, op.new_end),
            ):
                if start < end:  # an edit never starts or ends inside a word
                    assert start == 0 or not (_wordy(text[start - 1]) and _wordy(text[start]))
                    assert end == len(text) or not (_wordy(text[end - 1]) and _wordy(text[end]))


def _wordy(char: str) -> bool:
    return char.isalnum() or char == "_"


def test_a_short_string_diff_shows_old_and_new_whole() -> None:
    lines = diff_lines(diff("draft 1", "draft 2"), "status")
    assert [(line.sign, line.path, line.text) for line in lines] == [
        ("-", "status", "'draft 1'"),
        ("+", "status", "'draft 2'"),
    ]


def test_a_long_string_diff_shows_each_changed_word_among_its_neighbours() -> None:
    old = "The quick brown fox jumps over the lazy dog and then goes home to sleep all day."
    new = old.replace("quick", "slow").replace("sleep", "rest")
    lines = diff_lines(diff(old, new), "draft", width=50)
    assert [(line.sign, line.text) for line in lines] == [
        ("-", "'The quick brown fox jumps…'"),
        ("+", "'The slow brown fox jumps…'"),
        ("-", "'…goes home to sleep all day.'"),
        ("+", "'…goes home to rest all day.'"),
    ]
    assert {line.path for line in lines} == {"draft"}  # no character slices
