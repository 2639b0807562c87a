"""One-line previews: the shapes users read, bounded length, and cheap on huge values."""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import BaseModel

from sgdebug.inspect.preview import EMPTY, preview, size_of, type_name
from sgdebug.runtime import Overwrite, Send
from sgdebug.runtime.channels import MISSING

HUGE_LIST = list(range(1_000_000))
HUGE_TEXT = "x" * 10_000_000
HUGE_DICT = dict.fromkeys(range(1_000_000), "v")


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Doc(BaseModel):
    title: str
    tags: list[str]


Pair = namedtuple("Pair", ["left", "right"])


class Plain:
    def __init__(self) -> None:
        self.a = 1
        self.b = [1, 2]


class Shouty:
    def __repr__(self) -> str:
        return "LOUD\n" * 1000


class Broken:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


@pytest.mark.parametrize(
    "value",
    [HUGE_LIST, HUGE_TEXT, HUGE_DICT, {"k": HUGE_LIST}, [HUGE_TEXT] * 3],
    ids=["list", "str", "dict", "nested-list", "list-of-str"],
)
def test_huge_values_preview_as_one_short_line(value: Any) -> None:
    # How fast (under 10 ms) is a goal of benchmarks/inspect_views.py, on these same values.
    text = preview(value, 60)

    assert 0 < len(text) <= 60
    assert "\n" not in text


def test_huge_list_shows_first_items_and_how_many_more() -> None:
    text = preview(HUGE_LIST, 40)

    assert text.startswith("[0, 1, 2, ")
    assert text.endswith(" more]")
    assert len(text) <= 40
    shown = text[1:].split(", …")[0].count(",") + 1
    assert f"{1_000_000 - shown:,} more" in text


def test_huge_string_shows_its_start_and_length() -> None:
    text = preview(HUGE_TEXT, 60)

    assert text.startswith("'xxx")
    assert text.endswith("…' (10,000,000 chars)")
    assert len(text) <= 60


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": 1, "b": [1, 2]}, "{'a': 1, 'b': [1, 2]}"),
        ((1,), "(1,)"),
        (set(), "set()"),
        (frozenset({1}), "frozenset({1})"),
        ({3, 1, 2}, "{1, 2, 3}"),
        (b"ab", "b'ab'"),
        (None, "None"),
        (2.5, "2.5"),
        (MISSING, EMPTY),
        (Point(1, 2), "Point(x=1, y=2)"),
        (Doc(title="t", tags=["a"]), "Doc(title='t', tags=['a'])"),
        (Pair(1, "r"), "Pair(left=1, right='r')"),
        (Plain(), "Plain(a=1, b=[1, 2])"),
        (Overwrite(["x"]), "Overwrite(['x'])"),
        (Send("w", {"i": 1}), "Send('w', {'i': 1})"),
        ("two\nlines", "'two\\nlines'"),
    ],
)
def test_preview_shapes(value: Any, expected: str) -> None:
    assert preview(value) == expected


def test_message_shows_role_content_start_and_id() -> None:
    long = AIMessage(content="It is sunny in Paris " * 20, id="ai-1")

    text = preview(long, 60)

    assert text.startswith("ai: 'It is sunny in Paris")
    assert text.endswith("(id=ai-1)")
    assert len(text) <= 60
    assert preview(HumanMessage(content="hi", id="u1")) == "human: 'hi' (id=u1)"
    assert preview(ToolMessage(content="42", tool_call_id="c1", id="t1")) == "tool: '42' (id=t1)"


def test_message_with_tool_calls_names_them() -> None:
    message = AIMessage(
        content="", id="ai-2", tool_calls=[{"name": "get_weather", "args": {}, "id": "c1"}]
    )

    assert preview(message) == "ai: → get_weather (id=ai-2)"


def test_nested_containers_stop_at_a_depth() -> None:
    assert preview([[[[[1]]]]]) == "[[[[…]]]]"


def test_huge_int_is_described_not_printed() -> None:
    assert preview(10**5000) == "<int of ~5,001 digits>"


def test_custom_repr_is_cut_to_one_line_and_failures_are_shown() -> None:
    text = preview(Shouty(), 30)

    assert "\n" not in text
    assert len(text) == 30
    assert preview(Broken()) == "<Broken (repr failed: RuntimeError)>"


def test_type_name_and_size() -> None:
    assert type_name(MISSING) == "empty"
    assert type_name(HumanMessage(content="x")) == "HumanMessage"
    assert size_of(HUGE_LIST) == 1_000_000
    assert size_of(HUGE_TEXT) == 10_000_000
    assert size_of(3) is None


_builtin_leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary()
_leaves = (
    _builtin_leaves
    | st.builds(Point, st.integers(), st.integers())
    | st.builds(AIMessage, content=st.text(), id=st.text(min_size=1))
    | st.builds(Overwrite, st.lists(st.integers()))
)


def _nest(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner)
            | st.tuples(inner, inner)
            | st.dictionaries(st.text() | st.integers(), inner)
        ),
        max_leaves=40,
    )


_values = _nest(_leaves) | st.frozensets(st.integers() | st.text())
_builtin_values = _nest(_builtin_leaves)


@settings(max_examples=300, deadline=None)
@given(value=_values, width=st.integers(min_value=1, max_value=120))
def test_preview_is_one_bounded_line(value: Any, width: int) -> None:
    text = preview(value, width)

    assert 0 < len(text) <= width
    assert "\n" not in text and "\r" not in text


@settings(max_examples=200, deadline=None)
@given(value=_builtin_values)
def test_preview_of_a_short_value_is_its_repr(value: Any) -> None:
    # Within the budget and the depth limit, builtins preview exactly as Python prints them.
    expected = repr(value)
    if len(expected) > 60 or _depth(value) > 3:
        return
    assert preview(value, 200) == expected


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def test_a_cut_never_shows_two_ellipses_in_a_row() -> None:
    from sgdebug.sample_graphs import chatbot

    messages = chatbot.graph.invoke(chatbot.EXAMPLE_INPUT)["messages"]
    values = [messages, {"messages": messages}, {"request": "a refund", "draft": "Hello " * 9}]
    for value in values:
        for width in range(3, 120):
            shown = preview(value, width)
            assert "……" not in shown, (width, shown)
            assert len(shown) <= width
    assert preview(messages, 91).endswith("ai: 'Ca…, … 4 more]")


def test_a_narrow_mapping_keeps_its_short_keys_whole() -> None:
    """Keys say what a value is: ``{'mes…': […], 'ca…': 1}`` told a user nothing."""
    state = {"messages": [f"message {i}" for i in range(20)], "calls": 1}
    assert preview(state, 30) == "{'messages': […], 'calls': 1}"
    assert preview(state, 25).startswith("{'messages': ")
    long_key = {"a_key_much_longer_than_the_room": "value"}
    assert preview(long_key, 25) == "{'a_key_mu…': 'value'}"  # (a long one still yields)
