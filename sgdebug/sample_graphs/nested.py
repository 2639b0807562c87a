"""A parent graph runs a ``research`` subgraph, whose ``summarize`` node asks a human.

``START -> plan -> research -> write``; ``research`` is itself a compiled graph
(``gather -> summarize``) added as a node. ``gather`` collects notes on the planned topic;
``summarize`` pauses the run with ``interrupt()`` to ask which angle the summary should
take, and the answer (``Command(resume=...)``, the debugger's ``resume``) goes into the
summary that ``write`` turns into the report.

Things to look at in the debugger: the graph view draws ``research`` as a subgraph (``o``
on it draws its nodes in place); ``break``, ``until`` and completion take node paths such
as ``research/summarize`` (the native engine stops at ``break before research/summarize``
in the subgraph's frame, with a condition on its channels too, and at ``watch research/notes``;
the rest is refused with the engine's reason). ``continue``
stops at the question inside the subgraph: the panes show the subgraph's frame under a
breadcrumb (parent, then research), ``up``/``down`` (``<``/``>``) move between the frames,
``set notes = [...]`` edits the subgraph's own state, the history lists the subgraph's
checkpoints under the parent's step (LangGraph engine), and ``resume "costs"`` answers.
Without a checkpointer ``invoke`` returns the subgraph's question under ``__interrupt__``,
as LangGraph does.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = [
    "EXAMPLE_INPUT",
    "QUESTION",
    "ResearchState",
    "State",
    "build",
    "build_research",
    "gather",
    "plan",
    "write",
]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"topic": "Heat pumps"}
"""The topic to write a report on."""

QUESTION: Final = "Which angle should the summary take?"
"""What ``research/summarize`` asks."""


class ResearchState(TypedDict, total=False):
    """The subgraph's state: the topic it researches, its notes and their summary."""

    topic: str
    notes: Annotated[list[str], operator.add]
    summary: str


class State(TypedDict, total=False):
    """The parent's state: the topic, the subgraph's summary and the finished report (the
    subgraph's ``notes`` stay inside it)."""

    topic: str
    summary: str
    report: str


def plan(state: State) -> dict[str, Any]:
    """Settle the topic the research subgraph works on."""
    return {"topic": state["topic"].strip().lower()}


def gather(state: ResearchState) -> dict[str, Any]:
    """Collect two notes on the topic."""
    topic = state["topic"]
    return {"notes": [f"gather: how {topic} work", f"gather: what {topic} cost"]}


def write(state: State) -> dict[str, Any]:
    """Turn the subgraph's summary into the report."""
    summary = state.get("summary", "(no summary)")
    return {"report": f"Report on {state['topic']}: {summary}"}


def build_research(engine: Engine = "sgdebug") -> Any:
    """The ``research`` subgraph, uncompiled: ``gather -> summarize``."""
    lg = api(engine)

    def summarize(state: ResearchState) -> dict[str, Any]:
        """Ask a human which angle to take, then summarise the notes from it."""
        angle = lg.interrupt({"question": QUESTION, "notes": list(state.get("notes", []))})
        count = len(state.get("notes", []))
        return {"summary": f"{count} notes, seen from {angle}"}

    builder = lg.StateGraph(ResearchState)
    builder.add_node("gather", gather)
    builder.add_node("summarize", summarize)
    builder.add_edge(lg.START, "gather")
    builder.add_edge("gather", "summarize")
    builder.add_edge("summarize", lg.END)
    return builder


def build(engine: Engine = "sgdebug") -> Any:
    """``plan -> research -> write``, ``research`` being the compiled subgraph."""
    lg = api(engine)
    builder = lg.StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("research", build_research(engine).compile())
    builder.add_node("write", write)
    builder.add_edge(lg.START, "plan")
    builder.add_edge("plan", "research")
    builder.add_edge("research", "write")
    builder.add_edge("write", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
