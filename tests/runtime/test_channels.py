"""Each channel's merge rule, emptiness, errors, and checkpoint round-trip."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any

import pytest

from sgdebug.runtime import Overwrite
from sgdebug.runtime.channels import (
    MISSING,
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    LastValueAfterFinish,
    NamedBarrierValue,
    Topic,
    UntrackedValue,
    operator_name,
)
from sgdebug.runtime.errors import EmptyChannelError, InvalidUpdateError


def test_last_value_keeps_one_write_and_rejects_two() -> None:
    ch = LastValue(int, key="x")
    assert not ch.is_available()
    with pytest.raises(EmptyChannelError):
        ch.get()
    assert ch.update([3]) is True
    assert ch.get() == 3
    assert ch.update([]) is False and ch.get() == 3
    with pytest.raises(InvalidUpdateError, match="At key 'x': Can receive only one value"):
        ch.update([1, 1])


@pytest.mark.parametrize(
    ("typ", "initial"),
    [(list, []), (int, 0), (str, ""), (Sequence[int], []), (set[int], set())],
)
def test_reducer_starts_at_the_types_empty_value(typ: Any, initial: Any) -> None:
    ch = BinaryOperatorAggregate(Annotated[typ, operator.add], operator.add, key="r")
    assert ch.get() == initial


def test_reducer_without_default_stores_the_first_write_as_is() -> None:
    ch = BinaryOperatorAggregate(int | None, operator.add, key="r")
    assert not ch.is_available()
    ch.update([5, 2])
    assert ch.get() == 7


def test_overwrite_discards_earlier_and_ignores_later_writes_of_the_step() -> None:
    ch = BinaryOperatorAggregate(list, operator.add, key="log")
    ch.update([["a"], Overwrite(["o"]), ["c"]])
    assert ch.get() == ["o"]
    ch.update([{"__overwrite__": ["dict-form"]}])
    assert ch.get() == ["dict-form"]
    with pytest.raises(InvalidUpdateError, match="only one Overwrite value per super-step"):
        ch.update([Overwrite([1]), Overwrite([2])])


def test_ephemeral_value_lasts_one_step() -> None:
    ch = EphemeralValue(int, key="e")
    ch.update([1])
    assert ch.get() == 1
    assert ch.update([]) is True
    assert not ch.is_available()
    assert ch.update([]) is False
    with pytest.raises(InvalidUpdateError, match=r"EphemeralValue\(guard=True\)"):
        ch.update([1, 2])
    unguarded = EphemeralValue(int, guard=False)
    unguarded.update([1, 2])
    assert unguarded.get() == 2


def test_topic_collects_a_steps_writes_and_flattens_lists() -> None:
    ch = Topic(int, key="t")
    ch.update([1, [2, 3]])
    assert ch.get() == [1, 2, 3]
    ch.update([])
    assert not ch.is_available()
    acc = Topic(int, accumulate=True)
    acc.update([1])
    acc.update([])
    acc.update([2])
    assert acc.get() == [1, 2]


def test_last_value_after_finish_hides_until_finish_and_is_consumed() -> None:
    ch = LastValueAfterFinish(int, key="f")
    ch.update([1])
    assert not ch.is_available()
    assert ch.finish() is True and ch.get() == 1
    assert ch.finish() is False
    assert ch.consume() is True and not ch.is_available()


def test_untracked_value_is_never_checkpointed() -> None:
    ch = UntrackedValue(int, key="u")
    ch.update([1])
    assert ch.get() == 1
    assert ch.checkpoint() is MISSING
    assert not ch.from_checkpoint(MISSING).is_available()
    assert ch.copy().get() == 1


def test_barrier_is_available_once_every_source_wrote() -> None:
    ch = NamedBarrierValue(["a", "b"], key="join:a+b:c")
    ch.update(["a"])
    assert not ch.is_available()
    ch.update(["b"])
    assert ch.is_available()
    assert ch.consume() is True and not ch.is_available()
    with pytest.raises(InvalidUpdateError, match="Value z not in"):
        ch.update(["z"])


@pytest.mark.parametrize(
    "channel",
    [
        LastValue(int),
        BinaryOperatorAggregate(list, operator.add),
        EphemeralValue(int),
        Topic(int, accumulate=True),
        LastValueAfterFinish(int),
        NamedBarrierValue(["a", "b"]),
    ],
    ids=lambda c: type(c).__name__,
)
def test_checkpoint_round_trip_and_copies_are_independent(channel: BaseChannel) -> None:
    first = (
        "a"
        if isinstance(channel, NamedBarrierValue)
        else [1]
        if isinstance(channel, BinaryOperatorAggregate)
        else 1
    )
    channel.update([first])
    restored = channel.from_checkpoint(channel.checkpoint())
    assert restored.checkpoint() == channel.checkpoint()
    copy = channel.copy()
    second = (
        "b"
        if isinstance(channel, NamedBarrierValue)
        else [2]
        if isinstance(channel, BinaryOperatorAggregate)
        else 2
    )
    copy.update([second])
    assert channel.checkpoint() != copy.checkpoint()


def _two_writes(channel: BaseChannel) -> tuple[Any, Any]:
    if isinstance(channel, NamedBarrierValue):
        return "a", "b"
    if isinstance(channel, BinaryOperatorAggregate):
        return [1], [2]
    return 1, 2


def test_a_reducer_without_a_signature_is_refused_with_how_to_wrap_it() -> None:
    from sgdebug.runtime.graph._schema import channel_for

    with pytest.raises(ValueError, match="no signature found for builtin") as caught:
        channel_for("n", Annotated[int, max])
    assert any("lambda a, b: max(a, b)" in note for note in caught.value.__notes__)
    assert isinstance(
        channel_for("n", Annotated[int, lambda a, b: max(a, b)]), BinaryOperatorAggregate
    )


class _Merge:
    @staticmethod
    def lists(left: list[Any], right: list[Any]) -> list[Any]:
        return left + right


def _made_by_a_decorator() -> Any:
    def _inner(left: Any, right: Any) -> Any:
        return right

    return _inner


made_public = _made_by_a_decorator()
"""Bound at module level: what a program calls the inner function."""


def test_a_reducer_is_named_as_the_program_knows_it() -> None:
    from langgraph.graph.message import add_messages as lg_add_messages

    from sgdebug.runtime import add_messages

    assert operator_name(operator.add) == "add"
    assert operator_name(add_messages) == "add_messages"
    assert operator_name(lg_add_messages) == "add_messages"  # (its __name__: _add_messages)
    assert operator_name(_Merge.lists) == "_Merge.lists"
    assert operator_name(made_public) == "made_public"
    assert operator_name(_made_by_a_decorator()) == "_inner"  # (bound nowhere)
    assert BinaryOperatorAggregate(list, lg_add_messages).describe() == "reducer add_messages"
