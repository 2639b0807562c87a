"""Python at the prompt: values, statements, variables, and ``state[...]`` edits that are real."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import Session, Target, run_line
from sgdebug.repl.python import PythonRunner, same
from sgdebug.runtime import START, StateGraph

SessionFactory = Callable[..., Session]


@pytest.fixture
def paused(make_session: SessionFactory) -> Session:
    """The loop sample stopped before ``attempt`` runs: count 0."""
    session = make_session("loop")
    session.break_("before", "attempt")
    session.continue_()
    assert session.view().values == {"count": 0}
    return session


def test_an_expression_gives_its_value(paused: Session) -> None:
    result = PythonRunner(paused).run('state["count"] + 41')

    assert result.value == 41 and result.shown
    assert result.error is None and result.edit is None


def test_names_of_the_session_and_of_the_module(paused: Session) -> None:
    runner = PythonRunner(paused)

    assert runner.run("session is __import__('builtins').globals().get('session', session)").value
    assert runner.run("[t.name for t in tasks]").value == ["attempt"]
    assert runner.run("graph.name").value == paused.engine.graph.name
    assert runner.run("attempt({'count': 1})").value == {"count": 2, "status": "attempt 2"}
    assert runner.run("snapshot.next").value == ("attempt",)


def test_statements_keep_their_variables_between_lines(paused: Session) -> None:
    runner = PythonRunner(paused)

    assert runner.run("x = 20").shown is False
    runner.run("def double(v):\n    return v * 2\n")
    runner.run("import math")

    assert runner.run("double(x) + math.floor(1.5)").value == 41
    runner.run("del x")
    assert "NameError" in (runner.run("x").error or "")


def test_variables_survive_leaving_and_reentering_the_repl(paused: Session) -> None:
    PythonRunner(paused).run("kept = 'yes'")

    assert PythonRunner(paused).run("kept").value == "yes"


def test_repl_variables_reach_the_sessions_own_expressions(paused: Session) -> None:
    runner = PythonRunner(paused)
    runner.run("target = 7")

    with runner.installed():
        outcome = run_line(paused, "set count = target")
        condition = run_line(paused, "break before report if state['count'] > target")
    after = run_line(paused, "print target")

    assert outcome is not None and outcome.ok, outcome
    assert condition is not None and condition.ok
    assert paused.view().values["count"] == 7
    assert after is not None and not after.ok  # outside the REPL the name is gone


def test_assigning_a_state_key_is_a_real_edit(paused: Session) -> None:
    runner = PythonRunner(paused)
    history = len(paused.history().value)

    result = runner.run('state["count"] = 2')

    assert result.edit is not None and result.edit.ok
    assert result.edit.message == "Set count."
    assert paused.view().values["count"] == 2
    assert len(paused.history().value) == history + 1  # a new snapshot
    paused.continue_()
    assert paused.view().values["status"] == "done after 3 attempts"


def test_changing_a_value_in_place_is_an_edit_too(make_session: SessionFactory) -> None:
    session = make_session("fanout")  # ``trail`` is a list under an ``operator.add`` reducer
    session.step(1)
    assert session.view().values["trail"] == ["a"]

    result = PythonRunner(session).run("state['trail'].append('typed')")

    assert result.edit is not None and result.edit.ok, result.edit
    assert session.view().values["trail"] == ["a", "typed"]  # replaced, not added to


def test_augmented_assignment_and_several_keys(paused: Session) -> None:
    runner = PythonRunner(paused)

    one = runner.run('state["count"] += 5')
    two = runner.run('state.update(count=1, status="edited")')

    assert one.edit is not None and one.edit.ok
    assert two.edit is not None and two.edit.ok
    assert paused.view().values == {"count": 1, "status": "edited"}


def test_several_keys_are_one_set_not_an_update(paused: Session) -> None:
    runner = PythonRunner(paused)
    history = len(paused.history().value)

    result = runner.run('state.update(count=4, status="edited")')

    assert result.edit is not None and result.edit.ok
    assert (result.edit.command, result.edit.message) == ("set", "Set count, status.")
    assert len(paused.history().value) == history + 1


def test_the_edit_hands_the_session_the_value_itself(
    paused: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = PythonRunner(paused)
    runner.run("marker = object()")
    given: list[tuple[str, Any]] = []
    real = paused.set_value

    def spy(key: str, value: Any) -> Any:
        given.append((key, value))
        return real(key, value)

    def no_text_set(key: str, expr: str) -> Any:
        raise AssertionError(f"the REPL edit went through the text `set` ({expr!r})")

    monkeypatch.setattr(paused, "set_value", spy)
    monkeypatch.setattr(paused, "set", no_text_set)

    result = runner.run('state["status"] = marker')

    assert result.edit is not None and result.edit.ok, result.edit
    assert given == [("status", runner.variables["marker"])]
    assert given[0][1] is runner.variables["marker"]
    assert sorted(runner.variables) == ["marker"]  # nothing hidden left behind


def test_reading_state_changes_nothing(paused: Session) -> None:
    runner = PythonRunner(paused)
    history = len(paused.history().value)

    for line in ('state["count"]', "sorted(state.items())", 'state["count"] = state["count"]'):
        assert runner.run(line).edit is None
    assert len(paused.history().value) == history


def test_an_edit_the_state_refuses_changes_nothing(paused: Session) -> None:
    runner = PythonRunner(paused)

    unknown = runner.run('state["nope"] = 1')
    deleted = runner.run('del state["count"]')

    assert unknown.edit is not None and not unknown.edit.ok
    assert "unknown key 'nope'" in unknown.edit.message
    assert deleted.edit is not None and not deleted.edit.ok
    assert "cannot be deleted" in deleted.edit.message
    assert paused.view().values == {"count": 0}


def test_a_line_that_raises_edits_nothing(paused: Session) -> None:
    result = PythonRunner(paused).run('state["count"] = 9\n1 / 0')

    assert result.error is not None and "ZeroDivisionError" in result.error
    assert "<sgdebug>" in result.error and "repl/python.py" not in result.error
    assert result.edit is None
    assert paused.view().values == {"count": 0}


def test_rebinding_state_is_not_an_edit(paused: Session) -> None:
    runner = PythonRunner(paused)

    result = runner.run("state = {'count': 99}")

    assert result.edit is None
    assert any("'state' is the session's" in note for note in result.notes)
    assert runner.run('state["count"]').value == 0


def test_reducer_keys_are_replaced_not_reduced() -> None:
    class State(TypedDict):
        log: Annotated[list[str], operator.add]

    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_edge(START, "a")
    session = Session(Target(builder.compile(), {}, "log"), input={"log": ["in"]})
    session.restart()
    session.step(1)

    PythonRunner(session).run('state["log"] = ["replaced"]')

    assert session.view().values["log"] == ["replaced"]


def test_syntax_errors_and_exit() -> None:
    builder = StateGraph(dict)
    builder.add_node("a", lambda s: {})
    builder.add_edge(START, "a")
    session = Session(Target(builder.compile(), {}, "d"))
    runner = PythonRunner(session)

    assert "SyntaxError" in (runner.run("1 +").error or "")
    assert runner.run("exit()").quit


def test_same_compares_values_and_identity_objects() -> None:
    class Plain:
        def __init__(self, v: Any) -> None:
            self.v = v

        def __repr__(self) -> str:
            return f"Plain({self.v})"

    assert same([1, 2], [1, 2])
    assert not same([1], [1, 2])
    assert same(Plain(1), Plain(1))  # a deep copy of an object without __eq__
    assert not same(Plain(1), Plain(2))


def test_names_bound_before_an_error_are_kept(paused: Session) -> None:
    runner = PythonRunner(paused)

    result = runner.run("early = 1\n1 / 0\nlate = 2")

    assert result.error is not None
    assert runner.run("early").value == 1
    assert "NameError" in (runner.run("late").error or "")


def test_a_channel_changed_in_place_by_its_bare_name_is_an_edit(
    make_session: SessionFactory,
) -> None:
    session = make_session("fanout")
    session.step(1)
    runner = PythonRunner(session)

    assert runner.run("len(trail)").value == 1
    result = runner.run("trail.append('typed')")

    assert result.edit is not None and result.edit.ok, result.edit
    assert session.view().values["trail"] == ["a", "typed"]


@pytest.mark.parametrize("engine", ["native", "langgraph"])
def test_python_in_a_subgraph_frame_reads_and_edits_the_subgraphs_state(engine: str) -> None:
    from tests.debugger.engine_scenarios import sample

    session = sample("nested", engine)  # type: ignore[arg-type]
    session.restart()
    session.continue_()  # stopped at the interrupt() inside research
    runner = PythonRunner(session)
    assert runner.run("len(state['notes'])").value == 2
    result = runner.run("state['notes'].append('mine')")
    assert result.error is None and result.edit is not None and result.edit.ok
    assert session.state().value["notes"][-1] == "mine"  # the subgraph's own checkpoint
    assert "notes" not in session.view().values  # the parent's state is untouched
    session.up()
    assert runner.run("'notes' in state").value is False


class _Visits(TypedDict):
    user: str
    store: int


def test_store_names_the_graphs_store_and_else_a_channel_may_use_the_name() -> None:
    from sgdebug.runtime.store import BaseStore, InMemoryStore

    def greet(state: _Visits, store: BaseStore) -> dict[str, Any]:
        store.put(("users",), state["user"], {"seen": True})
        return {}

    kept = InMemoryStore()
    builder = StateGraph(_Visits).add_node("greet", greet).add_edge(START, "greet")
    with_store = Session(Target(builder.compile(store=kept)), input={"user": "ann", "store": 0})
    with_store.restart()
    with_store.continue_()
    runner = PythonRunner(with_store)
    assert runner.run("store is graph.store").value is True
    assert runner.run("store.get(('users',), 'ann').value").value == {"seen": True}
    assert "store" in runner.names()

    plain = StateGraph(_Visits).add_node("greet", lambda s: {"store": 7}).add_edge(START, "greet")
    without = Session(Target(plain.compile()), input={"user": "ann", "store": 0})
    without.restart()
    without.continue_()
    assert PythonRunner(without).run("store").value == 7  # the channel, by its bare name
