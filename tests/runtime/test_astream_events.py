"""``astream_events(version="v2")`` and ``config["callbacks"]`` on both engines: the graph's
run, each node as a chain run (start, stream, end), and the chat models and tools a node
calls as its child runs, with LangGraph's names, order, parents, tags and metadata.

Run ids, generated message ids and interrupt ids are normalised (the same id keeps the same
name); every other field is compared as it is. Graphs here run one task per step: the
order of parallel tasks' events depends on thread timing in LangGraph.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from sgdebug.sample_graphs._engines import EngineAPI, api

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}")
CONFIG = {"tags": ["top"], "metadata": {"who": "me"}, "configurable": {"thread_id": "t"}}


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _prep(state: Any) -> dict[str, Any]:
    return {"messages": [AIMessage("prep", id="p1")]}


async def _chat(state: Any) -> dict[str, Any]:
    model = GenericFakeChatModel(messages=iter(["one two"]))
    return {"messages": [await model.ainvoke(state["messages"])]}


def _sync_chat(state: Any) -> dict[str, Any]:
    echo.invoke({"text": "x"})
    return {"messages": [GenericFakeChatModel(messages=iter(["sync reply"])).invoke("hi")]}


def _nothing(state: Any) -> None:
    return None


def _ask(g: EngineAPI) -> Any:
    def ask(state: Any) -> dict[str, Any]:
        g.interrupt("q?")
        return {}

    return ask


def _boom(state: Any) -> dict[str, Any]:
    raise ValueError("boom")


def _graph(g: EngineAPI, *nodes: Any) -> Any:
    b = g.StateGraph(g.MessagesState)
    names = []
    for node in nodes:
        names.append(node.__name__.strip("_"))
        b.add_node(names[-1], node)
    b.add_edge(g.START, names[0])
    for a, c in itertools.pairwise(names):
        b.add_edge(a, c)
    return b.compile(checkpointer=g.InMemorySaver())


def _norm(value: Any, ids: dict[str, str]) -> str:
    return _UUID.sub(lambda m: ids.setdefault(m.group(0), f"<{len(ids)}>"), repr(value))


async def _events(graph: Any) -> list[Any]:
    ids: dict[str, str] = {}
    out: list[Any] = []
    try:
        async for ev in graph.astream_events({"messages": []}, CONFIG, version="v2"):
            meta = {k: v for k, v in ev["metadata"].items() if k != "lc_versions"}
            out.append(
                (ev["event"], ev["name"], _norm(ev["run_id"], ids), _norm(ev["parent_ids"], ids),
                 ev["tags"], _norm(meta, ids), _norm(ev["data"], ids))
            )  # fmt: skip
    except ValueError as exc:
        out.append(("raised", str(exc)))
    return out


def _record(engine: str, *nodes: Any) -> list[Any]:
    g = api("langgraph" if engine == "langgraph" else "sgdebug")
    made = [node(g) if node is _ask else node for node in nodes]
    return asyncio.run(_events(_graph(g, *made)))


CASES = {
    "model in an async node": (_prep, _chat),
    "model and tool in a sync node": (_sync_chat, _nothing),
    "interrupt": (_prep, _ask),
    "failure": (_prep, _boom),
}


@pytest.mark.parametrize("case", list(CASES))
def test_astream_events_as_langgraph(case: str) -> None:
    ours = _record("sgdebug", *CASES[case])
    assert ours == _record("langgraph", *CASES[case])
    kinds = {event[0] for event in ours}
    assert "on_chain_stream" in kinds and len({event[1] for event in ours}) > 2


def test_the_model_events_of_a_node() -> None:
    events = _record("sgdebug", _prep, _chat)
    model = [(kind, parents) for kind, name, _, parents, *_ in events if "chat_model" in kind]
    assert [kind for kind, _ in model] == ["on_chat_model_start"] + ["on_chat_model_stream"] * 3 + [
        "on_chat_model_end"
    ]
    chat_run = next(run for kind, name, run, *_ in events if name == "chat")
    assert all(chat_run in parents for _, parents in model)


class Starts(BaseCallbackHandler):
    """Records the chain and model runs a run starts, each with its parent's name."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.runs: list[tuple[str, str | None]] = []

    def _started(self, name: str, run_id: Any, parent: Any) -> None:
        self.names[run_id] = name
        self.runs.append((name, self.names.get(parent)))

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        self._started(kwargs.get("name") or "?", kwargs["run_id"], kwargs.get("parent_run_id"))

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self._started("model", kwargs["run_id"], kwargs.get("parent_run_id"))


@pytest.mark.parametrize("engine", ["sgdebug", "langgraph"])
@pytest.mark.parametrize("use_async", [False, True])
def test_invoke_shows_the_graph_run_and_its_nodes_to_a_tracer(engine: str, use_async: bool) -> None:
    g = api("langgraph" if engine == "langgraph" else "sgdebug")
    handler = Starts()
    graph, config = _graph(g, _prep, _sync_chat), {**CONFIG, "callbacks": [handler]}
    if use_async:
        asyncio.run(graph.ainvoke({"messages": []}, config))
    else:
        graph.invoke({"messages": []}, config)
    assert handler.runs == [
        ("LangGraph", None),
        ("prep", "LangGraph"),
        ("sync_chat", "LangGraph"),
        ("model", "sync_chat"),
    ]
