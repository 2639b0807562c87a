"""Checkpoint programs: subgraphs' configs, checkpoints, interrupts and errors (issue 15).

A subgraph (a compiled graph added as a node, invoked by a node's code, or started by a
``Send``) runs on its parent's thread under its own checkpoint namespace; its interrupts
stop the parent and a resume re-enters it at its own checkpoint. See ``checkpoint.py`` for
how the scripts are observed and compared.
"""

from __future__ import annotations

import asyncio
import operator
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, say

if TYPE_CHECKING:
    from langgraph.runtime import Runtime

from .checkpoint import CFG, Rec, Script, ckpt, events, history, snap, thread, view


class L(TypedDict):
    """An append log (the state of every graph here)."""

    log: Annotated[list[str], operator.add]


def _values(interrupts: Any) -> list[Any]:
    return [i.fields["value"] for i in interrupts]


def _seen(calls: list[Any], name: str) -> Any:
    """A node that records the config it receives (without LangGraph's internal keys)."""

    def node(state: Any, config: RunnableConfig) -> dict[str, Any]:
        conf = config["configurable"]
        meta = config["metadata"]
        calls.append(
            {
                "node": name,
                "configurable": {k: v for k, v in conf.items() if not k.startswith("__")},
                "ns": meta.get("langgraph_checkpoint_ns"),
                "meta_ns": meta.get("checkpoint_ns"),
            }
        )
        return {"log": [name]}

    return node


def _three_levels(g: EngineAPI, calls: list[Any], saver: Any) -> Any:
    inner = g.StateGraph(L).add_node("i1", _seen(calls, "i1")).add_edge(g.START, "i1")
    mid = g.StateGraph(L).add_node("m1", _seen(calls, "m1")).add_node("inner", inner.compile())
    mid.add_edge(g.START, "m1").add_edge("m1", "inner")
    top = g.StateGraph(L).add_node("p", _seen(calls, "p")).add_node("mid", mid.compile())
    top.add_edge(g.START, "p").add_edge("p", "mid")
    return top.compile(checkpointer=saver)


@ckpt
def subgraph_nodes_see_their_namespace_in_config(g: EngineAPI) -> Case:
    calls: list[Any] = []
    graph = _three_levels(g, calls, g.InMemorySaver())
    plain_calls: list[Any] = []
    plain = _three_levels(g, plain_calls, None)

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "configs", list(calls)
        yield "root history", history(graph)
        user = {"configurable": {"user": "u"}}
        yield "no saver", attempt(lambda: plain.invoke({"log": []}, user))
        yield "no saver configs", list(plain_calls)

    def spec(r: Rec) -> None:
        inner = r["configs"][2]
        assert inner["node"] == "i1"
        assert inner["ns"].count("|") == 2 and inner["ns"].startswith("mid:")
        assert inner["configurable"]["checkpoint_ns"] == inner["ns"]
        assert inner["configurable"]["checkpoint_id"] is None
        assert len(inner["configurable"]["checkpoint_map"]) == 3
        assert r["no saver configs"][2]["configurable"]["user"] == "u"
        assert r["configs"][0]["meta_ns"] is None
        assert len(r["root history"]) == 4  # the subgraphs' checkpoints are not the root's

    return Case(graph, script=script, spec=spec)


def _persistent(g: EngineAPI, checkpointer: Any) -> Any:
    inner = g.StateGraph(L).add_node("i1", say("i1")).add_edge(g.START, "i1")
    top = g.StateGraph(L).add_node("sub", inner.compile(checkpointer=checkpointer))
    return top.add_edge(g.START, "sub").compile(checkpointer=g.InMemorySaver())


@ckpt
def subgraph_checkpointer_true_keeps_its_state_across_invocations(g: EngineAPI) -> Case:
    graph = _persistent(g, True)

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"log": ["x"]}, CFG))
        yield "second", attempt(lambda: graph.invoke({"log": ["y"]}, CFG))
        yield "other thread", attempt(lambda: graph.invoke({"log": ["z"]}, thread("t2")))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["first"] == {"log": ["x", "x", "i1"]}
        # The subgraph's second run starts from its own first run's state.
        assert r["second"]["log"][4:7] == ["x", "i1", "x"]
        assert r["other thread"] == {"log": ["z", "z", "i1"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def subgraph_with_own_saver_or_none_starts_fresh_each_time(g: EngineAPI) -> Case:
    own = _persistent(g, g.InMemorySaver())
    none = _persistent(g, None)
    never = _persistent(g, False)

    def script() -> Script:
        for label, graph in (("own", own), ("none", none), ("false", never)):
            yield f"{label} first", attempt(partial(graph.invoke, {"log": ["x"]}, CFG))
            yield f"{label} second", attempt(partial(graph.invoke, {"log": ["y"]}, CFG))

    def spec(r: Rec) -> None:
        for label in ("own", "none", "false"):
            assert r[f"{label} second"]["log"][3:] == ["y", "x", "x", "i1", "y", "i1"]

    return Case(own, script=script, spec=spec)


def _asking_child(g: EngineAPI, calls: list[str], **compile_kwargs: Any) -> Any:
    def ask(state: Any) -> dict[str, Any]:
        calls.append("ask")
        first = g.interrupt("first?")
        second = g.interrupt("second?")
        return {"log": [f"{first}/{second}"]}

    def note(word: str) -> Any:
        def node(state: Any) -> dict[str, Any]:
            calls.append(word)
            return {"log": [word]}

        return node

    inner = g.StateGraph(L).add_node("i1", note("i1")).add_node("ask", ask)
    inner.add_node("i2", note("i2"))
    inner.add_edge(g.START, "i1").add_edge("i1", "ask").add_edge("ask", "i2")
    return inner.compile(**compile_kwargs)


@ckpt
def interrupt_two_levels_down_resumed_by_value_then_by_id(g: EngineAPI) -> Case:
    calls: list[str] = []
    mid = g.StateGraph(L).add_node("m", say("m")).add_node("inner", _asking_child(g, calls))
    mid.add_edge(g.START, "m").add_edge("m", "inner")
    top = g.StateGraph(L).add_node("p", say("p")).add_node("sub", mid.compile())
    top.add_node("z", say("z")).add_edge(g.START, "p").add_edge("p", "sub").add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "paused", snap(graph)
        yield "resume", events(lambda: graph.stream(g.Command(resume="A"), CFG))
        paused = graph.get_state(CFG)
        yield "paused again", snap(graph)
        answer = {paused.interrupts[0].id: "B"}
        yield "by id", events(lambda: graph.stream(g.Command(resume=answer), CFG))
        yield "final", snap(graph)
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        out = r["invoke"]
        assert out["log"] == ["p"] and _values(out["__interrupt__"]) == ["first?"]
        assert r["paused"]["next"] == ("sub",)
        assert _values(r["paused"]["tasks"][0]["interrupts"]) == ["first?"]
        assert _values(r["paused again"]["interrupts"]) == ["second?"]
        assert r["final"]["values"]["log"][-3:] == ["A/B", "i2", "z"]
        # i1 and m ran once: the resumed subgraphs continued from their checkpoints.
        assert r["calls"] == ["i1", "ask", "ask", "ask", "i2"]

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupt_in_subgraph_invoked_by_node_code(g: EngineAPI) -> Case:
    calls: list[str] = []
    child = _asking_child(g, calls)

    def call(state: Any) -> dict[str, Any]:
        calls.append("call")
        out = child.invoke({"log": ["in"]})
        return {"log": out["log"]}

    top = g.StateGraph(L).add_node("call", call).add_node("z", say("z"))
    top.add_edge(g.START, "call").add_edge("call", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "paused", snap(graph)
        yield "resume 1", attempt(lambda: graph.invoke(g.Command(resume="A"), CFG))
        yield "resume 2", attempt(lambda: graph.invoke(g.Command(resume="B"), CFG))
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert _values(r["invoke"]["__interrupt__"]) == ["first?"]
        assert r["resume 2"] == {"log": ["in", "i1", "A/B", "i2", "z"]}
        assert r["calls"] == ["call", "i1", "ask", "call", "ask", "call", "ask", "i2"]

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupts_in_subgraphs_started_by_send(g: EngineAPI) -> Case:
    calls: list[str] = []
    child = _asking_child(g, calls)

    def fan(state: Any) -> list[Any]:
        return [g.Send("sub", {"log": [f"s{i}"]}) for i in range(2)]

    top = g.StateGraph(L).add_node("sub", child).add_node("z", say("z"))
    top.add_conditional_edges(g.START, fan, ["sub"]).add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def answers(label: str) -> dict[str, str]:
        pending = graph.get_state(CFG).interrupts
        return {i.id: f"{label}{n}" for n, i in enumerate(pending)}

    def asked() -> Any:  # (the order of parallel tasks' interrupts varies in LangGraph)
        out = graph.invoke({"log": []}, CFG)
        return sorted(i.value for i in out["__interrupt__"])

    def script() -> Script:
        yield "invoke", attempt(asked)
        yield "paused", snap(graph)
        yield "bare", events(lambda: graph.stream(g.Command(resume="X"), CFG))
        yield "first", attempt(lambda: graph.invoke(g.Command(resume=answers("a")), CFG))
        yield "second", attempt(lambda: graph.invoke(g.Command(resume=answers("b")), CFG))
        yield "final", snap(graph)
        yield "calls", sorted(calls)

    def spec(r: Rec) -> None:
        assert r["invoke"] == ["first?", "first?"]
        assert r["bare"][-1].name == "RuntimeError"  # two pending: the id is needed
        done = ["s0", "i1", "a0/b0", "i2", "s1", "i1", "a1/b1", "i2", "z"]
        assert sorted(r["second"]["log"]) == sorted(done)

    return Case(graph, script=script, spec=spec, unordered=True)


@ckpt
def static_breakpoint_compiled_into_subgraph(g: EngineAPI) -> Case:
    inner = g.StateGraph(L).add_node("i1", say("i1")).add_node("i2", say("i2"))
    inner.add_edge(g.START, "i1").add_edge("i1", "i2")
    top = g.StateGraph(L).add_node("sub", inner.compile(interrupt_before=["i2"]))
    top.add_node("z", say("z")).add_edge(g.START, "sub").add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "paused", snap(graph)
        yield "resume", events(lambda: graph.stream(None, CFG, stream_mode="values"))
        yield "final", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["invoke"] == {"log": []}
        assert r["paused"]["next"] == ("sub",) and r["paused"]["interrupts"] == ()
        assert r["final"]["values"] == {"log": ["i1", "i2", "z"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def error_in_subgraph_kept_and_rerun_resumes_it(g: EngineAPI) -> Case:
    calls: list[str] = []
    failing = [True]

    def flaky(state: Any) -> dict[str, Any]:
        calls.append("flaky")
        if failing[0]:
            failing[0] = False
            raise ValueError("not yet")
        return {"log": ["flaky"]}

    def note(state: Any) -> dict[str, Any]:
        calls.append("i1")
        return {"log": ["i1"]}

    inner = g.StateGraph(L).add_node("i1", note).add_node("flaky", flaky)
    inner.add_edge(g.START, "i1").add_edge("i1", "flaky")
    top = g.StateGraph(L).add_node("sub", inner.compile()).add_node("z", say("z"))
    top.add_edge(g.START, "sub").add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "failed", snap(graph)
        yield "rerun", attempt(lambda: graph.invoke(None, CFG))
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["invoke"].name == "ValueError"
        assert r["failed"]["next"] == ("sub",)
        assert "not yet" in r["failed"]["tasks"][0]["error"]
        assert r["rerun"] == {"log": ["i1", "flaky", "z"]}
        assert r["calls"] == ["i1", "flaky", "flaky"]  # i1 did not run again

    return Case(graph, script=script, spec=spec)


def _deep(st: Any) -> dict[str, Any]:
    """A snapshot view whose tasks' ``state`` (subgraph snapshots) are views too."""
    out = view(st)
    for task, raw in zip(out["tasks"], st.tasks, strict=True):
        if raw.state is not None and not isinstance(raw.state, dict):
            task["state"] = _deep(raw.state)
    return out


@ckpt
def subgraph_state_read_and_updated_through_its_config(g: EngineAPI) -> Case:
    calls: list[str] = []
    mid = g.StateGraph(L).add_node("m", say("m")).add_node("inner", _asking_child(g, calls))
    mid.add_edge(g.START, "m").add_edge("m", "inner")
    top = g.StateGraph(L).add_node("sub", mid.compile()).add_node("z", say("z"))
    top.add_edge(g.START, "sub").add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        graph.invoke({"log": []}, CFG)
        yield "with subgraphs", attempt(lambda: _deep(graph.get_state(CFG, subgraphs=True)))
        deep = asyncio.run(graph.aget_state(CFG, subgraphs=True))
        yield "async with subgraphs", _deep(deep)
        mid_cfg = graph.get_state(CFG).tasks[0].state
        yield "mid", snap(graph, mid_cfg)
        inner_cfg = graph.get_state(mid_cfg).tasks[0].state
        yield "inner", snap(graph, inner_cfg)
        yield "inner history", history(graph, inner_cfg)
        yield "update", attempt(lambda: graph.update_state(inner_cfg, {"log": ["edited"]}))
        yield "inner updated", snap(graph, inner_cfg)
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="A"), CFG))
        yield "final", attempt(lambda: graph.invoke(g.Command(resume="B"), CFG))
        unknown = {"configurable": {"thread_id": "t1", "checkpoint_ns": "nope:1"}}
        yield "unknown", snap(graph, unknown)
        yield "unknown history", history(graph, unknown)

    def spec(r: Rec) -> None:
        mid = r["with subgraphs"]["tasks"][0]["state"]
        assert mid["values"] == {"log": ["m"]} and mid["next"] == ("inner",)
        inner = mid["tasks"][0]["state"]
        assert inner["next"] == ("ask",) and inner["values"] == {"log": ["m", "i1"]}
        assert r["inner"]["values"] == inner["values"]
        assert r["inner updated"]["values"]["log"][-1] == "edited"
        assert r["final"]["log"][-2:] == ["i2", "z"]

    return Case(graph, script=script, spec=spec)


@ckpt
def interrupt_in_persistent_subgraph_and_its_state(g: EngineAPI) -> Case:
    calls: list[str] = []
    top = g.StateGraph(L).add_node("sub", _asking_child(g, calls, checkpointer=True))
    graph = top.add_edge(g.START, "sub").compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": ["x"]}, CFG))
        yield "with subgraphs", attempt(lambda: _deep(graph.get_state(CFG, subgraphs=True)))
        yield "resume 1", attempt(lambda: graph.invoke(g.Command(resume="A"), CFG))
        yield "resume 2", attempt(lambda: graph.invoke(g.Command(resume="B"), CFG))
        yield "again", attempt(lambda: graph.invoke({"log": ["y"]}, CFG))
        yield "calls", list(calls)

    def spec(r: Rec) -> None:
        inner = r["with subgraphs"]["tasks"][0]["state"]
        assert inner["next"] == ("ask",) and inner["values"] == {"log": ["x", "i1"]}
        assert r["resume 2"] == {"log": ["x", "x", "i1", "A/B", "i2"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def time_travel_into_a_subgraph_checkpoint(g: EngineAPI) -> Case:
    calls: list[str] = []
    top = g.StateGraph(L).add_node("sub", _asking_child(g, calls, checkpointer=True))
    graph = top.add_edge(g.START, "sub").compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        graph.invoke({"log": []}, CFG)
        at_first = graph.get_state(CFG, subgraphs=True).tasks[0].state.config
        graph.invoke(g.Command(resume="A"), CFG)
        graph.invoke(g.Command(resume="B"), CFG)
        calls.clear()
        yield "replay", attempt(lambda: graph.invoke(None, at_first))
        yield "after replay", history(graph)
        yield "resume 1", attempt(lambda: graph.invoke(g.Command(resume="C"), CFG))
        yield "resume 2", attempt(lambda: graph.invoke(g.Command(resume="D"), CFG))
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert _values(r["replay"]["__interrupt__"]) == ["first?"]
        assert [h["metadata"]["source"] for h in r["after replay"]][:2] == ["fork", "loop"]
        assert r["resume 2"] == {"log": ["i1", "C/D", "i2"]}
        assert "i1" not in r["calls"]  # it ran before the replayed checkpoint

    return Case(graph, script=script, spec=spec)


def _counting_parent(g: EngineAPI, seen: list[Any]) -> Any:
    def step(state: Any) -> dict[str, Any]:
        seen.append(list(state["log"]))
        return {"log": ["s"]}

    inner = g.StateGraph(L).add_node("step", step).add_edge(g.START, "step")
    top = g.StateGraph(L).add_node("a", say("a")).add_node("sub", inner.compile(checkpointer=True))
    top.add_edge(g.START, "a").add_edge("a", "sub")
    return top.compile(checkpointer=g.InMemorySaver())


@ckpt
def parent_replay_and_fork_give_a_persistent_subgraph_its_state_of_then(g: EngineAPI) -> Case:
    seen: list[Any] = []
    graph = _counting_parent(g, seen)

    def script() -> Script:
        graph.invoke({"log": []}, CFG)
        graph.invoke({"log": []}, CFG)
        graph.invoke({"log": []}, CFG)
        before_second = [h for h in graph.get_state_history(CFG) if h.next == ("a",)][1]
        seen.clear()
        yield "replay", attempt(lambda: graph.invoke(None, before_second.config))
        yield "seen on replay", list(seen)
        seen.clear()
        fork = graph.update_state(before_second.config, {"log": ["edit"]}, as_node="a")
        yield "fork", attempt(lambda: graph.invoke(None, fork))
        yield "seen on fork", list(seen)
        seen.clear()
        yield "latest again", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "seen at latest", list(seen)
        # (not the history: an update of a checkpoint whose task already ran replaces that
        # task's result in sgdebug's snapshot, LangGraph's keeps the first; not subgraphs')
        yield "latest", snap(graph)

    def spec(r: Rec) -> None:
        # Replaying the second invocation: the subgraph starts from its state after the
        # first (its input, then its own write), not from its latest.
        replayed, latest = r["seen on replay"][0], r["seen at latest"][0]
        assert replayed == ["a", "s", "a", "a", "s", "a"] and len(latest) > len(replayed)
        assert r["seen on fork"][0][:-1] == replayed[:-1]  # (the fork edited the last one)

    return Case(graph, script=script, spec=spec)


@ckpt
def graphs_a_node_runs_twice_or_on_their_own_thread(g: EngineAPI) -> Case:
    def count(state: Any) -> dict[str, Any]:
        return {"log": [f"n{len(state['log'])}"]}

    def persistent() -> Any:
        inner = g.StateGraph(L).add_node("count", count).add_edge(g.START, "count")
        return inner.compile(checkpointer=True)

    first, second = persistent(), persistent()
    own = g.StateGraph(L).add_node("count", count).add_edge(g.START, "count")
    own_graph = own.compile(checkpointer=g.InMemorySaver())
    asker = _asking_child(g, [], checkpointer=g.InMemorySaver())
    outs: list[Any] = []

    def node(state: Any) -> dict[str, Any]:
        outs.append(first.invoke({"log": ["x"]})["log"])
        outs.append(second.invoke({"log": ["y"]})["log"])
        outs.append(first.invoke({"log": ["z"]})["log"])  # a third: its own namespace
        outs.append(own_graph.invoke({"log": []}, thread("own"))["log"])
        asked = asker.invoke({"log": []}, thread("asker"))  # not a subgraph: returns
        outs.append([i.value for i in asked.get("__interrupt__", [])])
        return {"log": ["done"]}

    top = g.StateGraph(L).add_node("node", node).add_edge(g.START, "node")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "second", attempt(lambda: graph.invoke({"log": []}, CFG))
        yield "outs", list(outs)
        yield "own thread", snap(own_graph, thread("own"))
        yield "asker thread", snap(asker, thread("asker"))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["outs"][:5] == [["x", "n1"], ["y", "n1"], ["z", "n1"], ["n0"], ["first?"]]
        # The persistent subgraphs each kept their own state on the second invocation.
        assert r["outs"][5:9] == [["x", "n1", "x", "n3"], ["y", "n1", "y", "n3"],
                                  ["z", "n1", "z", "n3"], ["n0", "n1"]]  # fmt: skip
        assert r["asker thread"]["next"] == ("ask",)
        assert r["second"] == {"log": ["done", "done"]}

    return Case(graph, script=script, spec=spec)


@ckpt
def debug_stream_of_a_graph_with_a_subgraph(g: EngineAPI) -> Case:
    inner = g.StateGraph(L).add_node("i1", say("i1")).add_edge(g.START, "i1")
    top = g.StateGraph(L).add_node("sub", inner.compile()).add_node("z", say("z"))
    top.add_edge(g.START, "sub").add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "debug", events(lambda: graph.stream({"log": []}, CFG, stream_mode="debug"))
        yield (
            "checkpoints",
            events(lambda: graph.stream({"log": []}, thread("t2"), stream_mode="checkpoints")),
        )

    def spec(r: Rec) -> None:
        planned = [e for e in r["checkpoints"] if e["next"] == ["sub"]]
        assert planned[0]["tasks"][0]["state"]["configurable"]["checkpoint_ns"]

    return Case(graph, script=script, spec=spec)


@ckpt
def async_subgraph_interrupt_and_resume(g: EngineAPI) -> Case:
    async def first(state: Any) -> dict[str, Any]:
        return {"log": ["i1"]}

    async def ask(state: Any) -> dict[str, Any]:
        return {"log": [f"ans:{g.interrupt('q?')}"]}

    inner = g.StateGraph(L).add_node("i1", first).add_node("ask", ask)
    inner.add_edge(g.START, "i1").add_edge("i1", "ask")
    top = g.StateGraph(L).add_node("sub", inner.compile()).add_node("z", say("z"))
    top.add_edge(g.START, "sub").add_edge("sub", "z")
    graph = top.compile(checkpointer=g.InMemorySaver())

    async def resumed() -> list[Any]:
        return [c async for c in graph.astream(g.Command(resume="A"), CFG)]

    async def deep() -> Any:
        return _deep(await graph.aget_state(CFG, subgraphs=True))

    def script() -> Script:
        yield "invoke", attempt(lambda: asyncio.run(graph.ainvoke({"log": []}, CFG)))
        yield "with subgraphs", attempt(lambda: asyncio.run(deep()))
        yield "resume", attempt(lambda: asyncio.run(resumed()))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert _values(r["invoke"]["__interrupt__"]) == ["q?"]
        assert r["with subgraphs"]["tasks"][0]["state"]["values"] == {"log": ["i1"]}
        assert r["resume"][-1] == {"z": {"log": ["z"]}}

    return Case(graph, script=script, spec=spec)


@ckpt
def time_travel_to_a_subgraph_head_asks_its_questions_again(g: EngineAPI) -> Case:
    def asking(word: str) -> Any:
        def node(state: Any) -> dict[str, Any]:
            return {"log": [f"{word}:{g.interrupt(word)}"]}

        return node

    inner = g.StateGraph(L).add_node("a", asking("a")).add_node("b", asking("b"))
    inner.add_edge(g.START, "a").add_edge(g.START, "b")
    top = g.StateGraph(L).add_node("sub", inner.compile(checkpointer=True))
    graph = top.add_edge(g.START, "sub").compile(checkpointer=g.InMemorySaver())

    def head() -> Any:
        return graph.get_state(CFG, subgraphs=True).tasks[0].state.config

    def asked(out: Any) -> list[Any]:
        return sorted(i.value for i in out["__interrupt__"])

    def script() -> Script:
        yield "invoke", attempt(lambda: asked(graph.invoke({"log": []}, CFG)))
        pending = {i.value: i.id for i in graph.get_state(CFG).interrupts}
        yield (
            "answer a",
            attempt(lambda: asked(graph.invoke(g.Command(resume={pending["a"]: "yes"}), CFG))),
        )
        yield "travel to head", attempt(lambda: asked(graph.invoke(None, head())))
        yield "values", graph.get_state(CFG).values

    def spec(r: Rec) -> None:
        assert r["answer a"] == ["b"]
        assert r["travel to head"] == ["a", "b"]  # the answered one is asked again

    return Case(graph, script=script, spec=spec)


@ckpt
def subgraph_nodes_share_the_context_and_know_where_they_run(g: EngineAPI) -> Case:
    seen: list[Any] = []

    def probe(name: str) -> Any:
        def node(state: Any, runtime: Runtime) -> dict[str, Any]:
            info = runtime.execution_info
            assert info is not None
            seen.append((name, runtime.context, info.thread_id, info.checkpoint_ns.count("|"),
                         info.checkpoint_ns.endswith(info.task_id)))  # fmt: skip
            return {"log": [name]}

        return node

    inner = g.StateGraph(L).add_node("i", probe("i")).add_edge(g.START, "i")
    top = g.StateGraph(L).add_node("p", probe("p")).add_node("sub", inner.compile())
    top.add_edge(g.START, "p").add_edge("p", "sub")
    graph = top.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG, context="ctx"))
        yield "seen", list(seen)

    def spec(r: Rec) -> None:
        assert r["seen"] == [("p", "ctx", "t1", 0, True), ("i", "ctx", "t1", 1, True)]

    return Case(graph, script=script, spec=spec)


class Doc(TypedDict):
    """What one review subgraph started by a Send holds."""

    doc: str
    log: Annotated[list[str], operator.add]


@ckpt
def edited_state_of_one_of_two_send_subgraphs_asks_it_again(g: EngineAPI) -> Case:
    """Two Sends start a one-node review subgraph that asks; the first one's state is
    edited through its config: answered by the old ids, the edited one asks again, about
    its new state (it was dropped: the run ended with only the other's answer)."""

    def ask(state: Doc) -> dict[str, Any]:
        return {"log": [f"{state['doc']}={g.interrupt(state['doc'])}"]}

    review = g.StateGraph(Doc).add_node("ask", ask).add_edge(g.START, "ask").compile()
    top = g.StateGraph(L).add_node("review", review)
    top.add_conditional_edges(
        g.START, lambda s: [g.Send("review", {"doc": d, "log": []}) for d in ("a", "b")]
    )
    graph = top.compile(checkpointer=g.InMemorySaver())

    def edit_a() -> Any:
        tasks = graph.get_state(CFG, subgraphs=True).tasks
        first = next(t.state for t in tasks if t.state.values["doc"] == "a")
        graph.update_state(first.config, {"doc": "z"})
        return sorted(t.state.values["doc"] for t in graph.get_state(CFG, subgraphs=True).tasks)

    def answer(mapping: dict[str, str]) -> Any:
        pending = graph.get_state(CFG).interrupts
        resume = {i.id: mapping[i.value] for i in pending if i.value in mapping}
        out = graph.invoke(g.Command(resume=resume), CFG)
        return sorted(out["log"]), sorted(i.value for i in out.get("__interrupt__", ()))

    def script() -> Script:
        yield "asked", attempt(lambda: graph.invoke({"log": []}, CFG)["__interrupt__"] and None)
        yield "edited", attempt(edit_a)
        yield "by the old ids", attempt(lambda: answer({"a": "yes", "b": "no"}))
        yield "next", attempt(lambda: graph.get_state(CFG).next)
        yield "again", attempt(lambda: answer({"z": "ok"}))

    def spec(r: Rec) -> None:
        assert r["edited"] == ["b", "z"]
        assert r["by the old ids"] == (["b=no"], ["z"])  # (asked again, about z)
        assert r["next"] == ("review",)
        assert r["again"] == (["b=no", "z=ok"], [])

    return Case(graph, script=script, spec=spec, unordered=True)
