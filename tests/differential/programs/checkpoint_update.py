"""Checkpoint programs: ``update_state`` and its ``as_node`` rules (semantics 5.6).

See ``programs/checkpoint.py`` for how these scripts are observed and compared.
"""

from __future__ import annotations

import threading
from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt, err, say
from .checkpoint import CFG, Rec, S, Script, chain, ckpt, history, snap, steps, thread


def _update(graph: Any, values: Any, config: dict[str, Any] = CFG, **kwargs: Any) -> Any:
    """``graph.update_state(...)``: the returned config, or what it raised."""
    return attempt(lambda: graph.update_state(config, values, **kwargs))


@ckpt
def update_state_as_node(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "as a", _update(graph, {"x": 5, "log": ["edit"]}, as_node="a")
        yield "after as a", snap(graph)
        yield "as b", _update(graph, {"log": ["as-b"]}, as_node="b")
        yield "after as b", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["after as a"]["next"] == ("b",)
        assert r["after as a"]["values"] == {"x": 5, "log": ["a", "edit"]}
        assert r["after as a"]["metadata"]["source"] == "update"
        assert r["after as a"]["metadata"]["step"] == 2
        assert r["after as b"]["next"] == ("c",)  # b never runs (5.6)
        assert r["resume"]["log"] == ["a", "edit", "as-b", "c"]

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_special_nodes_and_errors(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "b", "c"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_before=["c"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "ambiguous", _update(graph, {"x": 2})
        yield "unknown", _update(graph, {"x": 2}, as_node="zz")
        yield "end with values", _update(graph, {"x": 2}, as_node=g.END)
        yield "as input", _update(graph, {"x": 3}, as_node="__input__")
        yield "after as input", snap(graph)
        yield "as end", _update(graph, None, as_node=g.END)
        yield "after as end", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["ambiguous"] == err("InvalidUpdateError", "Ambiguous update, specify as_node")
        assert r["unknown"] == err("InvalidUpdateError", "Node zz does not exist")
        assert r["end with values"] == err("InvalidUpdateError", "Node __end__ does not exist")
        assert r["after as input"]["metadata"]["source"] == "input"
        assert r["after as input"]["next"] == ("__start__", "c")  # nothing cleared
        assert r["after as end"]["next"] == ()
        assert r["after as end"]["metadata"]["source"] == "update"

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_on_fresh_thread(g: EngineAPI) -> Case:
    graph = chain(g)

    def script() -> Script:
        yield "inferred", _update(graph, {"x": 1})
        yield "after inferred", snap(graph)
        yield "run", attempt(lambda: graph.invoke(None, CFG))
        cfg2 = thread("t2")
        yield "as a", _update(graph, {"x": 2}, cfg2, as_node="a")
        yield "after as a", snap(graph, cfg2)
        yield "continue", attempt(lambda: graph.invoke(None, cfg2))
        yield "history", history(graph, cfg2)

    def spec(r: Rec) -> None:
        assert r["after inferred"]["next"] == ("a",)
        assert r["after inferred"]["metadata"]["step"] == 0
        assert r["after inferred"]["metadata"]["source"] == "update"
        assert r["after as a"]["next"] == ("b",)
        assert r["continue"]["log"] == ["b", "c"]

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_as_start_and_inferred(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["c"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "inferred", _update(graph, {"log": ["u"]})
        yield "after inferred", snap(graph)
        yield "as start", _update(graph, {"x": 4, "log": ["s"]}, as_node=g.START)
        yield "after as start", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["after inferred"]["next"] == ("c",)  # inferred as b, the node that ran last
        assert r["after as start"]["next"] == ("a",)

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_copy_forks_the_checkpoint(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "copy", _update(graph, None, as_node="__copy__")
        yield "after copy", snap(graph)
        yield "copy with values", _update(graph, {"x": 3}, as_node="__copy__")
        yield "after copy with values", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    return Case(graph, script=script)


@ckpt
def update_state_reducers_and_overwrite(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1, "log": ["in"]}, CFG)
        yield "append", _update(graph, {"log": ["u1", "u2"]}, as_node="a")
        yield "after append", snap(graph)["values"]
        yield "overwrite", _update(graph, {"log": g.Overwrite(["only"])}, as_node="a")
        yield "after overwrite", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))

    def spec(r: Rec) -> None:
        assert r["after append"] == {"x": 1, "log": ["in", "a", "u1", "u2"]}
        assert r["after overwrite"]["values"]["log"] == ["only"]
        assert r["resume"]["log"] == ["only", "b", "c"]

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_next_from_branches(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    for name in ("a", "pos", "neg", "z"):
        b.add_node(name, say(name))
    b.add_edge(g.START, "a").add_edge("a", "z")
    b.add_conditional_edges("a", lambda s: "pos" if s["x"] > 0 else "neg")
    graph = b.compile(checkpointer=g.InMemorySaver(), interrupt_after=["a"])

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"x": 1}, CFG))
        yield "paused", snap(graph)["next"]
        yield "as a", _update(graph, {"x": -1}, as_node="a")
        yield "after as a", snap(graph)
        yield "as pos", _update(graph, {"x": 2}, as_node="pos")
        yield "after as pos", snap(graph)["next"]
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["paused"] == ("pos", "z")
        assert r["after as a"]["next"] == ("neg", "z")  # branch re-evaluated on the update
        assert r["after as pos"] == ()

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_with_a_command(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["b"])

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        cmd = g.Command(update={"x": 4}, goto="c")
        yield "command", _update(graph, cmd, as_node="a")
        yield "after command", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(None, CFG))

    def spec(r: Rec) -> None:
        assert r["after command"]["values"]["x"] == 4
        assert r["after command"]["next"] == ("b", "c")  # edges and Command routing both run

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_while_an_interrupt_is_pending(g: EngineAPI) -> Case:
    def ask(s: Any) -> dict[str, Any]:
        return {"log": [f"{g.interrupt('q')}@{s['x']}"]}

    b = g.StateGraph(S).add_node("a", say("a")).add_node("ask", ask).add_node("c", say("c"))
    b.add_edge(g.START, "a").add_edge("a", "ask").add_edge("ask", "c")
    graph = b.compile(checkpointer=g.InMemorySaver())

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "inferred", _update(graph, {"x": 2})
        yield "after update", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="r"), CFG))
        yield "history", history(graph)

    return Case(graph, script=script)


@ckpt
def update_state_then_breakpoint_is_not_retriggered(g: EngineAPI) -> Case:
    graph = chain(g, "abcd", interrupt_before=["c"])

    def script() -> Script:
        yield "first", attempt(lambda: graph.invoke({"x": 1}, CFG))
        yield "edit", _update(graph, {"x": 2})
        yield "resume", attempt(lambda: graph.invoke(None, CFG))
        yield "final", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["resume"] == {"x": 2, "log": ["a", "b", "c", "d"]}
        assert [s[0] for s in steps(r["history"])] == ["loop"] * 2 + ["update"] + ["loop"] * 3 + [
            "input"
        ]

    return Case(graph, script=script, spec=spec)


@ckpt
def update_as_input_on_a_new_thread_is_its_step_minus_one_input(g: EngineAPI) -> Case:
    graph = chain(g, "ab")

    def script() -> Script:
        yield "input", attempt(lambda: graph.update_state(CFG, {"x": 1}, "__input__"))
        yield "start", attempt(lambda: graph.update_state(CFG, {"x": 1}, "__start__"))
        yield "a", attempt(lambda: graph.update_state(CFG, {"log": ["a"]}, "a"))
        yield "input again", attempt(lambda: graph.update_state(CFG, {"x": 2}, "__input__"))
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert [s[:2] for s in steps(r["history"])] == [
            ("input", 2), ("update", 1), ("update", 0), ("input", -1)
        ]  # fmt: skip

    return Case(graph, script=script, spec=spec)


@ckpt
def update_keeps_its_writes_on_a_checkpoint_only_while_it_is_the_latest(g: EngineAPI) -> Case:
    """An update of a paused step's checkpoint is kept as its task's writes there while that
    checkpoint is the thread's latest (``ok`` keeps its first result, as LangGraph's saver
    does); once superseded, an update of it (as ``asks``) leaves its snapshot as it was."""

    done = threading.Event()  # ``asks`` interrupts once ``ok`` has finished (in parallel)

    def ok(state: Any) -> dict[str, Any]:
        done.set()
        return {"log": ["ok"]}

    def asks(state: Any) -> dict[str, Any]:
        done.wait(timeout=10)
        return {"log": [g.interrupt("why?")]}

    b = g.StateGraph(S).add_node("ok", ok).add_node("asks", asks)
    graph = b.add_edge(g.START, "ok").add_edge(g.START, "asks").compile(g.InMemorySaver())

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        paused = graph.get_state(CFG).config
        yield "as ok", _update(graph, {"log": ["as ok"]}, paused, as_node="ok")
        yield "paused step after as ok", snap(graph, paused)
        yield "as asks", _update(graph, {"log": ["as asks"]}, paused, as_node="asks")
        yield "paused step after as asks", snap(graph, paused)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        tasks = r["paused step after as asks"]["tasks"]
        assert {t["name"]: t["result"] for t in tasks} == {"asks": None, "ok": {"log": ["ok"]}}

    return Case(graph, script=script, spec=spec)


@ckpt
def update_state_inferred_on_a_one_node_graph(g: EngineAPI) -> Case:
    """With one node, the update is applied as it only once it ran: stopped at its
    ``interrupt()`` it has not, so the update is ``__start__``'s and the node stays next
    (updated as the node, it was dropped and the run ended without it)."""

    def ask(s: Any) -> dict[str, Any]:
        return {"log": [f"{g.interrupt('q')}@{s['x']}"]}

    graph = (
        g.StateGraph(S)
        .add_node("ask", ask)
        .add_edge(g.START, "ask")
        .compile(checkpointer=g.InMemorySaver())
    )

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        yield "while asking", _update(graph, {"x": 2})
        yield "after update", snap(graph)
        yield "resume", attempt(lambda: graph.invoke(g.Command(resume="r"), CFG))
        yield "answered", _update(graph, {"x": 3})  # (now it ran: as the node)
        yield "after the second update", snap(graph)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["after update"]["next"] == ("ask",)
        assert r["resume"]["log"] == ["r@2"]
        assert r["after the second update"]["next"] == ()

    return Case(graph, script=script, spec=spec)
