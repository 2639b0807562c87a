"""Checkpoint programs: dynamic ``interrupt()`` and resuming with ``Command(resume=...)``.

See ``programs/checkpoint.py`` for how these scripts are observed and compared.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, err, say, typed_dict
from .checkpoint import CFG, Rec, S, Script, ckpt, events, history, snap, thread

MULTI = (
    "When there are multiple pending interrupts, you must specify the interrupt id when "
    "resuming. Docs: https://docs.langchain.com/oss/python/langgraph/interrupts"
    "#handling-multiple-interrupts."
)


def _value(interrupt: Any) -> Any:
    """The ``value`` of a recorded (normalised) ``Interrupt``."""
    return interrupt.fields["value"]


def _asker(g: EngineAPI, calls: list[str], checkpointer: bool = True) -> Any:
    def ask(s: Any) -> dict[str, Any]:
        calls.append("ask")
        first = g.interrupt("first?")
        second = g.interrupt({"q": "second?"})
        return {"log": [f"{first}/{second}"]}

    b = g.StateGraph(S).add_node("ask", ask).add_node("sib", say("sib")).add_node("end", say("end"))
    b.add_edge(g.START, "ask").add_edge(g.START, "sib").add_edge("ask", "end")
    return b.compile(checkpointer=g.InMemorySaver() if checkpointer else None)


@ckpt
def dynamic_interrupt_resumed_twice(g: EngineAPI) -> Case:
    calls: list[str] = []
    graph = _asker(g, calls)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}, CFG))
        yield "paused", snap(graph)
        resume = g.Command(resume="A")
        yield "resume 1", events(lambda: graph.stream(resume, CFG, stream_mode="values"))
        yield "paused again", snap(graph)
        yield "resume 2", events(lambda: graph.stream(g.Command(resume="B"), CFG))
        yield "final", snap(graph)
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        out = r["invoke"]
        assert out["log"] == ["sib"]  # the sibling's writes are in the returned state (5.2)
        assert [_value(i) for i in out["__interrupt__"]] == ["first?"]
        assert isinstance(out["__interrupt__"], list)
        assert r["paused"]["next"] == ("ask",)
        assert _value(r["resume 1"][1]["__interrupt__"][0]) == {"q": "second?"}
        assert r["final"]["values"]["log"] == ["A/B", "sib", "end"]
        assert r["calls"] == ["ask"] * 3  # two interrupts, two resumes, three runs of the body

    return Case(graph, script=script, spec=spec)


@ckpt
def none_after_a_partial_resume_reuses_the_resume_value(g: EngineAPI) -> Case:
    """LangGraph 1.2.22 keeps the run-wide resume value: after ``Command(resume="A")``
    answered the first of two ``interrupt()`` calls, ``invoke(None)`` re-runs the node and the
    second call also gets ``"A"`` (the document says ``None`` does not resume; it does not
    cover this case)."""
    calls: list[str] = []
    graph = _asker(g, calls)

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "resume 1", attempt(lambda: graph.invoke(g.Command(resume="A"), CFG))
        yield "none", attempt(lambda: graph.invoke(None, CFG))
        yield "resume on finished", events(lambda: graph.stream(g.Command(resume="B"), CFG))
        yield "final", snap(graph)
        yield "calls", list(calls)
        yield "history", history(graph)

    return Case(graph, script=script)


@ckpt
def dynamic_interrupt_without_checkpointer(g: EngineAPI) -> Case:
    graph = _asker(g, [], checkpointer=False)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"x": 1}))
        yield "updates", events(lambda: graph.stream({"x": 1}))
        yield "values", events(lambda: graph.stream({"x": 1}, stream_mode="values"))
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="A")))

    def spec(r: Rec) -> None:
        assert [_value(i) for i in r["invoke"]["__interrupt__"]] == ["first?"]  # no error
        no_saver = "Cannot use Command(resume=...) without checkpointer"
        assert r["resume"] == err("RuntimeError", no_saver)  # observed, not in the document

    return Case(graph, script=script, spec=spec)


def _send_askers(g: EngineAPI, asks: tuple[int, ...], calls: list[int]) -> Any:
    """``split`` sends 1..3 to ``ask``; the Sends in ``asks`` call ``interrupt()``."""

    def ask(n: Any) -> dict[str, Any]:
        calls.append(n)
        answer = g.interrupt(f"q{n}") if n in asks else "done"
        return {"log": [f"{n}:{answer}"]}

    b = g.StateGraph(S).add_node("split", say("split")).add_node("ask", ask)
    b.add_node("after", say("after")).add_edge("ask", "after")
    b.add_edge(g.START, "split").add_conditional_edges(
        "split", lambda s: [g.Send("ask", n) for n in (1, 2, 3)]
    )
    return b.compile(checkpointer=g.InMemorySaver())


@ckpt
def several_pending_interrupts_need_ids(g: EngineAPI) -> Case:
    calls: list[int] = []
    graph = _send_askers(g, (1, 3), calls)

    def script() -> Script:
        out = graph.invoke({"x": 1}, CFG)
        yield "invoke", out
        yield "bare resume", attempt(lambda: graph.invoke(g.Command(resume="v"), CFG))
        yield "calls", sorted(calls)
        by_value = {i.value: i.id for i in out["__interrupt__"]}
        yield "resume q1", graph.invoke(g.Command(resume={by_value["q1"]: "one"}), CFG)
        yield "paused", snap(graph)
        yield "bare resume of the last", attempt(lambda: graph.invoke(g.Command(resume="3"), CFG))
        yield "all calls", sorted(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert sorted(_value(i) for i in r["invoke"]["__interrupt__"]) == ["q1", "q3"]
        assert r["bare resume"] == err("RuntimeError", MULTI)
        assert [_value(i) for i in r["paused"]["interrupts"]] == ["q3"]  # q3 still pending
        done = ["1:one", "2:done", "3:3", "after", "split"]
        assert sorted(r["bare resume of the last"]["log"]) == done
        assert r["all calls"].count(2) == 1  # the finished Send is not re-run (5.2)

    return Case(graph, script=script, spec=spec)


@ckpt
def parallel_interrupts_resumed_together_by_id(g: EngineAPI) -> Case:
    def asker(name: str) -> Any:
        def node(s: Any) -> dict[str, Any]:
            return {"log": [f"{name}={g.interrupt(name)}"]}

        return node

    b = g.StateGraph(S).add_node("p", asker("p")).add_node("q", asker("q"))
    b.add_node("sib", say("sib")).add_node("join", say("join"))
    for name in ("p", "q", "sib"):
        b.add_edge(g.START, name)
    b.add_edge(["p", "q"], "join")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        out = graph.invoke({"x": 1}, CFG)
        yield "interrupts", sorted(i.value for i in out["__interrupt__"])
        yield "paused", snap(graph)
        answers = {i.id: i.value.upper() for i in out["__interrupt__"]}
        yield "resume both", attempt(lambda: graph.invoke(g.Command(resume=answers), CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["interrupts"] == ["p", "q"]
        assert r["paused"]["next"] == ("p", "q")  # the finished sibling is excluded (5.4)
        assert r["resume both"]["log"] == ["p=P", "q=Q", "sib", "join"]  # by task name (3.5)

    return Case(graph, script=script, spec=spec)


@ckpt
def dynamic_interrupt_none_input_reinterrupts(g: EngineAPI) -> Case:
    calls: list[str] = []

    def ask(s: Any) -> dict[str, Any]:
        calls.append("ask")
        return {"log": [str(g.interrupt("only?"))]}

    b = g.StateGraph(S).add_node("ask", ask).add_edge(g.START, "ask")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", graph.invoke({"x": 1}, CFG)
        yield "none", graph.invoke(None, CFG)
        yield "paused", snap(graph)
        yield "resume", graph.invoke(g.Command(resume="yes"), CFG)
        yield "calls", len(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert _value(r["none"]["__interrupt__"][0]) == "only?"  # None does not resume (5.2)
        assert r["resume"] == {"x": 1, "log": ["yes"]}
        assert r["calls"] == 3

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupt_streams_and_snapshots(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"x": g.interrupt({"need": s["x"]})}

    b = g.StateGraph(S).add_node("a", say("a")).add_node("ask", ask).add_node("c", say("c"))
    b.add_edge(g.START, "a").add_edge("a", "ask").add_edge("ask", "c")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "updates", events(lambda: graph.stream({"x": 1}, thread("u")))
        yield "values", events(lambda: graph.stream({"x": 1}, thread("v"), stream_mode="values"))
        modes = ["updates", "values", "tasks"]
        yield "multi", events(lambda: graph.stream({"x": 1}, CFG, stream_mode=modes))
        yield "paused", snap(graph)
        resume = g.Command(resume=42)
        yield "resume", events(lambda: graph.stream(resume, CFG, stream_mode=modes))
        yield "final", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        last = r["updates"][-1]["__interrupt__"]
        assert isinstance(last, tuple) and _value(last[0]) == {"need": 1}  # tuple in streams
        assert _value(r["values"][-1]["__interrupt__"][0]) == {"need": 1}
        paused = r["paused"]
        assert paused["next"] == ("ask",) and _value(paused["interrupts"][0]) == {"need": 1}
        assert paused["tasks"][0]["interrupts"] == paused["interrupts"]
        assert r["final"]["values"] == {"x": 42, "log": ["a", "c"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupt_inside_a_loop_asks_again(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"x": s["x"] + 1, "log": [str(g.interrupt(f"round {s['x']}"))]}

    b = g.StateGraph(S).add_node("ask", ask).add_edge(g.START, "ask")
    b.add_conditional_edges("ask", lambda s: "ask" if s["x"] < 3 else g.END)
    graph = b.compile(checkpointer=g.InMemorySaver())

    def resume(answer: str) -> Any:
        return attempt(lambda: graph.invoke(g.Command(resume=answer), CFG))

    def script() -> Script:
        out = graph.invoke({"x": 0}, CFG)
        yield "first", out
        for answer in ("r0", "r1", "r2", "extra"):
            yield f"resume {answer}", resume(answer)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert _value(r["resume r1"]["__interrupt__"][0]) == "round 2"
        assert r["resume r2"] == {"x": 3, "log": ["r0", "r1", "r2"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def command_resume_with_update(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"log": [f"{g.interrupt('q')}@{s['x']}"]}

    b = g.StateGraph(S).add_node("ask", ask).add_node("b", say("b"))
    b.add_edge(g.START, "ask").add_edge("ask", "b")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        cmd = g.Command(resume="yes", update={"x": 7})
        yield "resume", events(lambda: graph.stream(cmd, CFG, stream_mode="values"))
        yield "final", snap(graph)
        yield "history", history(graph)

    return Case(graph, script=script)


@ckpt
def breakpoint_before_send_tasks_and_next_order(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("split", say("split")).add_node("w", lambda n: {"log": [n]})
    b.add_node("z", say("z")).add_node("a", say("a"))
    b.add_edge(g.START, "split").add_edge("split", "z").add_edge("split", "a")
    b.add_conditional_edges("split", lambda s: [g.Send("w", "w1"), g.Send("w", "w2")])
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["w"])

    def script() -> Script:
        yield "checkpoints", events(lambda: graph.stream({"x": 1}, CFG, stream_mode="checkpoints"))
        yield "paused", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["checkpoints"][-1]["next"] == ["w", "w", "a", "z"]  # live loop: sorted names
        assert r["paused"]["next"] == ("w", "w", "z", "a")  # get_state: add_node order (3.3)
        assert r["resume"]["log"] == ["split", "a", "z", "w1", "w2"]  # pull before push (3.5)

    return Case(graph, script=script, spec=spec)


@ckpt
def async_interrupt_and_resume(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"log": [str(g.interrupt("q"))]}

    b = g.StateGraph(S).add_node("a", say("a")).add_node("ask", ask).add_node("c", say("c"))
    b.add_edge(g.START, "a").add_edge("a", "ask").add_edge("ask", "c")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_after=["a"])

    async def collect(inp: Any) -> list[Any]:
        return [e async for e in graph.astream(inp, CFG, stream_mode=["updates", "values"])]

    def script() -> Script:
        yield "run", asyncio.run(collect({"x": 1}))
        yield "after breakpoint", asyncio.run(collect(None))
        yield "paused", snap(graph)
        yield "resume", asyncio.run(graph.ainvoke(g.Command(resume="r"), CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["run"][-1] == ("updates", {"__interrupt__": ()})
        assert r["resume"] == {"x": 1, "log": ["a", "r", "c"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupt_with_a_list_state_returns_only_the_interrupts(g: EngineAPI) -> Case:
    def ask(state: list[str]) -> list[str]:
        return [g.interrupt("q?")]

    b = g.StateGraph(Annotated[list, operator.add]).add_node("first", lambda s: ["first"])
    b.add_node("ask", ask).add_edge(g.START, "first").add_edge("first", "ask")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke(["in"], CFG))
        yield "paused", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="A"), CFG))

    def spec(r: Rec) -> None:
        assert list(r["invoke"]) == ["__interrupt__"]
        assert r["paused"]["values"] == ["in", "first"]
        assert r["resume"] == ["in", "first", "A"]

    return Case(graph, script=script, spec=spec)


def _counting(g: EngineAPI) -> Any:
    """``a -> ask -> c``, each logging the remaining steps it sees; ``ask`` interrupts."""
    M = typed_dict("M", {"log": Annotated[list[str], operator.add], "rem": g.RemainingSteps})

    def ask(s: Any) -> dict[str, Any]:
        answer = g.interrupt("go?")
        return {"log": [f"ask:{s['rem']}:{answer}"]}

    b = g.StateGraph(M).add_node("a", lambda s: {"log": [f"a:{s['rem']}"]})
    b.add_node("ask", ask).add_node("c", lambda s: {"log": [f"c:{s['rem']}"]})
    b.add_edge(g.START, "a").add_edge("a", "ask").add_edge("ask", "c")
    return b.compile(checkpointer=g.InMemorySaver())


@ckpt
def remaining_steps_count_from_the_resumed_step(g: EngineAPI) -> Case:
    graph = _counting(g)
    small = {"configurable": {"thread_id": "small"}, "recursion_limit": 3}

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "resumed", attempt(lambda: graph.invoke(g.Command(resume="yes"), CFG))
        yield "again", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "small", attempt(lambda: graph.invoke({"log": []}, small))
        yield "small resumed", attempt(lambda: graph.invoke(g.Command(resume="y"), small))

    def spec(r: Rec) -> None:
        # A resumed run's limit counts from the step it resumes at, not from the checkpoint
        # before it: the step after the interrupt sees more remaining steps than before it.
        assert r["resumed"]["log"] == ["a:10006", "ask:10008:yes", "c:10007"]

    return Case(graph, script=script, spec=spec)


@ckpt
def resumed_step_whose_commit_fails_reports_only_the_finished_sibling(g: EngineAPI) -> Case:
    def asks(state: S) -> dict[str, Any]:
        return {"x": 2, "log": [g.interrupt("q")]}

    b = g.StateGraph(S).add_node("done", say("done", x=1)).add_node("asks", asks)
    b.add_edge(g.START, "done").add_edge(g.START, "asks")
    graph = b.compile(checkpointer=g.InMemorySaver())
    modes = ["updates", "tasks"]

    def script() -> Script:
        yield "asks", attempt(lambda: graph.invoke({"x": 0, "log": []}, CFG))
        yield "resumed", events(lambda: graph.stream(g.Command(resume="a"), CFG, stream_mode=modes))
        yield "state", snap(graph)

    def spec(r: Rec) -> None:
        # the one task the resumed step runs is reported once its commit succeeds: it fails
        assert [e[1] for e in r["resumed"][:-1] if e[0] == "updates"] == [
            {"done": {"log": ["done"], "x": 1}, "__metadata__": {"cached": True}}
        ]

    return Case(graph, script=script, spec=spec)
