"""Checkpoint programs: a saver written against LangGraph's ``BaseCheckpointSaver`` API,
overriding the sync methods ``put(config, checkpoint, metadata, new_versions)`` and
``put_writes(config, writes, task_id, task_path)`` to log what they get and then calling
the base class's (the engine's own saver class).

Every run calls them as LangGraph's loop does: one ``put_writes`` per finished task and one
``put`` per checkpoint, ``invoke``/``stream`` and ``update_state`` alike (and ``ainvoke``,
whose base ``aput`` stores through ``put``), with the run's ``configurable`` keys,
``new_versions`` against the checkpoint the new one follows, the channel values in the
graph's order and ``updated_channels``; what they store reads back through ``get_state``
and history. Not observed, as in ``checkpoint_async_saves``: version numbers and
``__resume__`` among a resumed task's writes.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case
from .checkpoint import Rec, Script, ckpt, history, snap

Log = list[tuple[Any, ...]]


class S(TypedDict):
    """An append log, a plain key and a key the last node sets."""

    a: Annotated[list[str], operator.add]
    b: str
    z: str


def _logged(g: EngineAPI, log: Log) -> Any:
    """The engine's saver, its class given LangGraph-style logging ``put``/``put_writes``."""
    saver = g.InMemorySaver()
    base = type(saver)

    def put(self: Any, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        conf = config["configurable"]
        log.append(
            (
                "put",
                metadata["source"],
                metadata["step"],
                sorted(k for k in conf if not k.startswith("__")),
                sorted(new_versions),
                checkpoint["updated_channels"],
                list(checkpoint["channel_values"]),
            )
        )
        stored = base.put(self, config, checkpoint, metadata, new_versions)
        return {"configurable": dict(stored["configurable"])}

    def put_writes(self: Any, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        channels = [w[0] for w in writes if w[0] != "__resume__"]
        log.append(("put_writes", channels, task_path))
        base.put_writes(self, config, writes, task_id, task_path)

    def get_tuple(self: Any, config: Any) -> Any:
        conf = config["configurable"]
        keys = sorted(k for k in conf if not k.startswith("__"))
        log.append(("get_tuple", keys, bool(conf.get("checkpoint_id"))))
        return base.get_tuple(self, config)

    def list_(self: Any, config: Any, **kwargs: Any) -> Any:
        log.append(("list", sorted(config["configurable"]), sorted(kwargs)))
        yield from base.list(self, config, **kwargs)

    methods = {"put": put, "put_writes": put_writes, "get_tuple": get_tuple, "list": list_}
    saver.__class__ = type("LoggedSaver", (base,), methods)
    return saver


def _chain(g: EngineAPI, saver: Any) -> Any:
    """``START -> one -> two``; ``two`` stops at an ``interrupt()`` when ``z`` is ``"stop"``."""

    def one(state: S) -> dict[str, Any]:
        return {"a": ["1"], "b": "x"}

    def two(state: S) -> dict[str, Any]:
        answer = g.interrupt("go on?") if state.get("z") == "stop" else "-"
        return {"a": [answer], "z": "done"}

    builder = g.StateGraph(S).add_node("one", one).add_node("two", two)
    builder.add_edge(g.START, "one").add_edge("one", "two")
    return builder.compile(checkpointer=saver)


def _taken(log: Log) -> list[tuple[Any, ...]]:
    out = list(log)
    log.clear()
    return out


@ckpt
def langgraph_style_sync_saver_stores_every_step(g: EngineAPI) -> Case:
    log: Log = []
    graph = _chain(g, _logged(g, log))
    cfg = {"configurable": {"thread_id": "t1", "user": "u"}}

    def script() -> Script:
        yield "invoke", graph.invoke({"a": ["0"], "z": "stop"}, cfg)
        yield "calls", _taken(log)
        yield "stream", list(graph.stream(g.Command(resume="yes"), cfg))
        yield "stream calls", _taken(log)
        yield "state", snap(graph, cfg)
        yield "get_state calls", _taken(log)
        yield "history", history(graph, cfg)
        yield "history calls", _taken(log)
        yield "older", history(graph, cfg, limit=1, before=graph.get_state(cfg).config)
        yield "older calls", _taken(log)
        yield "update", graph.update_state(cfg, {"b": "edited"}, as_node="one")
        # (an update's task path is LangGraph's "~__interrupt__, 0000000000", not compared)
        yield "update calls", [(*c[:2], "-") if c[0] == "put_writes" else c for c in _taken(log)]
        yield "edited", snap(graph, cfg)
        ainvoke = graph.ainvoke({"a": ["x"]}, {"configurable": {"thread_id": "t2"}})
        yield "ainvoke", asyncio.run(ainvoke)
        yield "ainvoke calls", _taken(log)

    def spec(r: Rec) -> None:
        calls = r["calls"]
        assert calls[0] == ("get_tuple", ["thread_id", "user"], False)
        calls = calls[1:]
        assert [c[0] for c in calls] == ["put", "put_writes"] * 3
        assert calls[0][1:4] == ("input", -1, ["checkpoint_ns", "thread_id", "user"])
        assert calls[0][4:] == (["__start__"], ["__start__"], ["__start__"])
        assert calls[4][6] == ["a", "b", "z", "branch:to:two"]  # the graph's order
        assert [c[0] for c in r["stream calls"]] == ["get_tuple"] + ["put_writes"] * 2 + ["put"]
        assert [c[0] for c in r["get_state calls"]] == ["get_tuple"]
        listed = ("list", ["checkpoint_ns", "thread_id", "user"], ["before", "filter", "limit"])
        assert r["history calls"] == [listed]
        assert r["state"]["values"] == {"a": ["0", "1", "yes"], "b": "x", "z": "done"}
        assert [c[0] for c in r["update calls"]] == ["get_tuple", "put_writes", "put"]
        assert r["update calls"][2][5] is None  # (an update's updated_channels)
        assert r["edited"]["values"]["b"] == "edited"
        assert [c[0] for c in r["ainvoke calls"]].count("put") == 4
        assert r["ainvoke calls"][0][0] == "get_tuple"  # (LangGraph's aget_tuple calls it)

    return Case(graph, script=script, spec=spec)
