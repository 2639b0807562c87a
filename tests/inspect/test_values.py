"""The lazy value tree: children on demand, paging of huge containers, paths back."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel

from sgdebug.inspect.values import PathStep, ValueNode, path_expr, resolve, value_tree
from sgdebug.runtime.channels import MISSING


@dataclasses.dataclass
class Point:
    x: int
    y: list[int]


class Doc(BaseModel):
    title: str
    meta: dict[str, int]


def _labels(nodes: tuple[ValueNode, ...]) -> list[str]:
    return [n.label for n in nodes]


def test_dict_children_are_its_keys_with_previews() -> None:
    root = value_tree({"a": 1, "b": [1, 2]}, "state")

    children = root.children()

    assert root.has_children and root.type_name == "dict" and root.size == 2
    assert _labels(children) == ["'a'", "'b'"]
    assert [c.preview for c in children] == ["1", "[1, 2]"]
    assert [c.has_children for c in children] == [False, True]
    assert _labels(children[1].children()) == ["[0]", "[1]"]


def test_huge_list_pages_children_with_a_more_marker() -> None:
    big = list(range(1_000_000))
    root = value_tree(big)

    page = root.children(limit=10)  # how fast: a goal of benchmarks/inspect_views.py

    assert len(page) == 11
    assert _labels(page[:10]) == [f"[{i}]" for i in range(10)]
    marker = page[-1]
    assert (marker.kind, marker.label, marker.preview) == ("more", "…", "999,990 more")
    following = marker.children(limit=5)
    assert _labels(following[:5]) == [f"[{i}]" for i in range(10, 15)]
    assert following[-1].preview == "999,985 more"


def test_huge_dict_pages_too() -> None:
    root = value_tree(dict.fromkeys(range(500), 0))

    page = root.children()

    assert len(page) == 101
    assert page[-1].preview == "400 more"
    assert page[-1].children(limit=1)[0].label == "100"


def test_dataclass_and_pydantic_children_are_fields() -> None:
    point = value_tree(Point(1, [2]))
    doc = value_tree(Doc(title="t", meta={"k": 1}))

    assert _labels(point.children()) == ["x", "y"]
    assert _labels(doc.children()) == ["title", "meta"]
    assert doc.children()[1].children()[0].preview == "1"


def test_message_children_skip_empty_fields() -> None:
    message = AIMessage(
        content="hello", id="ai-1", tool_calls=[{"name": "calc", "args": {"x": 1}, "id": "c1"}]
    )

    labels = _labels(value_tree(message).children())

    assert {"content", "type", "id", "tool_calls"} <= set(labels)
    assert "additional_kwargs" not in labels and "name" not in labels


def test_long_and_multiline_strings_expand_to_lines() -> None:
    root = value_tree("first\nsecond\nthird")

    lines = root.children()

    assert root.has_children
    assert [(n.label, n.value) for n in lines] == [
        ("line 0", "first"),
        ("line 1", "second"),
        ("line 2", "third"),
    ]
    assert not value_tree("short").has_children


@pytest.mark.parametrize("value", [1, None, "x", b"bytes", [], {}, MISSING])
def test_leaves_have_no_children(value: Any) -> None:
    node = value_tree(value)

    assert not node.has_children
    assert node.children() == ()


def test_paths_resolve_back_to_the_value_and_print_as_python() -> None:
    state = {"messages": [AIMessage(content="hi\nthere", id="a")], "points": frozenset({(1, 5)})}
    root = value_tree(state, "state")
    messages = root.children()[0]
    content = messages.children()[0].children()[0]
    line = content.children()[1]
    member = root.children()[1].children()[0]

    assert content.path == (
        PathStep("key", "messages"),
        PathStep("index", 0),
        PathStep("attr", "content"),
    )
    assert path_expr(content.path) == "state['messages'][0].content"
    assert resolve(state, content.path) == "hi\nthere"
    assert resolve(state, line.path) == "there"
    assert resolve(state, member.path) == (1, 5)
    assert resolve(state, member.children()[1].path) == 5


def test_resolve_reports_a_vanished_path() -> None:
    with pytest.raises(LookupError):
        resolve({"a": [1]}, (PathStep("key", "a"), PathStep("index", 3)))
    with pytest.raises(LookupError):
        resolve(Point(1, []), (PathStep("attr", "z"),))


def test_children_are_recomputed_not_cached() -> None:
    # Pure: the same node gives the same children each time, built from the value.
    root = value_tree([1, 2, 3])

    assert root.children() == root.children()


def test_preview_width_carries_down_to_children() -> None:
    root = value_tree({"text": "y" * 500}, width=20)

    [child] = root.children()

    assert len(root.preview) <= 20
    assert len(child.preview) <= 20 and child.width == 20
