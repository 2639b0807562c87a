"""What the both-engine scenario tests share: sessions on either engine and what they show."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import Outcome, Session, SessionOptions, Target
from sgdebug.debugger.results import EngineName
from sgdebug.sample_graphs import Engine, api, load

from .helpers import ok

ENGINES: tuple[EngineName, ...] = ("native", "langgraph")
BUILT_WITH: Mapping[EngineName, Engine] = {"native": "sgdebug", "langgraph": "langgraph"}
on_both = pytest.mark.parametrize("engine", ENGINES)

EDIT_STEP = {"native": 0, "langgraph": 1}
"""How far an edit without ``as`` moves the step number. The native engine edits the paused
run in place; LangGraph records every edit as a step of its own (``update_state`` writes a
checkpoint at the previous step + 1, LANGGRAPH_SEMANTICS.md 5.6)."""


def session_on(graph: Any, engine: EngineName, input: Any, **options: Any) -> Session:
    """A session on ``graph`` with deterministic thread ids; it must run on ``engine``."""
    counter = itertools.count(1)
    opts = SessionOptions(thread_ids=lambda: f"thread-{next(counter)}", **options)
    session = Session(Target(graph, {}, "graph"), input=input, options=opts)
    assert session.engine.capabilities.engine == engine
    return session


def sample(name: str, engine: EngineName, *, compile: Any = None, **params: Any) -> Session:
    """A session on sample ``name`` built for ``engine`` (``compile``: compile's kwargs)."""
    module = load(name)
    graph = module.build(BUILT_WITH[engine], **params).compile(**(compile or {}))
    return session_on(graph, engine, module.EXAMPLE_INPUT)


def run(session: Session, *lines: str) -> Outcome:
    """Run ``lines`` in order, each must succeed; the last one's outcome."""
    outcomes = [ok(session, line) for line in lines]
    return outcomes[-1]


def stopped(outcome: Outcome) -> tuple[str, str, int]:
    """Status, stop kind and the step the run stands before."""
    assert outcome.stop is not None
    return outcome.status, outcome.stop.kind, outcome.stop.step


def values(session: Session) -> Any:
    return session.view().values


def hits(session: Session) -> dict[int, int]:
    """Breakpoint number -> hit count."""
    return {bp.number: bp.hits for bp in session.breakpoints}


def tree(session: Session) -> list[tuple[int | None, str, int, tuple[str, ...]]]:
    """Each snapshot's parent, source, step and the tasks that made it, oldest first."""
    return [(e.parent_index, e.source, e.step, e.ran) for e in session.history().value]


def state_writes(writes: tuple[tuple[str, Any], ...], session: Session) -> dict[str, Any]:
    """A task's writes to state keys (routing writes differ between engines' internals)."""
    return {k: v for k, v in writes if k in session.channel_names}


LINEAR = [
    (None, "input", -1, ()),
    (0, "loop", 0, ("__start__",)),
    (1, "loop", 1, ("node_1",)),
    (2, "loop", 2, ("node_2",)),
]
"""The history of the linear sample's run: the input, then one snapshot per step."""


def last_changes(session: Session) -> dict[str, tuple[Any, list[tuple[str, Any]], Any]]:
    """The last commit's reducer diff of state keys: old, (node, write) in order, new."""
    record = session.view().last_commit
    assert record is not None
    return {
        c.channel: (c.old, [(w.task_name, w.value) for w in c.writes], c.new)
        for c in record.changes
        if c.channel in session.channel_names
    }


class Review(TypedDict):
    doc: str
    verdicts: Annotated[list[str], operator.add]


class Reviews(TypedDict):
    docs: list[str]
    verdicts: Annotated[list[str], operator.add]


def parallel_reviews(engine: EngineName) -> Session:
    """A Send per document into a review subgraph whose node asks ``interrupt()``."""
    lg = api(BUILT_WITH[engine])

    def ask(state: Review) -> dict[str, Any]:
        doc = state["doc"]
        return {"verdicts": [f"{doc}: {lg.interrupt(f'approve {doc}?')}"]}

    review = lg.StateGraph(Review)
    review.add_node("ask", ask)
    review.add_edge(lg.START, "ask")
    builder = lg.StateGraph(Reviews)
    builder.add_node("review", review.compile())
    builder.add_conditional_edges(
        lg.START, lambda s: [lg.Send("review", {"doc": d, "verdicts": []}) for d in s["docs"]]
    )
    builder.add_edge("review", lg.END)
    return session_on(builder.compile(), engine, {"docs": ["a", "b"]})


class Draft(TypedDict):
    draft: str
    verdict: str


class Topic(TypedDict):
    topic: str
    result: str


def calls_review(engine: EngineName, *, hidden: bool = False) -> Session:
    """A node whose function invokes a review subgraph (``sub.invoke(...)``, mapping the
    parent's schema to the subgraph's), whose second node asks ``interrupt()``. With
    ``hidden`` the node reaches the subgraph through a dict, out of the lookup's reach."""
    lg = api(BUILT_WITH[engine])

    def review(state: Draft) -> dict[str, Any]:
        return {"verdict": str(lg.interrupt({"approve": state["draft"]}))}

    inner = lg.StateGraph(Draft)
    inner.add_node("write", lambda s: {"draft": s["draft"] + " (written)"})
    inner.add_node("review", review)
    inner.add_edge(lg.START, "write")
    inner.add_edge("write", "review")
    sub = inner.compile(name="review_sub")
    graphs = {"review": sub}

    def call_sub(state: Topic) -> dict[str, Any]:
        out = sub.invoke({"draft": state["topic"], "verdict": ""})
        return {"result": out["verdict"]}

    def call_hidden(state: Topic) -> dict[str, Any]:
        out = graphs["review"].invoke({"draft": state["topic"], "verdict": ""})
        return {"result": out["verdict"]}

    builder = lg.StateGraph(Topic)
    builder.add_node("call_sub", call_hidden if hidden else call_sub)
    builder.add_node("finish", lambda s: {"result": s["result"] + "!"})
    builder.add_edge(lg.START, "call_sub")
    builder.add_edge("call_sub", "finish")
    return session_on(builder.compile(), engine, {"topic": "t"})
