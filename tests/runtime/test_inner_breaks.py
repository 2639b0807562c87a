"""Breakpoints on a subgraph's nodes by path (``Run.options.inner_breaks``)."""

from __future__ import annotations

from typing import Any

import pytest

from sgdebug.runtime import StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.engine._inner_breaks import InnerBreaks
from sgdebug.sample_graphs import nested
from sgdebug.sample_graphs.nested import build


def _nested() -> Any:
    return build().compile(checkpointer=InMemorySaver())


def _inner_state(graph: Any, config: dict[str, Any]) -> Any:
    return graph.get_state(config, subgraphs=True).tasks[0].state


def test_a_break_before_an_inner_node_stops_the_subgraph_and_its_parent_there() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    breaks = InnerBreaks(before=frozenset({"research/summarize"}))
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=breaks)
    assert run.advance() == "interrupted"
    assert run.interrupts == ()  # a breakpoint, not the subgraph's interrupt()
    inner = _inner_state(graph, config)
    assert inner.next == ("summarize",)
    assert inner.values["notes"] == ["gather: how heat pumps work", "gather: what heat pumps cost"]
    # resuming re-enters the subgraph past the breakpoint: on to summarize's interrupt()
    resumed = graph.start(None, config, inner_breaks=breaks)
    assert resumed.advance() == "interrupted"
    assert [i.value["question"] for i in resumed.interrupts] == [nested.QUESTION]


def test_a_break_after_an_inner_node_stops_once_it_has_run() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    run = graph.start(
        nested.EXAMPLE_INPUT, config, inner_breaks=InnerBreaks(after=frozenset({"research/gather"}))
    )
    assert run.advance() == "interrupted"
    assert run.interrupts == ()
    inner = _inner_state(graph, config)
    assert inner.next == ("summarize",)
    assert len(inner.values["notes"]) == 2


def test_paths_of_other_frames_and_runs_without_breaks_change_nothing() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    elsewhere = InnerBreaks(before=frozenset({"write/summarize", "research/nowhere"}))
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=elsewhere)
    assert run.advance() == "interrupted"
    assert [i.value["question"] for i in run.interrupts] == [nested.QUESTION]
    plain = _nested().start(nested.EXAMPLE_INPUT, {"configurable": {"thread_id": "u"}})
    assert plain.options.inner_breaks is None
    assert plain.advance() == "interrupted" and plain.interrupts


def test_breaks_set_on_a_live_run_reach_the_subgraph_runs_started_after() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    run = graph.start(nested.EXAMPLE_INPUT, config)
    run.options.inner_breaks = InnerBreaks(before=frozenset({"research/gather"}))
    assert run.advance() == "interrupted" and run.interrupts == ()
    assert _inner_state(graph, config).next == ("gather",)


def test_a_deeper_path_reaches_a_subgraph_of_a_subgraph() -> None:
    outer = StateGraph(nested.State)
    outer.add_node("outer", build().compile())
    outer.set_entry_point("outer")
    graph, config = (
        outer.compile(checkpointer=InMemorySaver()),
        {"configurable": {"thread_id": "t"}},
    )
    breaks = InnerBreaks(before=frozenset({"outer/research/summarize"}))
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=breaks)
    assert run.advance() == "interrupted" and run.interrupts == ()
    deep = _inner_state(graph, config).tasks[0].state
    assert deep.next == ("summarize",)


def test_an_inner_break_names_a_path() -> None:
    with pytest.raises(ValueError, match="node path"):
        InnerBreaks(before=frozenset({"summarize"}))


def _resumed(graph: Any, config: dict[str, Any], breaks: InnerBreaks) -> Any:
    run = graph.start(None, config, inner_breaks=breaks)
    run.advance()
    return run


def test_a_frames_wildcard_stops_before_each_of_its_supersteps() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    breaks = InnerBreaks(before=frozenset({"research/*"}))
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=breaks)
    assert run.advance() == "interrupted" and run.interrupts == ()
    assert _inner_state(graph, config).next == ("gather",)  # before its first node
    assert run.step == 2  # the parent still stands before its step running research
    again = _resumed(graph, config, breaks)
    assert again.status == "interrupted" and again.interrupts == ()
    assert _inner_state(graph, config).next == ("summarize",)
    asked = _resumed(graph, config, breaks)  # past it: summarize asks its question
    assert [i.value["question"] for i in asked.interrupts] == [nested.QUESTION]


def test_a_frames_wildcard_after_stops_once_each_superstep_committed() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    breaks = InnerBreaks(after=frozenset({"research/*"}))
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=breaks)
    assert run.advance() == "interrupted" and run.interrupts == ()
    inner = _inner_state(graph, config)
    assert inner.next == ("summarize",) and len(inner.values["notes"]) == 2


def test_a_frames_wildcard_names_no_node_of_the_subgraphs_it_runs() -> None:
    outer = StateGraph(nested.State)
    outer.add_node("outer", build().compile())
    outer.set_entry_point("outer")
    graph = outer.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    breaks = InnerBreaks(before=frozenset({"outer/*"}))
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=breaks)
    assert run.advance() == "interrupted" and run.interrupts == ()
    assert _inner_state(graph, config).next == ("plan",)  # outer's first node
    on = _resumed(graph, config, breaks)
    assert on.interrupts == () and _inner_state(graph, config).next == ("research",)
    # research's own nodes (gather) run without a stop: on to summarize's question
    asked = _resumed(graph, config, breaks)
    assert [i.value["question"] for i in asked.interrupts] == [nested.QUESTION]


def test_a_wildcard_covers_the_nodes_a_subgraph_was_compiled_to_stop_at() -> None:
    from sgdebug.runtime.engine._inner_breaks import with_inner_breaks

    breaks = InnerBreaks(before=frozenset({"research/*", "research/gather"}))
    assert with_inner_breaks(breaks, ("research",), ("summarize",), ()) == ("*", ())
    assert with_inner_breaks(breaks, ("other",), ("x",), "*") == (("x",), "*")


def test_a_wildcard_path_stops_after_every_superstep_of_that_frame_only() -> None:
    graph, config = _nested(), {"configurable": {"thread_id": "t"}}
    breaks = InnerBreaks(after=frozenset({"research/*"}))
    stops: list[tuple[int, tuple[str, ...]]] = []
    run = graph.start(nested.EXAMPLE_INPUT, config, inner_breaks=breaks)
    while run.advance() == "interrupted" and not run.interrupts:
        inner = _inner_state(graph, config)
        stops.append((inner.metadata["step"], inner.next))
        run = graph.start(None, config, inner_breaks=breaks)
    # after gather (step 1: summarize next); summarize asks before it can commit
    assert stops == [(1, ("summarize",))]
    assert [i.value["question"] for i in run.interrupts] == [nested.QUESTION]
    assert breaks.nodes_in(("research",)) == ((), ("*",))
    assert breaks.nodes_in(("research", "deeper")) == ((), ())
