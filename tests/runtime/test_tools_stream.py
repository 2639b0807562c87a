"""``stream_mode="tools"`` and which stream hears a subgraph's models and tools, on both
engines (the shapes themselves are compared in ``differential/programs/tools_stream.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.tools import tool

from sgdebug.sample_graphs._engines import ENGINES, Engine, EngineAPI, api


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _chat(state: Any) -> dict[str, Any]:
    echo.invoke({"text": "done"})
    return {"messages": [GenericFakeChatModel(messages=iter(["one two"])).invoke("hi")]}


def _parent(g: EngineAPI) -> Any:
    sub = g.StateGraph(g.MessagesState).add_node("chat", _chat).add_edge(g.START, "chat")
    b = g.StateGraph(g.MessagesState).add_node("sub", sub.compile())
    return b.add_edge(g.START, "sub").compile()


def _summary(graph: Any) -> list[tuple[Any, ...]]:
    out = []
    modes = ["messages", "tools"]
    for ns, mode, data in graph.stream({"messages": []}, stream_mode=modes, subgraphs=True):
        names = tuple(part.split(":")[0] for part in ns)
        out.append((names, mode, data["event"] if mode == "tools" else data[0].content))
    return out


@pytest.mark.parametrize("engine", ENGINES)
def test_a_subgraphs_tokens_and_tools_stream_once_under_its_namespace(engine: Engine) -> None:
    assert _summary(_parent(api(engine))) == [
        (("sub",), "tools", "tool-started"),
        (("sub",), "tools", "tool-finished"),
        (("sub",), "messages", "one"),
        (("sub",), "messages", " "),
        (("sub",), "messages", "two"),
    ]  # (the parent's task returning the message does not stream it again)


@pytest.mark.parametrize("engine", ENGINES)
def test_without_subgraphs_only_the_parents_task_message_streams(engine: Engine) -> None:
    chunks = _parent(api(engine)).stream({"messages": []}, stream_mode=["messages", "tools"])
    assert [(mode, data[0].content) for mode, data in chunks] == [("messages", "one two")]
