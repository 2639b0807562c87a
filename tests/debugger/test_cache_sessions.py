"""A graph compiled with ``cache=`` keeps its cache under the debugger, on both engines: a
node with a cache policy is called once for an input, and a rerun of the same input in the
session replays its writes instead of calling it again."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.debugger.results import EngineName

from .engine_scenarios import on_both, run, session_on, values


class State(TypedDict):
    topic: str
    log: Annotated[list[str], operator.add]


def _graph(engine: EngineName) -> tuple[Any, list[str]]:
    if engine == "native":
        from sgdebug.runtime import START, StateGraph
        from sgdebug.runtime.cache import CachePolicy, InMemoryCache
    else:
        from langgraph.cache.memory import InMemoryCache  # type: ignore[assignment]
        from langgraph.graph import START, StateGraph  # type: ignore[assignment]
        from langgraph.types import CachePolicy  # type: ignore[assignment]
    calls: list[str] = []

    def research(state: State) -> dict[str, Any]:
        calls.append(state["topic"])
        return {"log": [f"notes on {state['topic']}"]}

    builder = StateGraph(State).add_node("research", research, cache_policy=CachePolicy())
    builder.add_edge(START, "research")
    return builder.compile(cache=InMemoryCache()), calls


@on_both
def test_a_rerun_in_the_session_replays_the_cached_node(engine: EngineName) -> None:
    graph, calls = _graph(engine)
    session = session_on(graph, engine, {"topic": "tides", "log": []})

    run(session, "restart", "continue")
    assert values(session)["log"] == ["notes on tides"]
    run(session, "restart", "continue")  # the same input: the cache answers
    assert values(session)["log"] == ["notes on tides"]
    assert calls == ["tides"]
