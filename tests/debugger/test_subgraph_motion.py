"""Stepping inside subgraphs (``step`` into, ``next`` over, ``finish`` out, ``until PATH``),
on both engines: the same stops, frames and final values (the LangGraph engine sets the
compiled subgraphs' own interrupt_before/after for each move)."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import Outcome, Session
from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.results import EngineName, Inside
from sgdebug.runtime import Command
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.sample_graphs import nested
from sgdebug.sample_graphs._engines import api

from . import deep_graph
from .engine_scenarios import BUILT_WITH, on_both, sample, session_on, stopped, values
from .helpers import ok, refused

NOTES = ["gather: how heat pumps work", "gather: what heat pumps cost"]


def _plain_nested(answer: str) -> Any:
    """What a run of ``nested`` without the debugger ends with, ``answer`` resuming it."""
    graph = nested.build().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "plain"}}
    graph.invoke(nested.EXAMPLE_INPUT, config)
    return graph.invoke(Command(resume=answer), config)


def _deep(engine: EngineName, checkpointer: Any = None) -> Session:
    graph = deep_graph.build(BUILT_WITH[engine], checkpointer=checkpointer).compile()
    return session_on(graph, engine, deep_graph.EXAMPLE_INPUT)


def _messages(session: Session, *lines: str) -> list[str]:
    return [ok(session, line).message for line in lines]


def _said(outcome: Outcome) -> tuple[str, ...]:
    """The lines printed around the outcome's message: what ran inside subgraphs, notes."""
    return (*outcome.ran, *outcome.notes)


def _inside(session: Session) -> Inside | None:
    stop = session.view().stop
    assert stop is not None
    return stop.inside


@on_both
def test_step_goes_into_the_subgraph_and_runs_one_of_its_supersteps_at_a_time(
    engine: EngineName,
) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    assert _messages(session, "step", "step") == ["Paused before step 1.", "Paused before step 2."]
    assert session.pending_tasks == ("research",)
    into = ok(session, "step")  # the next task runs a subgraph: before its first node
    assert stopped(into) == ("paused", "step", 2)
    assert into.message == "Paused in research before gather (step 1 of research)."
    assert _inside(session) == Inside(("research",), ("gather",), 1)
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert [(t.name, t.status) for t in frame.tasks] == [("gather", "pending")]
    assert {r.name: r.value for r in frame.channels}["notes"] == []

    on = ok(session, "step")
    assert on.message == "Paused in research before summarize (step 2 of research)."
    assert "in subgraph research: gather wrote notes" in _said(on)
    assert {r.name: r.value for r in current_frame(session).channels}["notes"] == NOTES
    asked = ok(session, "step")  # summarize asks: the interrupt stops it, as at the root
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert ok(session, "resume 'costs'").status == "done"
    assert values(session) == _plain_nested("costs")


@on_both
def test_next_at_the_root_runs_the_subgraph_whole(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    ok(session, "step 2")
    asked = ok(session, "next")  # research runs whole: gather, then summarize's question
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert "in subgraph research: gather wrote notes" in _said(asked)
    assert ok(session, "resume 'costs'").status == "done"
    assert values(session) == _plain_nested("costs")

    deep = _deep(engine)
    ok(deep, "restart")
    ok(deep, "step")
    over = ok(deep, "next")
    assert stopped(over) == ("paused", "step", 2)
    assert over.message == "Paused before step 2."
    assert _inside(deep) is None
    assert values(deep) == {"log": ["in", "p", "x", "y", "q"]}


DEEP_STEPS = [
    "Paused before step 1.",
    "Paused in a before p (step 1 of a).",
    "Paused in a before b (step 2 of a).",
    "Paused in a/b before x (step 1 of a/b).",
    "Paused in a/b before y (step 2 of a/b).",
    "Paused in a before q (step 3 of a).",
    "Paused before step 2.",
    "The run finished.",
]
"""Where each ``step`` stops in the graph two subgraphs deep."""


@pytest.mark.parametrize("checkpointer", [None, True], ids=["inherited", "checkpointer=True"])
@on_both
def test_step_goes_two_subgraphs_deep_and_back_out_without_changing_the_result(
    engine: EngineName, checkpointer: Any
) -> None:
    session = _deep(engine, checkpointer)
    ok(session, "restart")
    assert _messages(session, *["step"] * len(DEEP_STEPS)) == DEEP_STEPS
    assert values(session) == {"log": deep_graph.LOG}
    plain = deep_graph.build(checkpointer=checkpointer).compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "plain"}}
    assert values(session) == plain.invoke(deep_graph.EXAMPLE_INPUT, config)


@on_both
def test_step_n_counts_the_supersteps_of_every_graph_and_stops_sooner_at_an_interrupt(
    engine: EngineName,
) -> None:
    session = _deep(engine)
    ok(session, "restart")
    five = ok(session, "step 5")
    assert five.message == DEEP_STEPS[4]
    assert _said(five).count("in subgraph a: p wrote log") == 1
    assert "in subgraph a/b: x wrote log" in _said(five)
    assert not any("stands before x" in note for note in five.notes)  # (passed, not stood at)

    asked = sample("nested", engine)
    ok(asked, "restart")
    assert stopped(ok(asked, "step 9")) == ("interrupted", "interrupt", 2)


@on_both
def test_next_inside_a_subgraph_steps_over_the_subgraphs_it_runs(engine: EngineName) -> None:
    session = _deep(engine)
    ok(session, "restart")
    ok(session, "step 3")  # in a, before b
    over = ok(session, "next")
    assert over.message == "Paused in a before q (step 3 of a)."
    assert "in subgraph a/b: y wrote log" in _said(over)
    ok(session, "restart")
    ok(session, "step 4")  # in a/b, before x
    assert _messages(session, "next", "next", "next") == [
        "Paused in a/b before y (step 2 of a/b).",  # within b
        "Paused in a before q (step 3 of a).",  # b ended: a's next step
        "Paused before step 2.",  # a ended: the root's
    ]


@on_both
def test_next_in_the_frame_shown_after_up_runs_that_frames_superstep(engine: EngineName) -> None:
    session = _deep(engine)
    ok(session, "restart")
    ok(session, "step 4")  # in a/b, before x
    assert ok(session, "up").message == "Frame: parent \u203a a"
    assert ok(session, "next").message == "Paused in a before q (step 3 of a)."
    ok(session, "up")
    assert ok(session, "next").message == "Paused before step 2."  # the root's, a whole


@on_both
def test_finish_runs_to_the_end_of_the_subgraph_and_stops_in_the_frame_above(
    engine: EngineName,
) -> None:
    session = _deep(engine)
    ok(session, "restart")
    ok(session, "step 4")  # in a/b, before x
    out = ok(session, "finish")
    assert stopped(out) == ("paused", "finish", 1)
    assert out.message == "Finished a/b: paused in a before q (step 3 of a)."
    assert [n for n in _said(out) if n.startswith("in subgraph a/b")] == [
        "in subgraph a/b: x wrote log",
        "in subgraph a/b: y wrote log",
    ]
    assert current_frame(session).breadcrumb == "parent \u203a a"
    assert ok(session, "finish").message == "Finished a: paused before step 2."
    assert current_frame(session).breadcrumb == ""
    message = refused(session, "finish").message
    assert "the run is in the root graph, not inside a subgraph" in message
    assert ok(session, "continue").status == "done"
    assert values(session) == {"log": deep_graph.LOG}


@on_both
def test_finish_after_up_finishes_the_frame_shown(engine: EngineName) -> None:
    session = _deep(engine)
    ok(session, "restart")
    ok(session, "step 4")  # in a/b
    ok(session, "up")  # a's frame
    assert ok(session, "finish").message == "Finished a: paused before step 2."


@on_both
def test_finish_stops_sooner_at_the_subgraphs_interrupt(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    ok(session, "step 3")  # in research, before gather
    assert stopped(ok(session, "finish")) == ("interrupted", "interrupt", 2)
    ok(session, "resume 'costs'")
    assert values(session) == _plain_nested("costs")


@on_both
def test_until_an_inner_node_stops_before_it_in_its_frame(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    reached = ok(session, "until research/summarize")
    assert stopped(reached) == ("paused", "until", 2)
    assert reached.message == (
        "Reached research/summarize: paused in research before summarize (step 2 of research)."
    )
    assert current_frame(session).breadcrumb == "parent \u203a research"
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)

    deep = _deep(engine)
    ok(deep, "restart")
    assert ok(deep, "until a/b/y").message == (
        "Reached a/b/y: paused in a/b before y (step 2 of a/b)."
    )
    assert ok(deep, "until a/b/y").status == "done"  # it does not run again
    assert values(deep) == {"log": deep_graph.LOG}


@on_both
def test_a_breakpoint_inside_stops_a_step_as_itself(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "break before research/summarize")
    ok(session, "restart")
    ok(session, "step 3")  # in research, before gather
    hit = ok(session, "step")
    assert stopped(hit) == ("paused", "breakpoint", 2)
    assert hit.message == "Stopped before step 2 at breakpoint 1 (before research/summarize)."
    assert _inside(session) == Inside(("research",), ("summarize",), 2)


def test_langgraph_runs_a_subgraph_compiled_without_a_checkpointer_whole() -> None:
    """``checkpointer=False``: the subgraph keeps no checkpoint to stop at; ``step`` runs it
    (and the subgraph inside it) whole, as one of the root's supersteps."""
    session = _deep("langgraph", checkpointer=False)
    ok(session, "restart")
    ok(session, "step")
    whole = ok(session, "step")
    assert whole.message == "Paused before step 2."
    assert _inside(session) is None
    assert "in subgraph a/b: y wrote log" in _said(whole)
    assert ok(session, "continue").status == "done"
    assert values(session) == {"log": deep_graph.LOG}


class Log(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _beside_a_plain_task(engine: EngineName) -> Any:
    """``START -> (A, B, C) -> after``: A and B run subgraphs ``i1 -> i2``, C a plain node,
    all three in one superstep; every node appends to ``log`` (a reducer)."""
    lg = api(BUILT_WITH[engine])
    START, StateGraph = lg.START, lg.StateGraph

    def sub(tag: str) -> Any:
        inner = StateGraph(Log).add_node("i1", lambda s: {"log": [f"{tag}1"]})
        inner.add_node("i2", lambda s: {"log": [f"{tag}2"]})
        return inner.add_edge(START, "i1").add_edge("i1", "i2").compile()

    top = StateGraph(Log).add_node("A", sub("a")).add_node("B", sub("b"))
    top.add_node("C", lambda s: {"log": ["c"]}).add_node("after", lambda s: {"log": ["after"]})
    for node in ("A", "B", "C"):
        top.add_edge(START, node)
    return top.add_edge(["A", "B", "C"], "after").compile()


@pytest.mark.parametrize(
    "lines",
    [
        ["break before A/i2", "continue", "continue"],
        ["step 2", "step", "step", "step"],
        ["step 2", "finish", "step"],
    ],
    ids=["break inside", "step through", "finish"],
)
@on_both
def test_a_stop_inside_a_subgraph_beside_other_tasks_applies_their_writes_once(
    engine: EngineName, lines: list[str]
) -> None:
    graph = _beside_a_plain_task(engine)
    plain = graph.invoke({"log": []})
    session = session_on(graph, engine, {"log": []})
    ok(session, "restart")
    stops = [ok(session, line).stop for line in lines]
    assert any(stop is not None and stop.inside is not None for stop in stops)
    assert session.status == "done"
    assert values(session) == plain == {"log": ["a1", "a2", "b1", "b2", "c", "after"]}


@on_both
def test_a_stop_at_a_breakpoint_the_subgraph_was_compiled_with_says_where(
    engine: EngineName,
) -> None:
    lg = api(BUILT_WITH[engine])
    research = nested.build_research(BUILT_WITH[engine]).compile(interrupt_before=["summarize"])
    top = lg.StateGraph(nested.State).add_node("research", research)
    session = session_on(top.add_edge(lg.START, "research").compile(), engine, nested.EXAMPLE_INPUT)
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stopped(stop) == ("paused", "breakpoint", 1)
    assert stop.message == (
        "Stopped in research before summarize (step 2 of research), at a breakpoint the "
        "subgraph was compiled with."
    )
    assert stopped(ok(session, "step")) == ("interrupted", "interrupt", 1)  # past it


class Items(TypedDict, total=False):
    items: list[str]
    out: Annotated[list[str], operator.add]


class Item(TypedDict, total=False):
    item: str
    out: Annotated[list[str], operator.add]


def _reviews_by_send(engine: EngineName) -> Any:
    """``START`` sends each item to ``review`` (``draft -> check``): two runs of the
    subgraph in one superstep."""
    lg = api(BUILT_WITH[engine])
    review = lg.StateGraph(Item)
    review.add_node("draft", lambda s: {"out": ["d" + s["item"]]})
    review.add_node("check", lambda s: {"out": ["c" + s["item"]]})
    review.add_edge(lg.START, "draft").add_edge("draft", "check")
    top = lg.StateGraph(Items).add_node("review", review.compile())
    fan = lambda s: [lg.Send("review", {"item": i}) for i in s["items"]]  # noqa: E731
    return top.add_conditional_edges(lg.START, fan).compile()


def _twice(engine: EngineName) -> Any:
    """One compiled subgraph (``x -> y``) added as two nodes, ``a -> b``."""
    lg = api(BUILT_WITH[engine])
    sub = lg.StateGraph(Log).add_node("x", lambda s: {"log": ["x"]})
    sub = sub.add_node("y", lambda s: {"log": ["y"]}).add_edge(lg.START, "x").add_edge("x", "y")
    inner = sub.compile()
    top = lg.StateGraph(Log).add_node("a", inner).add_node("b", inner)
    return top.add_edge(lg.START, "a").add_edge("a", "b").compile()


@on_both
def test_subgraphs_run_by_sends_in_one_step_stop_together_and_end_as_a_plain_run(
    engine: EngineName,
) -> None:
    given = {"items": ["1", "2"]}
    plain = _reviews_by_send(engine).invoke(given)
    session = session_on(_reviews_by_send(engine), engine, given)
    ok(session, "restart")
    assert _messages(session, "step", "step", "step", "step") == [
        "Paused before step 1.",
        "Paused in review before draft (step 1 of review).",  # (the first one is shown)
        "Paused in review before check (step 2 of review).",
        "The run finished.",
    ]
    assert values(session) == plain == {"items": ["1", "2"], "out": ["d1", "c1", "d2", "c2"]}


@on_both
def test_a_subgraph_added_as_two_nodes_stops_only_in_the_frame_asked_for(
    engine: EngineName,
) -> None:
    plain = _twice(engine).invoke({"log": []})
    session = session_on(_twice(engine), engine, {"log": []})
    ok(session, "break before b/x")
    ok(session, "restart")
    hit = ok(session, "continue")  # not in a, which runs the same compiled subgraph
    assert hit.message == "Stopped before step 2 at breakpoint 1 (before b/x)."
    assert _inside(session) == Inside(("b",), ("x",), 1)
    assert ok(session, "continue").status == "done"
    assert values(session) == plain
