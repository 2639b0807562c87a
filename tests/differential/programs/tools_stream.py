"""Programs for ``stream_mode="tools"``: the calls of langchain-core tools made in nodes
(a dict input, a string input, a tool call, a tool calling a tool, a tool that fails, async
tools), and which stream sees the models and tools of a subgraph: a graph that is a node, or
one a node's code invokes, with and without ``subgraphs=True``.

Tool run ids and message ids are normalised by the harness.
"""

from __future__ import annotations

import contextlib
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.tools import tool

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

TOOLS: tuple[Any, ...] = ("tools", ["tools", "updates"], ["messages", "tools"])
NESTED: tuple[Any, ...] = ("tools", ["tools", "updates"])
"""For subgraphs: the ``messages`` metadata of a subgraph's model differs (not yet LangGraph's:
key order, ``checkpoint_id``; a graph on its own thread gets its caller's task metadata)."""


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


@tool
def shout(text: str) -> str:
    """Echo the text, louder, through ``echo``."""
    return str(echo.invoke({"text": text.upper()}))


@tool
def broken(text: str) -> str:
    """Fail."""
    raise ValueError(f"cannot {text}")


def _calls(state: Any) -> dict[str, Any]:
    echo.invoke({"text": "plain"})
    echo.invoke("a string")
    echo.invoke({"name": "echo", "args": {"text": "called"}, "id": "call_1", "type": "tool_call"})
    shout.invoke({"text": "nested"})
    with contextlib.suppress(ValueError):
        broken.invoke({"text": "work"})
    return {"messages": [GenericFakeChatModel(messages=iter(["one two"])).invoke("hi")]}


async def _acalls(state: Any) -> dict[str, Any]:
    await echo.ainvoke({"text": "async"})
    await shout.ainvoke({"text": "nested"})
    model = GenericFakeChatModel(messages=iter(["one two"]))
    return {"messages": [await model.ainvoke("hi")]}


def _one(g: EngineAPI, node: Any) -> Any:
    b = g.StateGraph(g.MessagesState).add_node(node.__name__.strip("_"), node)
    return b.add_edge(g.START, node.__name__.strip("_")).compile()


@program()
def tools_mode_streams_each_tool_call(g: EngineAPI) -> Case:
    return Case(_one(g, _calls), inputs=({"messages": []},), modes=TOOLS)


@program()
def tools_mode_streams_async_tool_calls(g: EngineAPI) -> Case:
    return Case(_one(g, _acalls), inputs=({"messages": []},), modes=TOOLS, use_async=True)


def _parent_of_a_node_subgraph(g: EngineAPI) -> Any:
    b = g.StateGraph(g.MessagesState).add_node("sub", _one(g, _calls))
    return b.add_edge(g.START, "sub").compile()


def _parent_invoking_a_graph(g: EngineAPI) -> Any:
    child = _one(g, _calls)

    def call_child(state: Any) -> dict[str, Any]:
        child.invoke({"messages": []})
        return {}

    return _one(g, call_child)


@program()
def tools_and_messages_of_subgraphs_stay_out_without_subgraphs(g: EngineAPI) -> Case:
    """Only the node subgraph's returned message reaches the parent's stream."""
    graph = _parent_of_a_node_subgraph(g)
    return Case(graph, inputs=({"messages": []},), modes=TOOLS)


@program()
def tools_and_messages_of_subgraphs_stream_under_their_namespace(g: EngineAPI) -> Case:
    """A message streamed under the subgraph's namespace is not streamed again for the
    parent's task that returns it."""
    graph = _parent_of_a_node_subgraph(g)
    return Case(graph, inputs=({"messages": []},), modes=NESTED, kwargs={"subgraphs": True})


@program()
def tools_of_a_graph_invoked_in_a_node(g: EngineAPI) -> Case:
    return Case(_parent_invoking_a_graph(g), inputs=({"messages": []},), modes=NESTED)


@program()
def tools_of_a_graph_invoked_in_a_node_with_subgraphs(g: EngineAPI) -> Case:
    graph = _parent_invoking_a_graph(g)
    return Case(graph, inputs=({"messages": []},), modes=NESTED, kwargs={"subgraphs": True})


@program()
def tools_of_a_graph_on_its_own_thread_reach_the_caller(g: EngineAPI) -> Case:
    """A graph a node runs on a thread of its own is no subgraph: its tools and tokens
    stream to the caller under the caller's namespace."""
    child = _one(g, _calls)

    def call_child(state: Any) -> dict[str, Any]:
        child.invoke({"messages": []}, {"configurable": {"thread_id": "child"}})
        return {}

    graph = _one(g, call_child)
    return Case(graph, inputs=({"messages": []},), modes=NESTED, kwargs={"subgraphs": True})
