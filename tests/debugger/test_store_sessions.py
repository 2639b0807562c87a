"""A graph compiled with ``store=`` keeps its store under the debugger, on both engines:
its nodes read and write the user's store while the session steps, re-runs and forks."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from sgdebug.debugger.results import EngineName

from .engine_scenarios import on_both, run, session_on, values

if TYPE_CHECKING:
    from langgraph.store.base import BaseStore


class State(TypedDict):
    user: str
    log: Annotated[list[str], operator.add]


def _greet(state: State, store: BaseStore) -> dict[str, Any]:
    seen = store.get(("users", state["user"]), "visits")
    count = 1 if seen is None else seen.value["n"] + 1
    store.put(("users", state["user"]), "visits", {"n": count})
    return {"log": [f"{state['user']} #{count}"]}


def _graph(engine: EngineName) -> tuple[Any, Any]:
    if engine == "native":
        from sgdebug.runtime import START, StateGraph
        from sgdebug.runtime.store import InMemoryStore
    else:
        from langgraph.graph import START, StateGraph  # type: ignore[assignment]
        from langgraph.store.memory import InMemoryStore  # type: ignore[assignment]
    store = InMemoryStore()
    store.put(("users", "ann"), "visits", {"n": 4})
    builder = StateGraph(State).add_node("greet", _greet).add_edge(START, "greet")
    return builder.compile(store=store), store


@on_both
def test_the_sessions_runs_use_the_graphs_store(engine: EngineName) -> None:
    graph, store = _graph(engine)
    session = session_on(graph, engine, {"user": "ann", "log": []})

    run(session, "break before greet", "restart", "continue", "continue")
    assert values(session)["log"] == ["ann #5"]
    assert session.engine.graph.store is store
    run(session, "restart", "continue", "continue")  # a new run counts on from the store
    assert values(session)["log"] == ["ann #6"]
    visits = store.get(("users", "ann"), "visits")
    assert visits is not None and visits.value == {"n": 6}
