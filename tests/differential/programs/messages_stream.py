"""Programs for ``stream_mode="messages"``: tokens of langchain-core chat models called in
nodes (streaming, tagged, ``nostream``, given a config of their own), messages nodes return
(in updates, a ``Command``, a list of ``Command``s), input messages not repeated, and the
metadata of each, with ``messages`` recorded beside ``updates`` and ``values``.

Chat models are ``GenericFakeChatModel``s built per call, so every run of a program sees the
same replies; message ids are normalised by the harness.
"""

from __future__ import annotations

import contextlib
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

MESSAGES = ("messages",)


def _model(*replies: str, **kwargs: Any) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter(replies), **kwargs)


def _chat(g: EngineAPI, *nodes: Any) -> Any:
    b = g.StateGraph(g.MessagesState).add_sequence(list(nodes))
    return b.add_edge(g.START, nodes[0].__name__).compile()


@program()
def messages_mode_streams_model_tokens_and_node_messages(g: EngineAPI) -> Case:
    def think(state: Any) -> dict[str, Any]:
        reply = _model("one two three").invoke(state["messages"])
        return {"messages": [HumanMessage("note", id="n1"), reply]}

    def answer(state: Any) -> dict[str, Any]:
        return {"messages": AIMessage("done")}

    return Case(
        _chat(g, think, answer),
        inputs=({"messages": [HumanMessage("hi", id="in")]},),
        config={"tags": ["top"], "metadata": {"who": "me"}},
        modes=MESSAGES,
    )


@program()
def messages_mode_keeps_tags_and_leaves_out_nostream(g: EngineAPI) -> Case:
    def tagged(state: Any) -> dict[str, Any]:
        loud = _model("a b", tags=["meow"]).invoke("x", config={"tags": ["mine"]})
        quiet = _model("hidden").invoke("y", config={"tags": ["nostream"]})
        return {"messages": [loud, quiet]}

    return Case(
        _chat(g, tagged),
        inputs=({"messages": []},),
        # (one lifted key: LangGraph lifts several in an order that varies between runs)
        config={"configurable": {"thread_id": "t", "secret": "s"}},
        modes=MESSAGES,
    )


@program()
def messages_mode_commands_and_async_models(g: EngineAPI) -> Case:
    def first(state: Any) -> Any:
        return g.Command(update={"messages": HumanMessage("bar")})

    def second(state: Any) -> Any:
        return [g.Command(update={"messages": HumanMessage("baz")})]

    async def third(state: Any) -> dict[str, Any]:
        return {"messages": [await _model("async reply").ainvoke(state["messages"])]}

    return Case(
        _chat(g, first, second, third),
        inputs=({"messages": []},),
        modes=(*MESSAGES, ["messages", "updates"]),
        use_async=True,
    )


def _push_message(g: EngineAPI) -> Any:
    """The engine's ``push_message``."""
    if g.StateGraph.__module__.startswith("langgraph"):
        from langgraph.graph.message import push_message
    else:
        from sgdebug.runtime.engine._messages_mode import push_message
    return push_message


@program()
def push_message_streams_and_writes_messages(g: EngineAPI) -> Case:
    push = _push_message(g)

    def chat(state: Any) -> None:
        try:
            push(AIMessage("no id"))
        except ValueError as exc:
            push(HumanMessage(str(exc), id="err"))
        push(AIMessage("first", id="1"))
        push(AIMessage("not kept", id="2"), state_key=None)
        with contextlib.suppress(ValueError):
            push(("user", "a tuple"))  # no id: refused
        return None

    def after(state: Any) -> dict[str, Any]:
        push(AIMessage("again", id="1"))  # streamed again; replaces it in the state
        return {"messages": [AIMessage("last", id="3")]}

    return Case(
        _chat(g, chat, after),
        inputs=({"messages": []},),
        modes=(*MESSAGES, ["messages", "values"]),
    )


@program()
def messages_mode_model_given_the_node_config(g: EngineAPI) -> Case:
    async def call_model(state: Any, config: RunnableConfig) -> dict[str, Any]:
        reply = await _model("foo bar", tags=["meow"]).ainvoke(state["messages"], config)
        return {"messages": reply}

    def sync_model(state: Any, config: RunnableConfig) -> dict[str, Any]:
        return {"messages": _model("baz").invoke(state["messages"], config)}

    return Case(
        _chat(g, call_model, sync_model),
        inputs=({"messages": "hi"},),
        modes=MESSAGES,
        use_async=True,
    )
