"""Setting attributes on a compiled graph: LangGraph's settings work, the others are refused."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, CompiledStateGraph, StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(**compile_kwargs: Any) -> CompiledStateGraph:
    b = StateGraph(S).add_node("a", lambda s: {"log": ["a"]}).add_edge(START, "a")
    return b.compile(**compile_kwargs)


def test_an_unknown_attribute_is_an_attribute_error_naming_it() -> None:
    graph = _graph()
    with pytest.raises(AttributeError, match="has no attribute 'step_timout'") as caught:
        graph.step_timout = 1
    assert "step_timeout" in str(caught.value)
    assert not hasattr(graph, "step_timout")


@pytest.mark.parametrize(
    "name", ["retry_policy", "cache_policy", "stream_eager", "stream_mode", "nodes"]
)
def test_langgraph_settings_sgdebug_lacks_are_refused_naming_them(name: str) -> None:
    graph = _graph()
    before = getattr(graph, name, None)
    with pytest.raises(NotImplementedError, match=f"CompiledStateGraph.{name} "):
        setattr(graph, name, None)
    assert getattr(graph, name, None) is before


def test_step_timeout_and_checkpointer_values_are_checked() -> None:
    graph = _graph()
    with pytest.raises(TypeError, match="step_timeout must be a number"):
        graph.step_timeout = "1"  # type: ignore[assignment]
    with pytest.raises(TypeError, match="Invalid checkpointer provided"):
        graph.checkpointer = object()
    assert graph.step_timeout is None and graph.checkpointer is None


def test_a_checkpointer_set_after_compile_keeps_the_threads() -> None:
    graph = _graph()
    graph.checkpointer = InMemorySaver()
    graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    assert graph.get_state({"configurable": {"thread_id": "t"}}).values == {"log": ["a"]}


def test_debug_set_on_the_graph_or_at_compile_prints_each_step(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for graph in (_graph(debug=True), _graph()):
        graph.debug = graph.debug or True
        assert graph.invoke({"log": []}) == {"log": ["a"]}
        out = capsys.readouterr().out
        assert "[updates]" in out and "{'a': {'log': ['a']}}" in out
    quiet = _graph(debug=True)
    quiet.debug = False
    quiet.invoke({"log": []})
    assert capsys.readouterr().out == ""


def test_copies_keep_the_guard_and_the_settings() -> None:
    graph = _graph()
    graph.step_timeout = 3
    clone = graph.with_config(recursion_limit=5)
    assert clone.step_timeout == 3
    with pytest.raises(AttributeError):
        clone.anything = 1
