"""Checkpoint programs for node caching: what a thread records of a cached task (its writes
saved like a run task's, its result in the snapshot's tasks), a cached node that asked
``interrupt()``, a cache hit beside an interrupt in one step, and ``clear_cache``.
See ``programs/checkpoint.py`` for how these scripts are observed and compared."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt
from .cache import cache_names, counted
from .checkpoint import Rec, Script, ckpt, events, history, snap, thread


class S(TypedDict):
    """A plain key and an append log."""

    x: int
    log: Annotated[list[str], operator.add]


IN: dict[str, Any] = {"x": 1, "log": []}


@ckpt
def cache_hit_is_saved_in_its_thread_like_a_run_task(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    b = g.StateGraph(S).add_node("a", counted("a"), cache_policy=policy())
    b.add_node("b", counted("b")).add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), cache=cache())

    def script() -> Script:
        yield "first thread", attempt(lambda: graph.invoke(IN, thread("t1")))
        modes = ["updates", "tasks", "checkpoints"]
        yield "second thread", events(lambda: graph.stream(IN, thread("t2"), stream_mode=modes))
        yield "state", snap(graph, thread("t2"))
        yield "history", history(graph, thread("t2"))

    def spec(r: Rec) -> None:
        assert r["first thread"] == {"x": 1, "log": ["a call 1", "b call 1"]}
        assert ("updates", {"a": {"log": ["a call 1"]}, "__metadata__": {"cached": True}}) in r[
            "second thread"
        ]

    return Case(graph, script=script, spec=spec)


@ckpt
def cache_a_node_that_asked_interrupt_once_it_was_answered(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    asked = [0]

    def ask(state: S) -> dict[str, Any]:
        asked[0] += 1
        return {"log": [f"ask {asked[0]}: {g.interrupt('go on?')}"]}

    b = g.StateGraph(S).add_node("ask", ask, cache_policy=policy())
    b.add_node("after", counted("after")).add_edge(g.START, "ask").add_edge("ask", "after")
    graph = b.compile(checkpointer=g.InMemorySaver(), cache=cache())

    def script() -> Script:
        yield "asks", attempt(lambda: graph.invoke(IN, thread("t1")))
        yield "answered", attempt(lambda: graph.invoke(g.Command(resume="yes"), thread("t1")))
        yield "another thread", attempt(lambda: graph.invoke(IN, thread("t2")))
        yield "its state", snap(graph, thread("t2"))
        yield "calls", list(asked)

    def spec(r: Rec) -> None:
        assert r["answered"] == {"x": 1, "log": ["ask 2: yes", "after call 1"]}
        assert r["another thread"] == {"x": 1, "log": ["ask 2: yes", "after call 2"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def cache_hit_beside_an_interrupt_in_one_step(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)

    def ask(state: S) -> dict[str, Any]:
        return {"log": [f"answer {g.interrupt('why?')}"]}

    b = g.StateGraph(S).add_node("cached", counted("cached"), cache_policy=policy())
    b.add_node("ask", ask).add_edge(g.START, "cached").add_edge(g.START, "ask")
    graph = b.compile(checkpointer=g.InMemorySaver(), cache=cache())

    def script() -> Script:
        yield "t1", attempt(lambda: graph.invoke(IN, thread("t1")))
        yield "t2 stops", events(lambda: graph.stream(IN, thread("t2")))
        yield "t2 state", snap(graph, thread("t2"))
        yield "t2 resumed", events(lambda: graph.stream(g.Command(resume="b"), thread("t2")))
        yield "t2 history", history(graph, thread("t2"))

    def spec(r: Rec) -> None:
        assert r["t2 resumed"][-1] == {"ask": {"log": ["answer b"]}}

    return Case(graph, script=script, spec=spec)


@ckpt
def clear_cache_forgets_the_nodes_named_or_all(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    b = g.StateGraph(S).add_node("a", counted("a"), cache_policy=policy())
    b.add_node("b", counted("b"), cache_policy=policy())
    b.add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), cache=cache())
    plain = g.StateGraph(S).add_node("a", counted("a")).add_edge(g.START, "a").compile()
    runs = iter(range(100))

    def run() -> Any:
        return attempt(lambda: graph.invoke(IN, thread(f"t{next(runs)}")))

    def script() -> Script:
        yield "first", run()
        yield "cached", run()
        graph.clear_cache(["b", "not a node"])
        yield "b cleared", run()
        graph.clear_cache()
        yield "all cleared", run()
        asyncio.run(graph.aclear_cache(["a"]))
        yield "a cleared (async)", run()
        yield "no cache", attempt(lambda: plain.clear_cache())
        yield "no cache (async)", attempt(lambda: asyncio.run(plain.aclear_cache()))

    def spec(r: Rec) -> None:
        assert r["b cleared"] == {"x": 1, "log": ["a call 1", "b call 2"]}
        assert r["all cleared"] == {"x": 1, "log": ["a call 2", "b call 3"]}
        assert r["a cleared (async)"] == {"x": 1, "log": ["a call 3", "b call 4"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def cache_in_an_async_run_on_two_threads(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    calls = [0]

    async def slow(state: S) -> dict[str, Any]:
        calls[0] += 1
        return {"log": [f"slow call {calls[0]}"]}

    b = g.StateGraph(S).add_node("slow", slow, cache_policy=policy(ttl=60))
    b.add_node("b", counted("b")).add_edge(g.START, "slow").add_edge("slow", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), cache=cache())

    async def two_threads() -> list[Any]:
        return [await graph.ainvoke(IN, thread(t)) for t in ("t1", "t2")]

    def script() -> Script:
        yield "runs", attempt(lambda: asyncio.run(two_threads()))
        yield "history", history(graph, thread("t2"))

    def spec(r: Rec) -> None:
        assert r["runs"][1] == {"x": 1, "log": ["slow call 1", "b call 2"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def cache_breakpoint_before_a_cached_node_still_stops(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    b = g.StateGraph(S).add_node("a", counted("a"), cache_policy=policy())
    b.add_node("b", counted("b")).add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), cache=cache(), interrupt_before=["a"])

    def run(value: Any, cfg: dict[str, Any]) -> list[Any]:
        return events(lambda: graph.stream(value, cfg, stream_mode=["updates", "debug"]))

    def script() -> Script:
        for t in ("t1", "t2"):
            yield f"{t} stops", run(IN, thread(t))
            yield f"{t} state", snap(graph, thread(t))
            yield f"{t} goes on", run(None, thread(t))

    def spec(r: Rec) -> None:
        assert r["t2 state"]["next"] == ("a",)
        assert ("updates", {"a": {"log": ["a call 1"]}, "__metadata__": {"cached": True}}) in r[
            "t2 goes on"
        ]

    return Case(graph, script=script, spec=spec)
