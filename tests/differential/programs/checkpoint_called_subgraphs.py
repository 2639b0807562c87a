"""Checkpoint programs: a subgraph a node's function invokes (``sub.invoke(...)``, mapping
the parent's schema to the subgraph's), as the debugger reads it (issue 20).

The debugger's frame of such a subgraph stands on: ``stream(subgraphs=True)`` yielding its
tasks under the namespace ``node:task_id``; ``get_state(subgraphs=True)`` giving the
parent's asking task the subgraph's own snapshot (found by the node function's graph
detection); ``update_state`` on that snapshot's config writing the subgraph's checkpoint;
and, for a graph that detection cannot see (taken from a dict), no snapshot in
``get_state`` but its checkpoints in the saver under the task's namespace. See
``checkpoint.py`` for how the scripts are observed and compared.
"""

from __future__ import annotations

from typing import Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt
from .checkpoint import CFG, Rec, Script, ckpt, events, view


class Draft(TypedDict):
    draft: str
    verdict: str


class Topic(TypedDict):
    topic: str
    result: str


def _calling(g: EngineAPI, *, hidden: bool) -> Any:
    def review(state: Draft) -> dict[str, Any]:
        return {"verdict": str(g.interrupt({"approve": state["draft"]}))}

    inner = g.StateGraph(Draft).add_node("write", lambda s: {"draft": s["draft"] + "+"})
    inner.add_node("review", review).add_edge(g.START, "write").add_edge("write", "review")
    sub = inner.compile()
    graphs = {"review": sub}

    def call_sub(state: Topic) -> dict[str, Any]:
        out = sub.invoke({"draft": state["topic"], "verdict": ""})
        return {"result": out["verdict"]}

    def call_hidden(state: Topic) -> dict[str, Any]:
        out = graphs["review"].invoke({"draft": state["topic"], "verdict": ""})
        return {"result": out["verdict"]}

    top = g.StateGraph(Topic).add_node("call", call_hidden if hidden else call_sub)
    top.add_node("finish", lambda s: {"result": s["result"] + "!"})
    top.add_edge(g.START, "call").add_edge("call", "finish")
    return top.compile(checkpointer=g.InMemorySaver())


def _inner(graph: Any) -> Any:
    """The asking task's subgraph snapshot in ``get_state(subgraphs=True)`` (``None``: none)."""

    def read() -> Any:
        [task] = graph.get_state(CFG, subgraphs=True).tasks
        state = task.state
        return view(state) if hasattr(state, "values") else state

    return attempt(read)


def _tasks(graph: Any, inp: Any) -> Any:
    """``stream(inp, stream_mode="tasks", subgraphs=True)``: every graph's task events."""
    return graph.stream(inp, CFG, stream_mode="tasks", subgraphs=True)


def _namespaces(graph: Any) -> Any:
    """The node part of every checkpoint namespace the thread's saver holds."""
    listed = graph.checkpointer.list(CFG)
    found = {c.config["configurable"].get("checkpoint_ns", "") for c in listed}
    return sorted(ns.split(":", 1)[0] for ns in found if ns)


@ckpt
def interrupt_in_a_subgraph_a_node_invokes_read_as_a_frame(g: EngineAPI) -> Case:
    graph = _calling(g, hidden=False)

    def script() -> Script:
        yield "stream", events(lambda: _tasks(graph, {"topic": "t", "result": ""}))
        yield "frame", _inner(graph)
        yield "namespaces", _namespaces(graph)

        def edit() -> Any:
            [task] = graph.get_state(CFG, subgraphs=True).tasks
            return graph.update_state(task.state.config, {"draft": "mine"})

        yield "edit", attempt(edit)
        yield "edited frame", _inner(graph)
        yield "resume", events(lambda: _tasks(graph, g.Command(resume="ok")))
        yield "final", attempt(lambda: graph.get_state(CFG).values)

    def spec(r: Rec) -> None:
        frame = r["frame"]
        assert frame["values"] == {"draft": "t+", "verdict": ""}
        assert frame["next"] == ("review",)
        assert r["edited frame"]["values"]["draft"] == "mine"
        assert r["namespaces"] == ["call"]
        assert r["final"] == {"topic": "t", "result": "ok!"}

    return Case(graph, script=script, spec=spec)


@ckpt
def a_subgraph_taken_from_a_dict_has_no_frame_but_streams_and_stores(g: EngineAPI) -> Case:
    graph = _calling(g, hidden=True)

    def script() -> Script:
        yield "stream", events(lambda: _tasks(graph, {"topic": "t", "result": ""}))
        yield "frame", _inner(graph)
        yield "namespaces", _namespaces(graph)
        yield "resume", events(lambda: _tasks(graph, g.Command(resume="ok")))
        yield "final", attempt(lambda: graph.get_state(CFG).values)

    def spec(r: Rec) -> None:
        assert r["frame"] is None
        assert r["namespaces"] == ["call"]
        assert any(len(e) == 2 and e[0] and e[0][0].startswith("call:") for e in r["stream"])
        assert r["final"] == {"topic": "t", "result": "ok!"}

    return Case(graph, script=script, spec=spec)
