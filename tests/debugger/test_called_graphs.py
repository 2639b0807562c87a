"""Finding the compiled graph a node's function invokes (``sub.invoke(...)`` in its code),
for a subgraph frame's channel table and edits, on graphs of either engine."""

from __future__ import annotations

import functools
from typing import Any, TypedDict

import pytest

from sgdebug.debugger.called_graphs import called_graph, called_graphs, graph_fits
from sgdebug.debugger.subframes import frame_chain
from sgdebug.runtime import StateSnapshot
from sgdebug.sample_graphs import Engine, api

ENGINES: tuple[Engine, ...] = ("sgdebug", "langgraph")


class Draft(TypedDict):
    draft: str


class Other(TypedDict):
    other: str


def _graph(engine: Engine, schema: type, node: str, name: str) -> Any:
    lg = api(engine)
    builder = lg.StateGraph(schema)
    builder.add_node(node, lambda s: {})
    builder.add_edge(lg.START, node)
    return builder.compile(name=name)


def _parent(engine: Engine, action: Any) -> Any:
    """A one-node graph whose node ``call`` runs ``action``."""
    lg = api(engine)
    builder = lg.StateGraph(Draft)
    builder.add_node("call", action)
    builder.add_edge(lg.START, "call")
    return builder.compile()


def _snapshot(values: dict[str, Any], waiting: tuple[str, ...]) -> StateSnapshot:
    return StateSnapshot(values, waiting, {}, {}, None, None, (), ())


def _from_globals(source: str, **names: Any) -> Any:
    scope: dict[str, Any] = dict(names)
    exec(compile(source, "<node>", "exec"), scope)
    return scope["node"]


AT_WRITE = _snapshot({"draft": "x"}, ("write",))
"""A snapshot of the ``write`` graphs below, before their node."""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_graph_the_function_names_as_a_global_is_found(engine: Engine) -> None:
    sub = _graph(engine, Draft, "write", "sub")
    node = _from_globals("def node(s):\n    return SUB.invoke(s)", SUB=sub, unused=_graph(
        engine, Draft, "write", "not_named"))  # fmt: skip
    parent = _parent(engine, node)
    assert called_graphs(parent, "call") == (sub,)
    assert called_graph(parent, "call", AT_WRITE).graph is sub


@pytest.mark.filterwarnings("ignore:The 'config' parameter should be typed")  # (sub.invoke)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_graph_in_the_closure_a_default_or_a_helper_is_found(engine: Engine) -> None:
    sub = _graph(engine, Draft, "write", "sub")

    def in_closure(state: Draft) -> Any:
        return sub.invoke(state)

    def by_default(state: Draft, graph: Any = sub) -> Any:
        return graph.invoke(state)

    def helper(state: Draft) -> Any:  # (a function of this module: looked into)
        return sub.invoke(state)

    def via_helper(state: Draft) -> Any:
        return helper(state)

    class Holder:
        def __init__(self) -> None:
            self.graph = sub

        def run(self, state: Draft) -> Any:
            return self.graph.invoke(state)

    partial = functools.partial(lambda state, graph: graph.invoke(state), graph=sub)
    for action in (in_closure, by_default, via_helper, Holder().run, partial, sub.invoke):
        assert called_graphs(_parent(engine, action), "call") == (sub,), action
    elsewhere = _from_globals("def node(s):\n    return SUB.invoke(s)", SUB=sub)

    def via_another_module(state: Draft) -> Any:
        return elsewhere(state)

    assert called_graphs(_parent(engine, via_another_module), "call") == ()  # (not looked into)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_function_that_names_no_graph_gives_no_graph_and_says_why(engine: Engine) -> None:
    parent = _parent(engine, lambda s: {"draft": s["draft"] + "!"})
    assert called_graphs(parent, "call") == ()
    found = called_graph(parent, "call", AT_WRITE)
    assert found.graph is None
    assert found.note == (
        "The graph call calls is not known: its function names no compiled graph (globals, "
        "closure, defaults); its channels show the snapshot's values (no reducers, no edits)."
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_of_two_graphs_the_one_the_snapshot_fits_is_chosen(engine: Engine) -> None:
    drafts = _graph(engine, Draft, "write", "drafts")
    others = _graph(engine, Other, "note", "others")
    parent = _parent(engine, lambda s: (others if s else drafts).invoke(s))
    assert set(called_graphs(parent, "call")) == {drafts, others}
    assert called_graph(parent, "call", AT_WRITE).graph is drafts
    assert called_graph(parent, "call", _snapshot({"other": ""}, ("note",))).graph is others
    misfit = called_graph(parent, "call", _snapshot({"nope": 1}, ()))
    assert misfit.graph is None and "the 2 compiled graph(s) its function names do not fit" in (
        misfit.note
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_two_graphs_that_both_fit_give_none_naming_both(engine: Engine) -> None:
    first = _graph(engine, Draft, "write", "first")
    second = _graph(engine, Draft, "write", "second")
    parent = _parent(engine, lambda s: (first if s else second).invoke(s))
    found = called_graph(parent, "call", AT_WRITE)
    assert found.graph is None
    assert "its function names 2 compiled graphs that fit it ('first', 'second')" in found.note


def test_a_snapshot_fits_a_graph_by_its_channels_and_nodes() -> None:
    sub = _graph("sgdebug", Draft, "write", "sub")
    assert graph_fits(sub, AT_WRITE)
    assert graph_fits(sub, _snapshot({}, ()))
    assert not graph_fits(sub, _snapshot({"draft": "x"}, ("elsewhere",)))
    assert not graph_fits(sub, _snapshot({"draft": "x", "more": 1}, ("write",)))


def test_the_lookup_runs_no_user_code() -> None:
    touched: list[str] = []

    class Sneaky:
        def __getattr__(self, name: str) -> Any:
            touched.append(name)
            raise AttributeError(name)

    sneaky = Sneaky()
    parent = _parent("sgdebug", lambda s: sneaky.invoke(s))
    assert called_graphs(parent, "call") == ()
    assert touched == []


def test_a_frame_of_a_called_subgraph_gets_its_graph_or_its_note() -> None:
    from sgdebug.debugger.results import TaskInfo

    sub = _graph("sgdebug", Draft, "write", "sub")
    started = AT_WRITE._replace(config={"configurable": {"checkpoint_id": "1"}})
    task = TaskInfo("t1", "call", (), None, (), False, False, subgraph=started)
    [frame] = frame_chain(_parent("sgdebug", lambda s: sub.invoke(s)), (task,))
    assert frame.graph is sub and frame.note == ""
    [blind] = frame_chain(_parent("sgdebug", lambda s: s), (task,))
    assert blind.graph is None and blind.note.startswith("The graph call calls is not known")
