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
from typing import Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, say
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


def _stateless(view: Any) -> Any:
    """A snapshot view without its tasks' ``state``: LangGraph finds the subgraph a node's
    code invokes (in its closure) and shows its config there, which sgdebug's runtime does
    not yet (subgraph discovery, ``get_subgraphs``, is brief 15b's)."""
    tasks = [{k: v for k, v in t.items() if k != "state"} for t in view["tasks"]]
    return {**view, "tasks": tasks}


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
        yield "paused", _stateless(snap(graph))
        yield "resume 1", attempt(lambda: graph.invoke(g.Command(resume="A"), CFG))
        yield "resume 2", attempt(lambda: graph.invoke(g.Command(resume="B"), CFG))
        yield "calls", list(calls)
        yield "history", [_stateless(h) for h in history(graph)]

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
