"""Programs for node caching (``CachePolicy``, ``compile(cache=...)``): a cached node's
writes are replayed for an input seen before, instead of calling the node.

A program runs each input through ``invoke`` and then every stream mode on ONE compiled
graph, so the later runs meet the cache the first one filled. Nodes write how many times
they were called: a replayed write shows the count of the call that made it.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

if TYPE_CHECKING:
    from langgraph.errors import NodeError


class S(TypedDict):
    """A plain key and an append log."""

    x: int
    log: Annotated[list[str], operator.add]


class Flaky(Exception):
    """A user exception a retry policy retries."""


def cache_names(g: EngineAPI) -> tuple[Any, Any]:
    """``CachePolicy`` and ``InMemoryCache`` of ``g``'s engine."""
    if g.name == "langgraph":
        from langgraph.cache.memory import InMemoryCache
        from langgraph.types import CachePolicy
    else:
        from sgdebug.runtime.cache import CachePolicy, InMemoryCache  # type: ignore[assignment]
    return CachePolicy, InMemoryCache


def counted(word: str, **extra: Any) -> Any:
    """A node logging ``"<word> call <n>"`` (its n-th call) and writing ``extra``."""
    calls = [0]

    def node(state: S) -> dict[str, Any]:
        calls[0] += 1
        return {"log": [f"{word} call {calls[0]}"], **extra}

    node.__name__ = node.__qualname__ = word
    return node


INPUTS = ({"x": 1, "log": []}, {"x": 1, "log": []}, {"x": 2, "log": []})
"""The same input twice, then another."""


@program()
def cache_replays_a_node_for_an_input_seen_before(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    b = g.StateGraph(S).add_node("a", counted("a"), cache_policy=policy())
    b.add_node("b", counted("b")).add_edge(g.START, "a").add_edge("a", "b")
    return Case(b.compile(cache=cache()), inputs=INPUTS, modes=("tasks", "debug"),
                expect=({"x": 1, "log": ["a call 1", "b call 1"]},
                        {"x": 1, "log": ["a call 1", "b call 6"]},
                        {"x": 2, "log": ["a call 2", "b call 11"]}))  # fmt: skip


@program()
def cache_key_func_and_a_zero_ttl(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    parity = policy(key_func=lambda state: str(state["x"] % 2))
    b = g.StateGraph(S).add_node("parity", counted("parity"), cache_policy=parity)
    b.add_node("expires", counted("expires"), cache_policy=policy(ttl=0))
    b.add_edge(g.START, "parity").add_edge("parity", "expires")
    inputs = ({"x": 1, "log": []}, {"x": 3, "log": []}, {"x": 2, "log": []})
    return Case(b.compile(cache=cache()), inputs=inputs, modes=("debug",))


@program()
def cache_defaults_cover_every_node_but_an_error_handler(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    calls = [0]

    def flaky(state: S) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] == 1:
            raise Flaky("first call")
        return {"log": [f"flaky call {calls[0]}"]}

    handled = [0]

    def handler(state: S, error: NodeError) -> dict[str, Any]:
        handled[0] += 1
        return {"log": [f"handled {error.node} {handled[0]}"]}

    b = g.StateGraph(S).set_node_defaults(cache_policy=policy())
    b.add_node("flaky", flaky, error_handler=handler).add_node("after", counted("after"))
    b.add_edge(g.START, "flaky").add_edge("flaky", "after")
    return Case(b.compile(cache=cache()), inputs=INPUTS[:2], modes=("tasks",))


@program()
def cache_keeps_nothing_of_a_node_that_failed(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    calls = [0]

    def fails_twice(state: S) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] <= 2:
            raise ValueError(f"call {calls[0]} failed")
        return {"log": [f"call {calls[0]}"]}

    b = g.StateGraph(S).add_node("node", fails_twice, cache_policy=policy())
    b.add_edge(g.START, "node")
    return Case(b.compile(cache=cache()), inputs=INPUTS[:1], modes=("tasks",))


@program()
def cache_replays_the_route_of_a_conditional_edge(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    routes = [0]

    def route(state: S) -> str:
        routes[0] += 1
        return "left" if routes[0] % 2 else "right"

    b = g.StateGraph(S).add_node("decide", counted("decide"), cache_policy=policy())
    b.add_node("left", counted("left")).add_node("right", counted("right"))
    b.add_edge(g.START, "decide").add_conditional_edges("decide", route, ["left", "right"])
    return Case(b.compile(cache=cache()), inputs=INPUTS, modes=("debug",))


@program()
def cache_serves_send_tasks_by_their_argument(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    calls: dict[int, int] = {}

    def work(arg: int) -> dict[str, Any]:
        calls[arg] = calls.get(arg, 0) + 1
        return {"log": [f"work {arg} call {calls[arg]}"]}

    def fan_out(state: S) -> list[Any]:
        return [g.Send("work", i) for i in range(state["x"], state["x"] + 2)]

    b = g.StateGraph(S).add_node("start", counted("start"))
    b.add_node("work", work, cache_policy=policy())
    b.add_edge(g.START, "start").add_conditional_edges("start", fan_out, ["work"])
    return Case(b.compile(cache=cache()), inputs=INPUTS, modes=("tasks",), unordered=True)


@program()
def cache_a_retried_node_once_it_succeeds(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    types = _types(g)

    def flaky(state: S, runtime: Any) -> dict[str, Any]:
        attempt = runtime.execution_info.node_attempt
        if attempt == 1:
            raise Flaky("first attempt")
        return {"log": [f"x={state['x']} on attempt {attempt}"]}

    retry = types.RetryPolicy(initial_interval=0.0, jitter=False, retry_on=Flaky)
    b = g.StateGraph(S).add_node("flaky", flaky, retry_policy=retry, cache_policy=policy())
    b.add_node("after", counted("after")).add_edge(g.START, "flaky").add_edge("flaky", "after")
    return Case(b.compile(cache=cache()), inputs=INPUTS, modes=("tasks",))


@program()
def cache_a_subgraph_node_and_a_subgraph_with_its_own_cache(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    inner = g.StateGraph(S).add_node("inner", counted("inner"), cache_policy=policy())
    inner.add_edge(g.START, "inner")
    whole = g.StateGraph(S).add_node("deep", counted("deep")).add_edge(g.START, "deep")
    b = g.StateGraph(S).add_node("own_cache", inner.compile(cache=cache()))
    b.add_node("cached_sub", whole.compile(), cache_policy=policy())
    b.add_edge(g.START, "own_cache").add_edge("own_cache", "cached_sub")
    return Case(b.compile(cache=cache()), inputs=INPUTS, modes=("debug",))


@program()
def cache_hit_of_a_subgraph_node_streams_no_subgraph_events(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    whole = g.StateGraph(S).add_node("deep", counted("deep")).add_edge(g.START, "deep")
    b = g.StateGraph(S).add_node("sub", whole.compile(), cache_policy=policy())
    b.add_node("after", counted("after")).add_edge(g.START, "sub").add_edge("sub", "after")
    return Case(b.compile(cache=cache()), inputs=INPUTS[:2], modes=("debug",),
                kwargs={"subgraphs": True})  # fmt: skip


@program()
def cache_of_a_parent_does_not_reach_into_a_subgraph(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    inner = g.StateGraph(S).add_node("inner", counted("inner"), cache_policy=policy())
    b = g.StateGraph(S).add_node("sub", inner.add_edge(g.START, "inner").compile())
    b.add_node("top", counted("top"), cache_policy=policy())
    b.add_edge(g.START, "sub").add_edge("sub", "top")
    return Case(b.compile(cache=cache()), inputs=INPUTS[:2], modes=("tasks",))


@program()
def cache_replays_a_command_goto(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    calls = [0]

    def jump(state: S) -> Any:
        calls[0] += 1
        return g.Command(
            update={"log": [f"jump {calls[0]}"]}, goto="odd" if calls[0] % 2 else "even"
        )

    b = g.StateGraph(S).add_node("jump", jump, cache_policy=policy(), destinations=("odd", "even"))
    b.add_node("odd", counted("odd")).add_node("even", counted("even"))
    return Case(b.add_edge(g.START, "jump").compile(cache=cache()), inputs=INPUTS, modes=("debug",))


@program()
def cache_replays_writes_that_fail_at_commit(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    b = g.StateGraph(S).add_node("a", counted("a", x=1), cache_policy=policy())
    b.add_node("b", counted("b", x=2)).add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(b.compile(cache=cache()), inputs=INPUTS[:2], modes=("tasks",), unordered=True)


@program()
def cache_async_nodes_through_ainvoke(g: EngineAPI) -> Case:
    policy, cache = cache_names(g)
    calls = [0]

    async def slow(state: S) -> dict[str, Any]:
        calls[0] += 1
        return {"log": [f"slow call {calls[0]}"]}

    b = g.StateGraph(S).add_node("slow", slow, cache_policy=policy())
    b.add_node("b", counted("b")).add_edge(g.START, "slow").add_edge("slow", "b")
    return Case(b.compile(cache=cache()), inputs=INPUTS, modes=("tasks",), use_async=True)


def _types(g: EngineAPI) -> Any:
    if g.name == "langgraph":
        from langgraph import types
    else:
        from sgdebug.runtime import types  # type: ignore[no-redef]
    return types
