"""Stream programs: ``version="v2"`` parts, ``invoke(version="v2")``'s ``GraphOutput``,
``print_mode=`` and ``debug=True`` (what is printed), on a thread with a saver.

Printed text is captured from stdout and compared as it is; v2 parts are compared whole
(the wall-clock timestamps of debug payloads dropped). See ``programs/checkpoint.py`` for
how these scripts are observed and compared.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, Raised, attempt, drop_timestamp, say
from .checkpoint import CFG, Rec, S, Script, chain, ckpt, events, history, thread


class P(BaseModel):
    """A pydantic state: v2 values parts carry instances of it."""

    x: int = 0
    note: str = ""


def _part(part: Any) -> Any:
    if isinstance(part, dict) and "data" in part:
        return {**part, "data": drop_timestamp(part["data"])}
    return part


def _parts(call: Callable[[], Any]) -> Any:
    return attempt(lambda: [_part(p) for p in call()])


def _output(result: Any) -> Any:
    """A ``GraphOutput`` as comparable data (its class name, value and interrupts)."""
    return (type(result).__name__, result.value, result.interrupts)


def _printed(call: Callable[[], Any]) -> Any:
    """What ``call()`` printed, and what it returned (or raised)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = attempt(call)
    return out.getvalue(), result


async def _alist(parts: Any) -> list[Any]:
    return [_part(p) async for p in parts]


@ckpt
def stream_version_v2_parts(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["c"])
    modes = ["values", "updates", "tasks", "checkpoints", "debug"]

    def script() -> Script:
        yield "stream", _parts(lambda: graph.stream({"x": 1}, CFG, stream_mode=modes, version="v2"))
        yield "resume", _parts(lambda: graph.stream(None, CFG, version="v2"))
        yield "one mode", _parts(lambda: graph.stream({"x": 2}, thread("t2"), version="v2"))
        parts = graph.astream({"x": 3}, thread("t3"), stream_mode="values", version="v2")
        yield "astream", attempt(lambda: asyncio.run(_alist(parts)))

    def spec(r: Rec) -> None:
        values = [p for p in r["stream"] if p["type"] == "values"]
        assert values[0] == {
            "type": "values",
            "ns": (),
            "data": {"x": 1, "log": []},
            "interrupts": (),
        }
        assert {p["type"] for p in r["stream"]} == set(modes)
        assert r["resume"][-1]["type"] == "updates"
        assert r["astream"][-1]["data"] == {"x": 3, "log": ["a", "b"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def invoke_version_v2_graph_output(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["c"])
    b = g.StateGraph(P)

    def ask(state: P) -> dict[str, Any]:
        return {"note": g.interrupt("note?")}

    b.add_node("a", lambda s: {"x": s.x + 1}).add_node("ask", ask)
    b.add_edge(g.START, "a").add_edge("a", "ask")
    typed = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "breakpoint", attempt(lambda: _output(graph.invoke({"x": 1}, CFG, version="v2")))
        yield "resume", attempt(lambda: _output(graph.invoke(None, CFG, version="v2")))
        yield (
            "updates",
            attempt(
                lambda: graph.invoke({"x": 1}, thread("u"), stream_mode="updates", version="v2")
            ),
        )
        yield "interrupt", attempt(lambda: _output(typed.invoke({"x": 1}, CFG, version="v2")))
        answer = g.Command(resume="hi")
        done = typed.ainvoke(answer, CFG, version="v2")
        yield "answered", attempt(lambda: _output(asyncio.run(done)))

    def spec(r: Rec) -> None:
        assert r["breakpoint"] == ("GraphOutput", {"x": 1, "log": ["a", "b"]}, ())
        assert r["resume"][1] == {"x": 1, "log": ["a", "b", "c"]}
        assert repr(r["interrupt"][1]) == "P({'x': 2, 'note': ''})"  # (as normalised)
        assert len(r["interrupt"][2]) == 1
        assert repr(r["answered"][1]) == "P({'x': 2, 'note': 'hi'})"

    return Case(graph, script=script, spec=spec)


@ckpt
def print_mode_and_debug_print_events(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge("a", "b")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "debug invoke", _printed(lambda: graph.invoke({"x": 1}, thread("d"), debug=True))
        yield (
            "print updates",
            _printed(
                lambda: list(
                    graph.stream({"x": 1}, CFG, stream_mode="values", print_mode="updates")
                )
            ),
        )
        yield (
            "print both",
            _printed(lambda: graph.invoke({"x": 2}, thread("p"), print_mode=["values", "updates"])),
        )
        yield (
            "debug stream",
            _printed(
                lambda: list(graph.stream({"x": 3}, thread("s"), stream_mode="updates", debug=True))
            ),
        )

    def spec(r: Rec) -> None:
        printed, result = r["debug invoke"]
        assert printed.splitlines()[0] == "\x1b[1m[values]\x1b[0m {'x': 1, 'log': []}"
        assert result == {"x": 1, "log": ["a", "b"]}
        assert r["print updates"][0].count("[updates]") == 2
        assert "[values]" not in r["print updates"][0]

    return Case(graph, script=script, spec=spec)


@ckpt
def a_failing_task_result_is_streamed_before_its_error(g: EngineAPI) -> Case:
    def failing(state: Any) -> dict[str, Any]:
        raise ValueError("boom")

    b = g.StateGraph(S).add_node("a", say("a")).add_node("failing", failing)
    b.add_edge(g.START, "a").add_edge("a", "failing")
    graph = b.compile(checkpointer=g.InMemorySaver())
    no_saver = b.compile()

    def script() -> Script:
        yield "tasks", events(lambda: graph.stream({"x": 1}, CFG, stream_mode="tasks"))
        modes = ["debug", "updates"]
        yield "debug", events(lambda: no_saver.stream({"x": 1}, stream_mode=modes))
        yield (
            "v2",
            _parts(lambda: list(no_saver.stream({"x": 1}, stream_mode="tasks", version="v2"))),
        )

    def spec(r: Rec) -> None:
        failed = r["tasks"][-2]
        assert (failed["name"], failed["error"]) == ("failing", Raised("ValueError", "boom"))
        assert r["tasks"][-1] == Raised("ValueError", "boom")
        kinds = [e[1]["type"] for e in r["debug"][:-1] if e[0] == "debug"]
        assert kinds[-2:] == ["task", "task_result"]

    return Case(graph, script=script, spec=spec)


@ckpt
def a_task_writing_a_key_twice_shows_its_writes(g: EngineAPI) -> Case:
    def twice(state: Any) -> Any:
        return [g.Command(update={"log": ["one.0"]}), g.Command(update={"log": ["one.1"]})]

    b = g.StateGraph(S).add_node("twice", twice).add_node("b", say("b"))
    b.add_edge(g.START, "twice").add_edge("twice", "b")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_after=["twice"])

    def script() -> Script:
        modes = ["tasks", "checkpoints", "debug"]
        yield "run", events(lambda: graph.stream({"x": 1}, CFG, stream_mode=modes))
        yield "history", history(graph)
        yield "resume", events(lambda: graph.stream(None, CFG, stream_mode=modes))

    def spec(r: Rec) -> None:
        results = [e[1] for e in r["run"] if e[0] == "tasks" and "result" in e[1]]
        assert results[0]["result"] == {"log": {"$writes": [["one.0"], ["one.1"]]}}

    return Case(graph, script=script, spec=spec)


async def _root_events(graph: Any, *args: Any, **kwargs: Any) -> list[Any]:
    """The graph run's own ``astream_events`` (v2) events: event, name, data, run id given.

    Only root events are compared here (node and model events: tests/runtime/
    test_astream_events.py)."""
    out: list[Any] = []
    async for event in graph.astream_events(*args, version="v2", **kwargs):
        if not event["parent_ids"]:
            out.append((event["event"], event["name"], event["data"], event["run_id"]))
    return out


@ckpt
def astream_events_of_the_graph_run_and_graph_pipes(g: EngineAPI) -> Case:
    from uuid import UUID

    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    graph = chain(g, interrupt_before=["c"])
    run_id = {"run_id": UUID(int=7)}

    def script() -> Script:
        yield "events", attempt(lambda: asyncio.run(_root_events(graph, {"x": 1}, CFG)))
        values = {**thread("v"), **run_id}
        yield (
            "values",
            attempt(
                lambda: asyncio.run(_root_events(graph, {"x": 2}, values, stream_mode="values"))
            ),
        )
        piped = graph | RunnablePassthrough()
        yield "pipe invoke", attempt(lambda: piped.invoke({"x": 3}, thread("p")))
        yield "pipe stream", attempt(lambda: list(piped.stream({"x": 4}, thread("q"))))
        upper = graph | RunnableLambda(lambda s: s["log"])
        yield "pipe ainvoke", attempt(lambda: asyncio.run(upper.ainvoke({"x": 5}, thread("r"))))

    def spec(r: Rec) -> None:
        kinds = [e[0] for e in r["events"]]
        assert kinds[0] == "on_chain_start" and kinds[-1] == "on_chain_end"
        assert r["events"][-1][2] == {"output": {"x": 1, "log": ["a", "b"]}}
        assert r["values"][0][3] == r["values"][-1][3]  # the given run id (normalised)
        assert r["pipe ainvoke"] == ["a", "b"]

    return Case(graph, script=script, spec=spec)


@ckpt
def root_state_task_results_in_tasks_and_history(g: EngineAPI) -> Case:
    import operator
    from typing import Annotated

    def one(state: Any) -> Any:
        return [g.Command(update="a1"), g.Command(update="a2")]

    b = g.StateGraph(Annotated[str, operator.add]).add_node("one", one)
    b.add_node("two", lambda s: "b").add_edge(g.START, "one").add_edge("one", "two")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "tasks", events(lambda: graph.stream("", CFG, stream_mode="tasks"))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        results = [t["result"] for h in r["history"] for t in h["tasks"]]
        assert results == ["b", {"$writes": ["a1", "a2"]}, ""]

    return Case(graph, script=script, spec=spec)
