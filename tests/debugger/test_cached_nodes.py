"""A graph compiled with a node cache, in a debugging session on either engine: a restart
with the same input replays the cached node (it is not called again), stepping task by task
included; another input calls it."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.debugger import Session
from sgdebug.debugger.results import EngineName
from sgdebug.sample_graphs import api

from .engine_scenarios import BUILT_WITH, on_both, run, session_on, values


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def cached_session(engine: EngineName, calls: list[int]) -> Session:
    """``slow`` (cached, logs its call number) then ``after``."""
    lg = api(BUILT_WITH[engine])
    if engine == "langgraph":
        from langgraph.cache.memory import InMemoryCache
        from langgraph.types import CachePolicy
    else:
        from sgdebug.runtime.cache import CachePolicy, InMemoryCache  # type: ignore[assignment]

    def slow(state: S) -> dict[str, Any]:
        calls.append(state["x"])
        return {"log": [f"slow call {len(calls)}"]}

    builder = lg.StateGraph(S).add_node("slow", slow, cache_policy=CachePolicy())
    builder.add_node("after", lambda state: {"log": ["after"]})
    builder.add_edge(lg.START, "slow").add_edge("slow", "after")
    return session_on(builder.compile(cache=InMemoryCache()), engine, {"x": 1, "log": []})


@on_both
def test_a_restart_with_the_same_input_replays_the_cached_node(engine: EngineName) -> None:
    calls: list[int] = []
    session = cached_session(engine, calls)
    run(session, "restart", "continue")
    assert values(session) == {"x": 1, "log": ["slow call 1", "after"]}

    run(session, "restart", "continue")
    assert values(session) == {"x": 1, "log": ["slow call 1", "after"]}
    run(session, "restart", "step", "step", "continue")
    assert values(session) == {"x": 1, "log": ["slow call 1", "after"]}
    assert calls == [1]

    run(session, 'restart {"x": 2, "log": []}', "continue")
    assert values(session) == {"x": 2, "log": ["slow call 2", "after"]}
    assert calls == [1, 2]
