"""Checkpoint programs for node policies: what a thread records of a retried node and of a
failure handed to an error handler, and that an interrupt is not a failure to handle. See
``programs/checkpoint.py`` for how these scripts are observed and compared."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, say
from .checkpoint import Rec, Script, ckpt, history, snap, thread
from .policies import Flaky, _names

if TYPE_CHECKING:
    from langgraph.errors import NodeError


class S(TypedDict):
    """An append log."""

    log: Annotated[list[str], operator.add]


def _bad(state: S) -> dict[str, Any]:
    raise Flaky("boom")


def _handler(state: S, error: NodeError) -> dict[str, Any]:
    return {"log": [f"handled {error.node}"]}


@ckpt
def error_handler_history_keeps_the_failure(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("bad", _bad, error_handler=_handler)
    b.add_node("ok", say("ok")).add_node("after", say("after"))
    b.add_edge(g.START, "bad").add_edge(g.START, "ok").add_edge("ok", "after")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, thread("t1")))
        yield "state", snap(graph, thread("t1"))
        yield "history", history(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"log": ["handled bad", "ok", "after"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def error_handler_does_not_swallow_an_interrupt(g: EngineAPI) -> Case:
    def asks(state: S) -> dict[str, Any]:
        return {"log": [g.interrupt("why?")]}

    b = g.StateGraph(S).add_node("asks", asks, error_handler=_handler)
    b.add_node("ok", say("ok")).add_edge(g.START, "asks").add_edge(g.START, "ok")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, thread("t1")))
        yield "state", snap(graph, thread("t1"))
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="because"), thread("t1")))

    def spec(r: Rec) -> None:
        assert r["resume"] == {"log": ["because", "ok"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def retried_node_records_only_its_last_attempt(g: EngineAPI) -> Case:
    types, _ = _names(g)

    def flaky(state: S, runtime: Any) -> dict[str, Any]:
        if runtime.execution_info.node_attempt < 2:
            raise Flaky("first attempt")
        return {"log": ["second attempt"]}

    policy = types.RetryPolicy(initial_interval=0.0, jitter=False)
    b = g.StateGraph(S).add_node("flaky", flaky, retry_policy=policy)
    graph = b.add_edge(g.START, "flaky").compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, thread("t1")))
        yield "history", history(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"log": ["second attempt"]}

    return Case(graph, script=script, spec=spec)


def _control(g: EngineAPI) -> Any:
    if g.name == "langgraph":
        from langgraph.runtime import RunControl
    else:
        from sgdebug.runtime import RunControl  # type: ignore[assignment]
    return RunControl()


def _draining(g: EngineAPI, **compile: Any) -> Any:
    def first(state: S, runtime: Any) -> dict[str, Any]:
        runtime.control.request_drain("sigterm")
        return {"log": ["first"]}

    b = g.StateGraph(S).add_node("first", first).add_node("second", say("second"))
    b.add_edge(g.START, "first").add_edge("first", "second")
    return b.compile(checkpointer=g.InMemorySaver(), **compile)


@ckpt
def drain_stops_before_the_next_step_and_resumes(g: EngineAPI) -> Case:
    graph = _draining(g)

    def script() -> Script:
        control = _control(g)
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, thread("t1"), control=control))
        yield "reason", control.drain_reason
        yield "state", snap(graph, thread("t1"))
        yield "resume", attempt(lambda: graph.invoke(None, thread("t1")))
        modes = ["updates", "tasks", "values"]
        yield "stream", attempt(lambda: list(graph.stream(
            {"log": []}, thread("t2"), control=_control(g), stream_mode=modes
        )))  # fmt: skip
        yield "history", history(graph, thread("t2"))

    def spec(r: Rec) -> None:
        assert r["invoke"].name == "GraphDrained"
        assert r["resume"] == {"log": ["first", "second"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def drain_gives_way_to_a_breakpoint_and_to_the_end(g: EngineAPI) -> Case:
    graph = _draining(g, interrupt_before=["second"])
    last = _draining(g)

    def script() -> Script:
        yield (
            "invoke",
            attempt(lambda: graph.invoke({"log": []}, thread("t1"), control=_control(g))),
        )
        yield "state", snap(graph, thread("t1"))
        yield "resume", attempt(lambda: graph.invoke(None, thread("t1")))
        drained = _control(g)
        drained.request_drain()
        yield (
            "pre-drained",
            attempt(lambda: last.invoke({"log": []}, thread("t2"), control=drained)),
        )
        yield "pre-drained state", snap(last, thread("t2"))

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"log": ["first"]}
        assert r["resume"] == {"log": ["first", "second"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def error_handler_that_crashed_runs_again_on_resume(g: EngineAPI) -> Case:
    calls: list[str] = []

    def bad(state: S) -> dict[str, Any]:
        calls.append("bad")
        raise Flaky("boom")

    def handler(state: S, error: NodeError) -> dict[str, Any]:
        calls.append("handler")
        if calls.count("handler") == 1:
            raise Flaky("handler crash")
        return {"log": [f"recovered {error.node}: {'boom' in str(error.error)}"]}

    b = g.StateGraph(S).set_node_defaults(error_handler=handler).add_node("bad", bad)
    b.add_node("ok", say("ok")).add_edge(g.START, "bad").add_edge(g.START, "ok")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        calls.clear()
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, thread("t1")))
        yield "state", snap(graph, thread("t1"))
        yield "resume", attempt(lambda: graph.invoke(None, thread("t1")))
        yield "calls", list(calls)
        yield "history", history(graph, thread("t1"))

    def spec(r: Rec) -> None:
        assert r["resume"] == {"log": ["recovered bad: True", "ok"]}
        assert r["calls"] == ["bad", "handler", "handler"]

    return Case(graph, script=script, spec=spec)


@ckpt
def invalid_answer_does_not_cancel_an_answered_sibling(g: EngineAPI) -> Case:
    import asyncio

    from .checkpoint_response import Decision

    sent: list[str] = []

    async def send(state: S) -> dict[str, Any]:
        g.interrupt("send?", response_schema=Decision)
        sent.append("email")
        await asyncio.sleep(0.05)
        return {"log": ["sent"]}

    async def check(state: S) -> dict[str, Any]:
        g.interrupt("check?", response_schema=Decision)
        return {"log": ["checked"]}

    b = g.StateGraph(S).add_node("send", send).add_node("check", check)
    b.add_edge(g.START, "send").add_edge(g.START, "check")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        sent.clear()
        cfg = thread("t1")
        yield "ask", attempt(lambda: asyncio.run(graph.ainvoke({"log": []}, cfg)))
        ids = {i.value: i.id for i in graph.get_state(cfg).interrupts}
        answers = {ids["send?"]: {"approved": True}, ids["check?"]: {"approved": "nope"}}
        yield "bad", attempt(lambda: asyncio.run(graph.ainvoke(g.Command(resume=answers), cfg)))
        yield "pending", [i.value for i in graph.get_state(cfg).interrupts]
        yield "sent", list(sent)
        good = {ids["check?"]: {"approved": True}}
        yield "good", attempt(lambda: asyncio.run(graph.ainvoke(g.Command(resume=good), cfg)))
        yield "sent after", list(sent)

    def spec(r: Rec) -> None:
        assert r["pending"] == ["check?"] and r["sent after"] == ["email"]

    return Case(graph, script=script, spec=spec)
