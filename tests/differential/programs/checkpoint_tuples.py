"""Checkpoint programs: the checkpointer's own reads, ``get_tuple`` / ``list`` (and their async
twins), and ``delete_thread``, as LangGraph's ``CheckpointTuple``s.

A tuple is observed by its config, metadata, parent config, the checkpoint's id and channel
values (sorted: LangGraph orders them as the graph declares its channels, which a saver
does not know), and its pending writes; the checkpoint's timestamp and channel versions are
left out (sgdebug's versions are integers, LangGraph's version strings). See
``programs/checkpoint.py`` for how these scripts are observed and compared.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt
from .checkpoint import CFG, Rec, S, Script, chain, ckpt, history, thread


def _tuple(t: Any) -> Any:
    if t is None:
        return None
    return {
        "config": t.config,
        "metadata": t.metadata,
        "parent_config": t.parent_config,
        "id": t.checkpoint["id"],
        "channel_values": dict(sorted(t.checkpoint["channel_values"].items())),
        "pending_writes": t.pending_writes,
    }


def _listed(saver: Any, config: Any, **kwargs: Any) -> Any:
    return attempt(lambda: [_tuple(t) for t in saver.list(config, **kwargs)])


async def _alisted(saver: Any, config: Any) -> list[Any]:
    return [_tuple(t) async for t in saver.alist(config)]


@ckpt
def checkpointer_get_tuple_and_list(g: EngineAPI) -> Case:
    graph = chain(g, interrupt_before=["c"])
    saver = graph.checkpointer

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        graph.invoke({"x": 2}, thread("other"))
        yield "latest", attempt(lambda: _tuple(saver.get_tuple(CFG)))
        yield "list", _listed(saver, CFG)
        oldest = list(saver.list(CFG))[-1].config
        yield "by id", attempt(lambda: _tuple(saver.get_tuple(oldest)))
        yield "limit", _listed(saver, CFG, limit=2)
        yield "before oldest", _listed(saver, CFG, before=oldest)
        yield "filter", _listed(saver, CFG, filter={"source": "input"})
        yield "every thread", attempt(lambda: len(list(saver.list(None))))
        yield "unknown thread", attempt(lambda: _tuple(saver.get_tuple(thread("zz"))))
        yield "async list", attempt(lambda: asyncio.run(_alisted(saver, CFG)))
        latest = attempt(lambda: _tuple(asyncio.run(saver.aget_tuple(CFG))))
        yield "async latest", latest

    def spec(r: Rec) -> None:
        assert r["latest"] == r["list"][0] == r["async latest"]
        assert [t["metadata"]["step"] for t in r["list"]] == [2, 1, 0, -1]
        assert r["by id"] == r["list"][-1]
        assert r["by id"]["channel_values"] == {"__start__": {"x": 1}}
        assert len(r["limit"]) == 2
        assert r["before oldest"] == []
        assert [t["metadata"]["source"] for t in r["filter"]] == ["input"]
        assert r["every thread"] == 8
        assert r["unknown thread"] is None
        assert r["async list"] == r["list"]

    return Case(graph, script=script, spec=spec)


@ckpt
def checkpointer_delete_thread(g: EngineAPI) -> Case:
    graph = chain(g)
    saver = graph.checkpointer

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        graph.invoke({"x": 2}, thread("kept"))
        yield "delete", attempt(lambda: saver.delete_thread("t1"))
        yield "get_tuple", attempt(lambda: _tuple(saver.get_tuple(CFG)))
        yield "history", history(graph)
        yield "kept", attempt(lambda: len(list(saver.list(thread("kept")))))
        yield "adelete", attempt(lambda: asyncio.run(saver.adelete_thread("kept")))
        yield "kept after", attempt(lambda: len(list(saver.list(thread("kept")))))
        yield "again", attempt(lambda: graph.invoke({"x": 3}, CFG))

    def spec(r: Rec) -> None:
        assert r["get_tuple"] is None
        assert r["history"] == []
        assert r["kept"] == 5
        assert r["kept after"] == 0
        assert r["again"] == {"x": 3, "log": ["a", "b", "c"]}

    return Case(graph, script=script, spec=spec)


def _nested(g: EngineAPI) -> Any:
    """``START -> r -> c`` where ``r`` is a subgraph ``START -> a -> b``, with a saver."""

    def bump(state: Any) -> dict[str, Any]:
        return {"x": state["x"] + 1}

    sub = g.StateGraph(_X).add_node("a", bump).add_node("b", bump)
    sub.add_edge(g.START, "a").add_edge("a", "b")
    parent = g.StateGraph(_X).add_node("r", sub.compile()).add_node("c", bump)
    parent.add_edge(g.START, "r").add_edge("r", "c")
    return parent.compile(checkpointer=g.InMemorySaver())


class _X(TypedDict):
    x: int


def _row(t: Any) -> tuple[Any, ...]:
    conf = t.config["configurable"]
    return (conf["checkpoint_ns"].partition(":")[0], t.metadata["step"], t.metadata["source"])


@ckpt
def checkpointer_list_covers_subgraph_namespaces(g: EngineAPI) -> Case:
    graph = _nested(g)
    saver = graph.checkpointer

    def ns_of(config: Any) -> Any:
        found = [t for t in saver.list(config) if t.config["configurable"]["checkpoint_ns"]]
        ns = found[0].config["configurable"]["checkpoint_ns"]
        return {"configurable": {**CFG["configurable"], "checkpoint_ns": ns}}

    def script() -> Script:
        graph.invoke({"x": 0}, CFG)
        graph.invoke({"x": 5}, thread("kept"))
        yield "thread", attempt(lambda: [_row(t) for t in saver.list(CFG)])
        yield "whole", _listed(saver, CFG)
        root = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
        yield "root only", attempt(lambda: [_row(t) for t in saver.list(root)])
        sub = attempt(lambda: ns_of(CFG))
        yield "subgraph's", attempt(lambda: [_row(t) for t in saver.list(sub)])
        yield "subgraph latest", attempt(lambda: _tuple(saver.get_tuple(sub)))
        yield "limit", attempt(lambda: [_row(t) for t in saver.list(CFG, limit=5)])
        yield "every thread", attempt(lambda: len(list(saver.list(None))))
        yield "async", attempt(lambda: [_row(t) for t in asyncio.run(_arows(saver))])
        yield "delete", attempt(lambda: saver.delete_thread("t1"))
        yield "deleted", attempt(lambda: len(list(saver.list(CFG))))
        yield "kept", attempt(lambda: [_row(t) for t in saver.list(thread("kept"))])

    def spec(r: Rec) -> None:
        steps = [("", 2, "loop"), ("", 1, "loop"), ("", 0, "loop"), ("", -1, "input")]
        assert r["thread"] == steps + [("r", *s[1:]) for s in steps]
        assert r["root only"] == steps
        assert r["subgraph's"] == r["thread"][4:]
        assert r["subgraph latest"]["metadata"]["step"] == 2
        assert r["subgraph latest"]["config"]["configurable"]["checkpoint_ns"].startswith("r:")
        assert r["limit"] == r["thread"][:5]
        assert r["every thread"] == 16
        assert r["async"] == r["thread"]
        assert r["deleted"] == 0
        assert len(r["kept"]) == 8

    return Case(graph, script=script, spec=spec)


async def _arows(saver: Any) -> list[Any]:
    return [t async for t in saver.alist(CFG)]


def _two_asks(g: EngineAPI) -> Any:
    """``ask`` (two ``interrupt()`` calls) beside ``sib`` and ``zed``, with a saver."""

    def ask(s: Any) -> dict[str, Any]:
        return {"log": [f"{g.interrupt('first?')}/{g.interrupt('second?')}"]}

    b = g.StateGraph(S).add_node("zed", lambda s: {"log": ["zed"]}).add_node("ask", ask)
    b.add_node("sib", lambda s: {"x": 2, "log": ["sib"]})
    for name in ("zed", "ask", "sib"):
        b.add_edge(g.START, name)
    return b.compile(checkpointer=g.InMemorySaver())


def _pending(saver: Any, config: Any) -> Any:
    return attempt(lambda: saver.get_tuple(config).pending_writes)


@ckpt
def checkpointer_pending_writes_after_a_resume(g: EngineAPI) -> Case:
    """A resumed task's answers are stored among its pending writes (``__resume__``, and the
    resuming ``Command``'s own under the null task), listed in LangGraph's order: by task
    path, then task id, then slot (a task's resume, interrupt, then channel writes)."""
    graph = _two_asks(g)
    saver = graph.checkpointer
    sync, other = thread("sync"), thread("async")

    async def resumed_async() -> Any:
        await graph.ainvoke({"x": 1}, other)
        first = _pending(saver, other)
        await graph.ainvoke(g.Command(resume="A"), other)
        return first, _pending(saver, other)

    def script() -> Script:
        graph.invoke({"x": 1}, sync)
        yield "asked", _pending(saver, sync)
        graph.invoke(g.Command(resume="A"), sync)
        yield "resumed once", _pending(saver, sync)
        yield "history", history(graph, sync)
        # (the newest only: the input task's branch writes come in no fixed order)
        yield "listed", attempt(lambda: [t.pending_writes for t in saver.list(sync, limit=1)])
        yield "async", attempt(lambda: asyncio.run(resumed_async()))
        yield "done", attempt(lambda: graph.invoke(g.Command(resume="B"), sync))
        yield "after done", _pending(saver, sync)

    def spec(r: Rec) -> None:
        channels = [w[1] for w in r["resumed once"]]
        assert channels == ["__resume__", "__resume__", "__interrupt__", "x", "log", "log"]
        assert r["resumed once"][0][2] == "A" and r["resumed once"][1][2] == ["A"]
        assert [w[1] for w in r["asked"]] == ["__interrupt__", "x", "log", "log"]
        assert [w[2] for w in r["asked"][2:]] == [["sib"], ["zed"]]  # (zed was added first)
        assert r["listed"][0] == r["resumed once"]
        assert [w[1:] for w in r["async"][1]][3:] == [w[1:] for w in r["resumed once"]][3:]
        assert [w[1] for w in r["async"][1]] == channels
        assert r["done"]["log"] == ["A/B", "sib", "zed"]  # (applied in task path order too)
        assert r["after done"] == []

    return Case(graph, script=script, spec=spec)


def _path_recorder(g: EngineAPI, paths: list[tuple[list[str], str]]) -> Any:
    """The engine's saver, its class given a ``put_writes`` noting each call's channels and
    task path."""
    saver = g.InMemorySaver()
    base = type(saver)

    def put_writes(self: Any, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        paths.append(([w[0] for w in writes], task_path))
        base.put_writes(self, config, writes, task_id, task_path)

    saver.__class__ = type("RecordingSaver", (base,), {"put_writes": put_writes})
    return saver


@ckpt
def checkpointer_pending_writes_of_state_updates(g: EngineAPI) -> Case:
    """An ``update_state``'s writes are stored on the checkpoint it updates at the path
    ``("__interrupt__", i)`` (the i-th update of the superstep), whichever task they are
    filed under: a saver is handed that path, and lists them before the pulled tasks'."""
    paths: list[tuple[list[str], str]] = []
    b = g.StateGraph(S).add_node("zed", lambda s: {"log": ["zed"]})
    b.add_node("ask", lambda s: {"x": g.interrupt("q")})
    b.add_edge(g.START, "zed").add_edge(g.START, "ask")
    graph = b.compile(checkpointer=_path_recorder(g, paths))
    saver = graph.checkpointer

    def script() -> Script:
        graph.invoke({"x": 1}, CFG)
        asked = saver.get_tuple(CFG).config
        paths.clear()
        ups = [g.StateUpdate({"log": ["u1"]}, "ask"), g.StateUpdate({"log": ["u2"]}, "ask")]
        yield "bulk", attempt(lambda: graph.bulk_update_state(CFG, [ups]) and None)
        yield "bulk paths", list(paths)
        yield "pending", _pending(saver, asked)
        paths.clear()
        yield "update", attempt(lambda: graph.update_state(CFG, {"log": ["u3"]}) and None)
        yield "update paths", [p for _, p in paths]  # (its branch writes: in no fixed order)
        yield "history", history(graph)

    def spec(r: Rec) -> None:
        assert r["bulk paths"] == [
            (["log"], "~__interrupt__, 0000000000"), (["log"], "~__interrupt__, 0000000001")
        ]  # fmt: skip
        assert [(w[1], w[2]) for w in r["pending"]][:2] == [("log", ["u1"]), ("log", ["u2"])]
        assert [w[1] for w in r["pending"]][2:] == ["__interrupt__", "log"]
        assert r["update paths"] == ["~__interrupt__, 0000000000"]

    return Case(graph, script=script, spec=spec)
