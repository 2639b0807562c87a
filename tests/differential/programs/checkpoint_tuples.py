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
from typing import Any

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, attempt
from .checkpoint import CFG, Rec, Script, chain, ckpt, history, thread


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
