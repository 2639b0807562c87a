"""Checkpoint programs: static breakpoints inside a subgraph, the behaviour the debugger's
path breakpoints and subgraph watches stand on (issue 15).

The debugger stops a subgraph after every one of its supersteps to watch one of its channels
(``interrupt_after="*"`` on that frame), re-enters it past each stop, and continues a thread
from its latest snapshot without naming that checkpoint (naming it replays the parent's step
and starts the subgraph over). See ``checkpoint.py`` for how the scripts are observed and
compared.
"""

from __future__ import annotations

from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt
from .checkpoint import CFG, Rec, Script, ckpt, history, snap
from .checkpoint_subgraphs import L


def _counted(calls: list[str], name: str) -> Any:
    def node(state: Any) -> dict[str, Any]:
        calls.append(name)
        return {"log": [name]}

    return node


def _inner_state(graph: Any) -> Any:
    """The subgraph's part of ``get_state(subgraphs=True)``: its values, next and step."""

    def read() -> Any:
        tasks = graph.get_state(CFG, subgraphs=True).tasks
        inner = tasks[0].state if tasks and hasattr(tasks[0].state, "values") else None
        if inner is None:
            return None
        return {"values": inner.values, "next": inner.next, "step": inner.metadata["step"]}

    return attempt(read)


def _stopping_subgraph(g: EngineAPI, calls: list[str], **compiled: Any) -> Any:
    inner = g.StateGraph(L)
    for name in ("i1", "i2", "i3"):
        inner.add_node(name, _counted(calls, name))
    inner.add_edge(g.START, "i1").add_edge("i1", "i2").add_edge("i2", "i3")
    top = g.StateGraph(L).add_node("sub", inner.compile(**compiled))
    top.add_node("z", _counted(calls, "z")).add_edge(g.START, "sub").add_edge("sub", "z")
    return top.compile(checkpointer=g.InMemorySaver())


@ckpt
def subgraph_compiled_to_stop_after_every_step_is_re_entered_past_each_stop(
    g: EngineAPI,
) -> Case:
    calls: list[str] = []
    graph = _stopping_subgraph(g, calls, interrupt_after="*")

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        for resume in range(4):
            yield f"inside {resume}", _inner_state(graph)
            yield f"root {resume}", snap(graph)
            yield f"resume {resume}", attempt(lambda: graph.invoke(None, CFG))
        yield "calls", list(calls)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["inside 0"]["next"] == ("i2",) and r["inside 0"]["values"] == {"log": ["i1"]}
        assert r["inside 1"]["next"] == ("i3",)
        assert r["inside 2"]["next"] == ()  # after its last step: stopped there too
        assert r["resume 2"] == {"log": ["i1", "i2", "i3", "z"]}
        assert r["calls"] == ["i1", "i2", "i3", "z"]  # each node ran once

    return Case(graph, script=script, spec=spec)


@ckpt
def naming_the_latest_checkpoint_replays_a_subgraph_not_naming_it_continues(
    g: EngineAPI,
) -> Case:
    calls: list[str] = []
    graph = _stopping_subgraph(g, calls, interrupt_before=["i3"])

    def script() -> Script:
        yield "invoke", attempt(lambda: graph.invoke({"log": []}, CFG))
        latest = graph.get_state(CFG).config["configurable"]["checkpoint_id"]
        named = {"configurable": {**CFG["configurable"], "checkpoint_id": latest}}
        yield "replayed", attempt(lambda: graph.invoke(None, named))
        yield "calls after replay", list(calls)
        yield "inside", _inner_state(graph)
        yield "continued", attempt(lambda: graph.invoke(None, CFG))
        yield "calls", list(calls)

    def spec(r: Rec) -> None:
        assert r["calls after replay"] == ["i1", "i2", "i1", "i2"]  # started over
        assert r["inside"]["next"] == ("i3",)
        assert r["continued"] == {"log": ["i1", "i2", "i3", "z"]}
        assert r["calls"] == ["i1", "i2", "i1", "i2", "i3", "z"]

    return Case(graph, script=script, spec=spec)
