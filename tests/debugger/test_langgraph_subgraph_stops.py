"""A user's program written with LangGraph's imports, stopped inside its subgraphs on the
langgraph engine: step into, finish out, breakpoints there, and what a plain LangGraph run
of the same program gives. Each move sets the compiled subgraphs' own interrupt_before/after
and gives the user's values back."""

from __future__ import annotations

import itertools
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt

from sgdebug.debugger import Session, SessionOptions, run_line
from sgdebug.debugger.breakpoints import BreakpointTable
from sgdebug.debugger.driver import Goal
from sgdebug.debugger.engines._lg_breaks import armed, placements
from sgdebug.debugger.frame import current_frame
from sgdebug.runtime.engine._inner_breaks import InnerBreaks

from .helpers import ok


class Review(TypedDict, total=False):
    draft: str
    verdict: str
    notes: Annotated[list[str], operator.add]


def critique(state: Review) -> dict[str, Any]:
    answer = interrupt(f"Approve this draft? {state['draft']}")
    return {"verdict": str(answer), "notes": ["critique"]}


def polish(state: Review) -> dict[str, Any]:
    return {"draft": state["draft"] + "!", "notes": ["polish"]}


class Doc(TypedDict, total=False):
    topic: str
    sections: Annotated[list[str], operator.add]
    draft: str
    verdict: str


def fan(state: Doc) -> list[Send]:
    return [Send("write", {"topic": f"{state['topic']} part {i}"}) for i in range(2)]


def write(state: Doc) -> dict[str, Any]:  # (a Send's {"topic": ...})
    return {"sections": [state["topic"].upper()]}


def join(state: Doc) -> dict[str, Any]:
    return {"draft": " / ".join(state["sections"])}


def review_subgraph(**compile: Any) -> Any:
    review = StateGraph(Review)
    review.add_node("polish", polish)
    review.add_node("critique", critique)
    review.add_edge(START, "polish")
    review.add_edge("polish", "critique")
    return review.compile(**compile)


def user_program(review: Any) -> Any:
    """``plan`` fans out to ``write`` (Send), ``join``, then the ``review`` subgraph
    (``polish`` -> ``critique``, which asks ``interrupt()``)."""
    builder = StateGraph(Doc)
    builder.add_node("plan", lambda state: {})
    builder.add_node("write", write)
    builder.add_node("join", join)
    builder.add_node("review", review)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", fan, ["write"])
    builder.add_edge("write", "join")
    builder.add_edge("join", "review")
    return builder.compile(checkpointer=InMemorySaver())


INPUT = {"topic": "t"}


def plain_run(answer: str) -> Any:
    """What LangGraph itself ends the program with, ``answer`` resuming its interrupt."""
    graph = user_program(review_subgraph())
    config: Any = {"configurable": {"thread_id": "plain"}}
    graph.invoke(INPUT, config)
    return graph.invoke(Command(resume=answer), config)


def session_on(graph: Any) -> Session:
    counter = itertools.count(1)
    options = SessionOptions(thread_ids=lambda: f"run-{next(counter)}")
    session = Session(graph, input=INPUT, options=options)
    assert session.engine.capabilities.engine == "langgraph"
    return session


def test_step_into_the_subgraph_finish_out_of_it_and_end_as_a_plain_run() -> None:
    review = review_subgraph()
    session = session_on(user_program(review))
    ok(session, "restart")
    ok(session, "step 4")  # __start__, plan, write x2, join: review is next
    assert session.pending_tasks == ("review",)
    into = ok(session, "step")
    assert into.message == "Paused in review before polish (step 1 of review)."
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a review"
    assert {r.name: r.value for r in frame.channels}["draft"] == "T PART 0 / T PART 1"
    assert [(t.name, t.status) for t in frame.tasks] == [("polish", "pending")]
    # the session's stops are gone from the subgraph between moves: the user's values are back
    assert (review.interrupt_before_nodes, review.interrupt_after_nodes) == ([], [])

    on = ok(session, "step")
    assert on.message == "Paused in review before critique (step 2 of review)."
    assert "in subgraph review: polish wrote draft, notes" in on.ran
    asked = ok(session, "finish")  # critique asks: the interrupt stops it sooner
    assert asked.status == "interrupted"
    assert current_frame(session).breadcrumb == "parent \u203a review"
    assert ok(session, "resume 'yes'").status == "done"
    assert session.view().values == plain_run("yes")
    assert (review.interrupt_before_nodes, review.interrupt_after_nodes) == ([], [])


def test_finish_runs_the_rest_of_the_subgraph_and_stops_in_the_parent() -> None:
    graph = StateGraph(Review)
    graph.add_node("review", review_subgraph(interrupt_after=["critique"]))
    graph.add_node("after", lambda state: {"notes": ["after"]})
    graph.add_edge(START, "review")
    graph.add_edge("review", "after")
    session = Session(graph.compile(), input={"draft": "d"})
    ok(session, "restart")
    ok(session, "step")
    assert ok(session, "step").message == "Paused in review before polish (step 1 of review)."
    assert ok(session, "finish").status == "interrupted"  # critique asks
    stop = ok(session, "resume 'ok'")  # past it: the subgraph was compiled to stop after it
    assert stop.message == (
        "Stopped in review before its end (step 3 of review), at a breakpoint the subgraph "
        "was compiled with."
    )
    assert ok(session, "finish").message == "Finished review: paused before step 2."
    assert ok(session, "continue").status == "done"
    assert session.view().values["notes"] == ["polish", "critique", "after"]


def test_a_breakpoint_on_the_subgraphs_node_keeps_the_users_own_interrupt_before() -> None:
    review = review_subgraph(interrupt_before=["polish"])
    session = session_on(user_program(review))
    ok(session, "break before review/critique")
    ok(session, "restart")
    own = ok(session, "continue")  # the user's own, compiled into the subgraph
    assert own.message == (
        "Stopped in review before polish (step 1 of review), at a breakpoint the subgraph "
        "was compiled with."
    )
    ours = ok(session, "continue")
    assert ours.message == "Stopped before step 4 at breakpoint 1 (before review/critique)."
    assert (review.interrupt_before_nodes, review.interrupt_after_nodes) == (["polish"], [])
    assert ok(session, "continue").status == "interrupted"
    assert ok(session, "resume 'fine'").status == "done"
    assert session.view().values == plain_run("fine")


def test_the_users_values_come_back_when_a_node_inside_raises() -> None:
    def broken(state: Review) -> dict[str, Any]:
        raise ValueError("no draft")

    review = StateGraph(Review)
    review.add_node("polish", broken)
    review.add_edge(START, "polish")
    inner = review.compile(interrupt_after="*")
    graph = StateGraph(Review)
    graph.add_node("review", inner)
    graph.add_edge(START, "review")
    session = Session(graph.compile(), input={"draft": "d"})
    ok(session, "watch review/draft")  # stops after every node of review
    ok(session, "break before review/polish")
    ok(session, "restart")
    assert ok(session, "continue").message.startswith("Stopped before step 1 at breakpoint 2")
    failed = run_line(session, "continue")
    assert failed is not None and "ValueError: no draft" in failed.message
    assert (inner.interrupt_before_nodes, inner.interrupt_after_nodes) == ([], "*")


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"review/*"}, set(), ("*", [])),
        ({"review/critique"}, {"review/polish"}, (["polish", "critique"], ["polish"])),
        (set(), {"review/*"}, (["polish"], "*")),
    ],
)
def test_placements_add_the_sessions_node_names_to_the_users_own(
    before: set[str], after: set[str], expected: tuple[Any, Any]
) -> None:
    review = review_subgraph(interrupt_before=["polish"])
    graph = user_program(review)
    breaks = InnerBreaks(frozenset(before), frozenset(after))
    ((found, wanted_before, wanted_after),) = placements(graph, breaks).values()
    assert found is review
    assert (wanted_before, wanted_after) == ({p.split("/")[1] for p in before},
                                             {p.split("/")[1] for p in after})  # fmt: skip

    class Driver:  # (what the engine reads of the session's driver)
        def __init__(self) -> None:
            self.table = BreakpointTable()
            self.goal = Goal("steps", inner=frozenset(before))
            for path in after:
                self.table.add("after", path)

        def stopped_inside(self, step: int, inner: Any) -> bool:
            return True

    with armed(graph, Driver()):
        assert (review.interrupt_before_nodes, review.interrupt_after_nodes) == expected
    assert (review.interrupt_before_nodes, review.interrupt_after_nodes) == (["polish"], [])


def test_a_path_into_no_compiled_subgraph_places_nothing() -> None:
    graph = user_program(review_subgraph(checkpointer=False))
    breaks = InnerBreaks(frozenset({"review/*", "join/x"}), frozenset())
    assert placements(graph, breaks) == {}  # (checkpointer=False: it keeps no checkpoint)
