"""Editing state mid-run: ``set`` (bypassing reducers), ``update`` (through them, ``as`` a node)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel, Field

from sgdebug.debugger import Session, available
from sgdebug.runtime import START, StateGraph
from sgdebug.sample_graphs import RUNS_ALONE

from .helpers import ok, refused
from .helpers import sample_session as session_for


def snapshot_count(session: Session) -> int:
    return len(ok(session, "history").value)


# For every sample: where to stop, an edit, and what the edit does to the final state.
CHATBOT_EDIT = (
    "update {'messages': [{'role': 'user', 'content': 'what is 2 + 3?', 'id': 'user-1'}]}"
)
EDITS: dict[str, tuple[str, str, tuple[str, Any]]] = {
    "linear": ("until node_1", "set cur_id = 'edited'", ("cur_id", "edited:validated:done")),
    "overwrite": ("until review", "set revision = 10", ("revision", 11)),
    "multi_schema": (
        "until think",
        "set topic = 'edits'",
        ("answer", "For edits, apply each write in task order."),
    ),
    "channels": ("until react", "update {'history': ['manual line']}", ("history", "manual line")),
    "fanout": ("until d", "update {'trail': ['z']}", ("joined", "a + b + c + b_2 + z")),
    "map_reduce": (
        "until combine",
        "update {'counts': [{'index': 9, 'words': 100, 'longest': 'x'}]}",
        ("total_words", 128),
    ),
    "loop": ("until attempt", "set count = 2", ("status", "done after 3 attempts")),
    "chatbot": ("until agent", CHATBOT_EDIT, ("answer", "Here is what I found: 2 + 3 = 5.")),
}


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_an_edit_changes_the_rest_of_the_run_on_every_sample(name: str) -> None:
    position, edit, (key, expected) = EDITS[name]
    session = session_for(name)
    ok(session, "restart")
    ok(session, position)
    pending = session.pending_tasks
    before = snapshot_count(session)
    outcome = ok(session, edit)
    assert outcome.stop is not None and outcome.stop.kind == "edit"
    assert session.pending_tasks == pending  # without `as`, the same nodes run next
    history = ok(session, "history").value
    assert len(history) == before + 1 and history[-1].source == "update"
    assert history[-1].current
    ok(session, "continue")
    values = session.state().value
    if key == "answer" and name == "chatbot":
        assert values["messages"][-1].content == expected
    elif key == "history":
        assert expected in values["history"]
    else:
        assert values[key] == expected


def test_set_bypasses_the_reducer_and_update_goes_through_it() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    ok(session, "set logs = ['replaced']")
    assert session.state().value["logs"] == ["replaced"]
    ok(session, "update {'logs': ['appended'], 'cur_id': 'new'}")
    assert session.state().value == {"cur_id": "new", "logs": ["replaced", "appended"]}
    sources = [e.source for e in ok(session, "history").value]
    assert sources[-2:] == ["update", "update"]
    ok(session, "continue")
    assert session.state().value["logs"][:2] == ["replaced", "appended"]


def test_update_as_a_node_follows_update_state_semantics() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    assert session.pending_tasks == ("node_1",)
    outcome = ok(session, "update {'cur_id': 'skipped'} as node_1")
    assert "next: node_2" in outcome.message
    assert session.pending_tasks == ("node_2",)  # as if node_1 had run
    assert ok(session, "show").value.metadata["source"] == "update"
    ok(session, "continue")
    assert session.state().value["cur_id"] == "skipped:done"
    assert not any("validated" in line for line in session.state().value["logs"])


def test_update_as_an_unknown_node_is_refused() -> None:
    session = session_for("linear")
    ok(session, "restart")
    count = snapshot_count(session)
    assert "Node zz does not exist" in refused(session, "update {'cur_id': 'x'} as zz").message
    assert snapshot_count(session) == count


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("set nope = 1", "unknown key 'nope': the state's keys are cur_id, logs"),
        ("update {'nope': 1}", "unknown key 'nope'"),
        ("update [1, 2]", "update expects a dict of key: value, got list"),
        ("update {}", "the update is empty"),
        ("set logs = undefined_name", "NameError: name 'undefined_name' is not defined"),
        ("set logs = [", "SyntaxError"),
    ],
)
def test_a_refused_edit_changes_nothing(line: str, reason: str) -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    values, count = session.state().value, snapshot_count(session)
    assert reason in refused(session, line).message
    assert session.state().value == values
    assert snapshot_count(session) == count
    assert session.status == "paused"


def test_a_managed_value_cannot_be_edited() -> None:
    session = session_for("channels")
    ok(session, "restart")
    message = refused(session, "set remaining_steps = 3").message
    assert "'remaining_steps' is a managed value" in message


class Model(BaseModel):
    count: int = Field(default=0, ge=0)
    log: Annotated[list[str], operator.add] = []


def pydantic_graph() -> Any:
    def bump(state: Model) -> dict[str, Any]:
        return {"count": state.count + 1, "log": [f"bump {state.count}"]}

    builder = StateGraph(Model).add_node(bump)
    builder.add_edge(START, "bump")
    return builder.compile()


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("set count = 'many'", "count: Input should be a valid integer"),
        ("set count = -1", "count: Input should be greater than or equal to 0 (got -1)"),
        (
            "update {'log': 'not a list'}",
            "the reducer of 'log' (operator.add) rejects it: TypeError: can only concatenate",
        ),
        ("update {'count': [1]}", "count: Input should be a valid integer"),
        (
            "update {'log': [1]}",
            "the state schema rejects it: log.0: Input should be a valid string",
        ),
    ],
)
def test_a_pydantic_validation_error_rejects_the_edit(line: str, reason: str) -> None:
    session = Session(pydantic_graph(), input={"count": 1})
    ok(session, "restart")
    ok(session, "step")
    values, count = session.state().value, snapshot_count(session)
    assert reason in refused(session, line).message
    assert session.state().value == values
    assert snapshot_count(session) == count


def test_a_valid_pydantic_edit_is_applied() -> None:
    session = Session(pydantic_graph(), input={"count": 1})
    ok(session, "restart")
    ok(session, "step")
    ok(session, "set count = 41")
    ok(session, "update {'log': ['manual']}")
    ok(session, "continue")
    assert session.state().value == {"count": 42, "log": ["manual", "bump 41"]}


def test_editing_an_old_snapshot_starts_a_new_branch() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "continue")
    old = ok(session, "history").value
    ok(session, "goto 1")
    ok(session, "set cur_id = 'branch'")
    new = ok(session, "history").value
    assert [e.checkpoint_id for e in new[: len(old)]] == [e.checkpoint_id for e in old]
    fork, update = new[len(old)], new[len(old) + 1]
    assert (fork.source, fork.parent_index) == ("fork", 1)
    assert (update.source, update.parent_index) == ("update", fork.index)
    ok(session, "continue")
    assert session.state().value["cur_id"] == "branch:validated:done"
    heads = [e.index for e in ok(session, "history").value if e.head]
    assert len(heads) == 2  # the old branch's end and the new one's


class State(TypedDict, total=False):
    x: int
    trail: Annotated[list[str], operator.add]


def test_an_edit_at_an_error_reruns_the_whole_step() -> None:
    def b(state: State) -> dict[str, Any]:
        if state["x"] < 0:
            raise ValueError("x must not be negative")
        return {"trail": [f"b{state['x']}"]}

    def c(state: State) -> dict[str, Any]:
        return {"trail": [f"c{state['x']}"]}

    builder = StateGraph(State).add_node(b).add_node(c)
    builder.add_edge(START, "b").add_edge(START, "c")
    session = Session(builder.compile(), input={"x": -1})
    ok(session, "restart")
    ok(session, "step")
    ok(session, "task c")
    assert ok(session, "task b").status == "error"
    outcome = ok(session, "set x = 5")
    assert "1 task(s) that had run in this step will run again" in outcome.message
    ok(session, "retry")
    assert session.state().value == {"x": 5, "trail": ["b5", "c5"]}


class Ask(TypedDict, total=False):
    x: int
    answer: Any
    trail: Annotated[list[str], operator.add]


def ask_graph(sibling: bool) -> Any:
    from sgdebug.runtime import interrupt

    def ask(state: Ask) -> dict[str, Any]:
        return {"answer": (interrupt(f"x is {state['x']}?"), state["x"])}

    def note(state: Ask) -> dict[str, Any]:
        return {"trail": ["note"]}

    builder = StateGraph(Ask).add_node(ask).add_edge(START, "ask")
    if sibling:
        builder.add_node(note).add_edge(START, "note")
    return builder.compile()


def test_an_edit_at_an_interrupt_keeps_it_waiting_and_resume_answers_it() -> None:
    session = Session(ask_graph(sibling=False), input={"x": 1})
    ok(session, "restart")
    assert ok(session, "continue").status == "interrupted"
    outcome = ok(session, "set x = 7")
    assert outcome.status == "interrupted"
    assert "resume" in {spec.name for spec in available(session)}
    ok(session, "resume 'yes'")
    assert session.state().value["answer"] == ("yes", 7)


def test_an_edit_is_refused_when_siblings_of_an_interrupt_already_applied() -> None:
    session = Session(ask_graph(sibling=True), input={"x": 1})
    ok(session, "restart")
    ok(session, "continue")
    count = snapshot_count(session)
    message = refused(session, "set x = 7").message
    assert "note already ran in this interrupted step" in message
    assert snapshot_count(session) == count
    ok(session, "resume 'fine'")
    assert session.state().value == {"x": 1, "answer": ("fine", 1), "trail": ["note"]}


class Opaque:
    """A value with no literal form: ``set KEY = EXPR`` cannot spell it, ``set_value`` can."""

    def __init__(self, label: str) -> None:
        self.label = label


def test_set_value_takes_a_python_value_and_makes_one_snapshot() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    before = snapshot_count(session)
    opaque = Opaque("mine")

    outcome = session.set_value("cur_id", opaque)

    assert outcome.ok, outcome.message
    assert (outcome.command, outcome.message) == ("set", "Set cur_id.")
    assert outcome.stop is not None and outcome.stop.kind == "edit"
    assert session.state().value["cur_id"].label == "mine"
    assert snapshot_count(session) == before + 1
    assert ok(session, "history").value[-1].source == "update"


def test_set_value_bypasses_the_reducer_like_set() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    assert session.set_value("logs", ["replaced"]).ok
    assert session.state().value["logs"] == ["replaced"]


@pytest.mark.parametrize(
    ("key", "value", "expr"),
    [("nope", 1, "1"), ("count", "many", "'many'"), ("count", -1, "-1")],
)
def test_set_value_refuses_what_set_refuses_with_the_same_message(
    key: str, value: Any, expr: str
) -> None:
    by_value, by_text = (Session(pydantic_graph(), input={"count": 1}) for _ in range(2))
    for session in (by_value, by_text):
        ok(session, "restart")
        ok(session, "step")
    count = snapshot_count(by_value)

    outcome = by_value.set_value(key, value)

    assert not outcome.ok
    assert outcome.message == refused(by_text, f"set {key} = {expr}").message
    assert outcome.message.startswith(f"{key} not changed: ")
    assert snapshot_count(by_value) == count
    assert by_value.state().value == by_text.state().value


def test_set_value_refuses_a_managed_value_and_needs_a_run() -> None:
    session = session_for("channels")
    assert session.set_value("history", []).message == "no run yet: `restart [INPUT]` starts one"
    ok(session, "restart")
    message = session.set_value("remaining_steps", 3).message
    assert message == refused(session, "set remaining_steps = 3").message


def test_set_values_replaces_several_keys_in_one_edit() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    before = snapshot_count(session)

    outcome = session.set_values({"cur_id": "both", "logs": ["only"]})

    assert outcome.ok and outcome.message == "Set cur_id, logs."
    assert session.state().value == {"cur_id": "both", "logs": ["only"]}  # no reducer
    assert snapshot_count(session) == before + 1


def test_set_values_refuses_as_a_whole() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    values, count = session.state().value, snapshot_count(session)

    unknown = session.set_values({"cur_id": "x", "nope": 1})
    empty = session.set_values({})

    assert not unknown.ok and unknown.message.startswith("state not changed: unknown key 'nope'")
    assert not empty.ok and empty.message == "state not changed: nothing to set"
    assert session.state().value == values and snapshot_count(session) == count
