"""Programs for node policies: retries (``RetryPolicy``) and error handlers."""

from __future__ import annotations

import asyncio
import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say

if TYPE_CHECKING:
    from langgraph.errors import NodeError
    from langgraph.types import StreamWriter


class S(TypedDict):
    """A plain key and an append log."""

    x: str
    log: Annotated[list[str], operator.add]


class Flaky(Exception):
    """A user exception a retry policy retries."""


def _names(g: EngineAPI) -> Any:
    """The policy names of ``g``'s engine (not part of the shared EngineAPI)."""
    if g.name == "langgraph":
        from langgraph import errors, types
    else:
        from sgdebug.runtime import errors, types  # type: ignore[no-redef]
    return types, errors


def _retry(g: EngineAPI, **kwargs: Any) -> Any:
    types, _ = _names(g)
    return types.RetryPolicy(initial_interval=0.0, jitter=False, **kwargs)


def _flaky(fails: int, error: type[Exception] = Flaky) -> Any:
    """A node that fails its first ``fails`` attempts, then logs the attempt it is."""

    def flaky(state: S, runtime: Any) -> dict[str, Any]:
        attempt = runtime.execution_info.node_attempt
        if attempt <= fails:
            raise error(f"attempt {attempt} failed")
        return {"log": [f"flaky on attempt {attempt}"]}

    return flaky


def _chain(g: EngineAPI, node: Any, **add: Any) -> Any:
    b = g.StateGraph(S).add_node("flaky", node, **add).add_node("after", say("after"))
    return b.add_edge(g.START, "flaky").add_edge("flaky", "after")


@program()
def retry_until_success(g: EngineAPI) -> Case:
    b = _chain(g, _flaky(2), retry_policy=_retry(g, max_attempts=3, retry_on=Flaky))
    return Case(b.compile(), inputs=({"x": ""},), modes=("tasks", "debug"),
                expect=({"x": "", "log": ["flaky on attempt 3", "after"]},))  # fmt: skip


@program()
def retry_exhausted_raises_last_error(g: EngineAPI) -> Case:
    b = _chain(g, _flaky(5), retry_policy=_retry(g, max_attempts=2, retry_on=Flaky))
    return Case(b.compile(), inputs=({"x": ""},), expect=(err("Flaky", "attempt 2 failed"),))


@program()
def retry_default_policy_skips_value_error(g: EngineAPI) -> Case:
    types, _ = _names(g)
    b = _chain(g, _flaky(1, ValueError), retry_policy=types.RetryPolicy(initial_interval=0.0))
    return Case(b.compile(), inputs=({"x": ""},), expect=(err("ValueError", "attempt 1 failed"),))


@program()
def retry_first_matching_policy_counts_all_attempts(g: EngineAPI) -> Case:
    policies = (
        _retry(g, max_attempts=2, retry_on=KeyError),
        _retry(g, max_attempts=4, retry_on=lambda exc: isinstance(exc, Flaky)),
    )
    b = _chain(g, _flaky(3), retry_policy=policies)
    return Case(b.compile(), inputs=({"x": ""},),
                expect=({"x": "", "log": ["flaky on attempt 4", "after"]},))  # fmt: skip


@program()
def retry_from_node_defaults_per_node_wins(g: EngineAPI) -> Case:
    b = g.StateGraph(S).set_node_defaults(retry_policy=_retry(g, max_attempts=2, retry_on=Flaky))
    b.add_node("a", _flaky(1)).add_node("b", _flaky(2), retry_policy=_retry(g, max_attempts=3))
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(b.compile(), inputs=({"x": ""},), unordered=True)


@program()
def retry_parallel_sibling_keeps_its_writes(g: EngineAPI) -> Case:
    b = _chain(g, _flaky(1), retry_policy=_retry(g, retry_on=Flaky))
    b.add_node("side", say("side", x="side")).add_edge(g.START, "side")
    return Case(b.compile(), inputs=({"x": ""},), unordered=True)


@program()
def retry_async_node(g: EngineAPI) -> Case:
    async def flaky(state: S, runtime: Any) -> dict[str, Any]:
        await asyncio.sleep(0)
        attempt = runtime.execution_info.node_attempt
        if attempt < 3:
            raise Flaky(f"attempt {attempt} failed")
        return {"log": [f"async on attempt {attempt}"]}

    b = _chain(g, flaky, retry_policy=_retry(g, retry_on=Flaky))
    return Case(b.compile(), inputs=({"x": ""},), use_async=True)


def _handler(label: str) -> Any:
    def handler(state: S, error: NodeError) -> dict[str, Any]:
        return {"log": [f"{label} handled {error.node}: {error.error}"]}

    return handler


def _fail(message: str) -> Any:
    def fail(state: S) -> dict[str, Any]:
        raise Flaky(message)

    return fail


@program()
def error_handler_replaces_the_failed_write(g: EngineAPI) -> Case:
    b = _chain(g, _fail("boom"), error_handler=_handler("h"))
    b.add_node("side", say("side")).add_edge(g.START, "side")
    return Case(b.compile(), inputs=({"x": ""},), modes=("tasks",), unordered=True)


@program()
def error_handler_routes_with_command(g: EngineAPI) -> Case:
    def handler(state: S) -> Any:
        return g.Command(update={"x": "handled"}, goto="after")

    b = g.StateGraph(S).add_node("bad", _fail("boom"), error_handler=handler)
    b.add_node("after", say("after")).add_edge(g.START, "bad")
    return Case(b.compile(), inputs=({"x": ""},), modes=("debug",),
                expect=({"x": "handled", "log": ["after"]},))  # fmt: skip


@program()
def error_handler_after_retries(g: EngineAPI) -> Case:
    b = _chain(g, _flaky(9), retry_policy=_retry(g, max_attempts=2), error_handler=_handler("h"))
    return Case(b.compile(), inputs=({"x": ""},),
                expect=({"x": "", "log": ["h handled flaky: attempt 2 failed"]},))  # fmt: skip


@program()
def error_handler_that_fails_fails_the_run(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("bad", _fail("boom"), error_handler=_fail("handler broke"))
    b.add_edge(g.START, "bad")
    return Case(b.compile(), inputs=({"x": ""},), expect=(err("Flaky", "handler broke"),))


@program()
def error_handler_of_a_subgraph_node(g: EngineAPI) -> Case:
    sub = g.StateGraph(S).add_node("inner", _fail("inner boom")).add_edge(g.START, "inner")
    b = g.StateGraph(S).add_node("child", sub.compile(), error_handler=_handler("parent"))
    b.add_edge(g.START, "child")
    return Case(b.compile(), inputs=({"x": ""},))


@program()
def error_handler_from_node_defaults(g: EngineAPI) -> Case:
    b = g.StateGraph(S).set_node_defaults(error_handler=_handler("default"))
    b.add_node("a", _fail("a broke")).add_node("b", _fail("b broke"), error_handler=_handler("own"))
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(b.compile(), inputs=({"x": ""},), unordered=True)


@program()
def error_handler_async(g: EngineAPI) -> Case:
    async def bad(state: S) -> dict[str, Any]:
        await asyncio.sleep(0)
        raise Flaky("async boom")

    async def handler(state: S, error: NodeError) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"log": [f"async handled {error.error}"]}

    b = _chain(g, bad, error_handler=handler)
    b.add_node("sync_bad", _fail("sync boom"), error_handler=_handler("sync"))
    b.add_edge(g.START, "sync_bad")
    return Case(b.compile(), inputs=({"x": ""},), use_async=True, unordered=True)


def _sleeper(seconds: float, label: str) -> Any:
    async def sleeper(state: S) -> dict[str, Any]:
        await asyncio.sleep(seconds)
        return {"log": [label]}

    return sleeper


def _timed_out(state: S, error: NodeError) -> dict[str, Any]:
    """An error handler logging a ``NodeTimeoutError`` without its (wall-clock) elapsed time."""
    exc: Any = error.error
    return {"log": [f"{error.node}: {type(exc).__name__} {exc.kind} {exc.timeout} {exc.node}"]}


@program()
def timeout_fails_a_slow_async_node(g: EngineAPI) -> Case:
    types, _ = _names(g)
    policy = types.TimeoutPolicy(run_timeout=0.02)
    b = _chain(g, _sleeper(5.0, "late"), timeout=policy, error_handler=_timed_out)
    b.add_node("quick", _sleeper(0.0, "quick"), timeout=0.5).add_edge(g.START, "quick")
    return Case(b.compile(), inputs=({"x": ""},), use_async=True, unordered=True)


@program()
def timeout_retried_then_handled(g: EngineAPI) -> Case:
    types, _ = _names(g)
    b = _chain(
        g, _sleeper(5.0, "late"), timeout=types.TimeoutPolicy(idle_timeout=0.02),
        retry_policy=_retry(g, max_attempts=2), error_handler=_timed_out,
    )  # fmt: skip
    return Case(b.compile(), inputs=({"x": ""},), use_async=True)


@program()
def timeout_heartbeat_keeps_an_idle_node_alive(g: EngineAPI) -> Case:
    types, _ = _names(g)

    async def beating(state: S, runtime: Any) -> dict[str, Any]:
        for _ in range(6):
            await asyncio.sleep(0.01)
            runtime.heartbeat()
        return {"log": ["alive"]}

    policy = types.TimeoutPolicy(idle_timeout=0.2, refresh_on="heartbeat")
    b = _chain(g, beating, timeout=policy)
    return Case(b.compile(), inputs=({"x": ""},), use_async=True,
                expect=({"x": "", "log": ["alive", "after"]},))  # fmt: skip


@program(raises=err("ValueError", "Node timeouts are only supported for async nodes because "
                    "sync Python execution cannot be safely cancelled in-process. Node 'flaky' "
                    "is sync."))  # fmt: skip
def timeout_on_a_sync_node_is_refused(g: EngineAPI) -> Case:
    return Case(_chain(g, _flaky(0), timeout=1.0).compile())


@program()
def node_raising_cancelled_error_fails_the_run(g: EngineAPI) -> Case:
    async def cancels(state: S) -> dict[str, Any]:
        raise asyncio.CancelledError("from the node")

    return Case(_chain(g, cancels).compile(), inputs=({"x": ""},), use_async=True)


@program()
def failing_async_node_cancels_its_running_siblings(g: EngineAPI) -> Case:
    async def bad(state: S) -> dict[str, Any]:
        raise Flaky("fails at once")

    b = _chain(g, bad).add_node("slow", _sleeper(0.2, "slow")).add_edge(g.START, "slow")
    return Case(b.compile(), inputs=({"x": ""},), use_async=True, modes=("tasks",))


@program()
def failing_task_is_reported_before_the_error(g: EngineAPI) -> Case:
    b = _chain(g, _fail("boom")).add_node("ok", say("ok")).add_edge(g.START, "ok")
    return Case(b.compile(), inputs=({"x": ""},), modes=("tasks", "debug"))


@program()
def send_timeout_replaces_the_node_timeout(g: EngineAPI) -> Case:
    async def work(arg: Any) -> dict[str, Any]:
        await asyncio.sleep(arg["sleep"])
        return {"log": [f"slept {arg['sleep']}"]}

    def fan_out(state: S) -> list[Any]:
        return [g.Send("work", {"sleep": 0.0}, timeout=0.5),
                g.Send("work", {"sleep": 0.3}, timeout=0.02)]  # fmt: skip

    b = g.StateGraph(S).add_node("work", work, timeout=5.0, error_handler=_timed_out)
    b.add_conditional_edges(g.START, fan_out)
    return Case(b.compile(), inputs=({"x": ""},), use_async=True, unordered=True)


@program()
def timeout_idle_refreshed_by_stream_writes_unless_heartbeat_only(g: EngineAPI) -> Case:
    types, _ = _names(g)

    async def chatty(state: S, writer: StreamWriter) -> dict[str, Any]:
        for i in range(5):
            await asyncio.sleep(0.06)
            writer(f"chunk {i}")
        return {"log": ["done talking"]}

    auto = types.TimeoutPolicy(idle_timeout=0.2)
    beats = types.TimeoutPolicy(idle_timeout=0.2, refresh_on="heartbeat")
    b = g.StateGraph(S).add_node("auto", chatty, timeout=auto, error_handler=_timed_out)
    b.add_node("beats", chatty, timeout=beats, error_handler=_timed_out)
    b.add_edge(g.START, "auto").add_edge(g.START, "beats")
    return Case(b.compile(), inputs=({"x": ""},), use_async=True, unordered=True)


@program()
def error_handler_leaves_a_command_for_the_parent_alone(g: EngineAPI) -> Case:
    def inner(state: S) -> Any:
        return g.Command(graph=g.Command.PARENT, update={"x": "from inner"}, goto="after")

    sub = g.StateGraph(S).add_node("inner", inner).add_edge(g.START, "inner").compile()
    b = g.StateGraph(S).add_node("child", sub, error_handler=_handler("parent"))
    b.add_node("after", say("after")).add_edge(g.START, "child")
    return Case(b.compile(), inputs=({"x": ""},),
                expect=({"x": "from inner", "log": ["after"]},))  # fmt: skip
