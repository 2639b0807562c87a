"""``print`` and ``state`` of a huge value print an outline, unless asked for all of it."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from sgdebug.debugger import Session, Target, format_outcome, parse, run_line
from sgdebug.debugger.commands import complete
from sgdebug.inspect.outline import outline
from sgdebug.runtime import END, START, StateGraph

from .helpers import ok

MILLION = 1_000_000


class State(TypedDict):
    items: list[int]
    n: int


def big_session(items: int = MILLION) -> Session:
    builder = StateGraph(State)
    builder.add_node("bump", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "bump").add_edge("bump", END)
    session = Session(Target(builder.compile(), {}, "big"), input={"items": [], "n": 0})
    ok(session, "restart")
    ok(session, "step")
    assert session.set_value("items", list(range(items))).ok
    return session


def printed(session: Session, line: str) -> list[str]:
    outcome = run_line(session, line)
    assert outcome is not None and outcome.ok, outcome
    return format_outcome(outcome).splitlines()


def test_printing_a_million_items_prints_a_few_lines_with_the_count() -> None:
    lines = printed(big_session(), "print state['items']")
    assert len(lines) < 20
    assert lines[0] == "list of 1,000,000 items:"
    assert lines[1:3] == ["  [0]: 0", "  [1]: 1"]
    assert "999,990 more" in lines[-2] and "print --all" in lines[-1]


def test_the_state_outlines_only_the_huge_channel() -> None:
    lines = printed(big_session(), "state")
    assert len(lines) < 20
    assert lines[0] == "  items = list of 1,000,000 items:"
    assert "  n = 0" in lines
    assert "state --all" in lines[-1]


def test_all_prints_every_item() -> None:
    session = big_session(items=5_000)
    assert len(printed(session, "print --all state['items']")) == 5_000
    assert len(printed(session, "state --all")) == 5_001  # and n
    assert printed(session, "print --all len(state['items'])") == ["5000"]


def test_a_small_value_prints_whole_as_before() -> None:
    session = big_session(items=3)
    assert printed(session, "print state") == ["{'items': [0, 1, 2], 'n': 0}"]
    assert printed(session, "state") == ["  items = [0, 1, 2]", "  n = 0"]


@pytest.mark.parametrize(
    ("line", "whole", "expr"),
    [
        ("print --all state", True, "state"),
        ("p --all state['x'] if x else y", True, "state['x'] if x else y"),
        ("print state", False, "state"),
        ("print -1", False, "-1"),
    ],
)
def test_all_is_a_flag_before_the_expression(line: str, whole: bool, expr: str) -> None:
    parsed = parse(line)
    assert (parsed.args.get("whole", False), parsed.args["expr"]) == (whole, expr)


def test_all_shows_in_usage_and_completion() -> None:
    assert parse("state --all").args == {"whole": True}
    assert parse("state").args == {}
    session = big_session(items=3)
    assert complete(session, "state ") == ["--all"]
    assert "usage: print [--all] EXPR" in printed(session, "help print")


@pytest.mark.parametrize(
    "value",
    ["x" * 10_000_000, {i: str(i) for i in range(MILLION)}, [[0] * 10] * MILLION],
    ids=["10 MB string", "million-key dict", "million nested lists"],
)
def test_an_outline_is_bounded_whatever_the_value(value: Any) -> None:
    shown = outline(value)
    assert not shown.whole
    assert len(shown.lines) <= 12 and all(len(line) <= 120 for line in shown.lines)
