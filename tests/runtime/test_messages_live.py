"""``stream_mode="messages"`` yields a model's tokens while the model call still runs.

The model holds its second token back until the caller has *received* the first one: a
stream that only yielded once the call (or the step) ended would keep it waiting in vain
(it gives up after a few seconds and says so). No clock is read: the test hands off
through an event. Both engines, sync and async.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.outputs import ChatGenerationChunk

from sgdebug.sample_graphs._engines import ENGINES, Engine, EngineAPI, api

GIVE_UP_S = 10.0


class HeldModel(GenericFakeChatModel):
    """Streams its reply token by token, waiting after the first for :attr:`received`."""

    received: Any = None
    waited: list[bool] = []

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        for i, chunk in enumerate(super()._stream(*args, **kwargs)):
            if i == 1:
                self.waited.append(self.received.wait(GIVE_UP_S))
            yield chunk

    # (its async stream is langchain-core's: this one, run in a worker thread)


def _graph(g: EngineAPI, model: HeldModel, use_async: bool) -> Any:
    def chat(state: Any) -> dict[str, Any]:
        return {"messages": [model.invoke("hi")]}

    async def achat(state: Any) -> dict[str, Any]:
        return {"messages": [await model.ainvoke("hi")]}

    node = achat if use_async else chat
    b = g.StateGraph(g.MessagesState).add_node("chat", node)
    return b.add_edge(g.START, "chat").compile()


def _model() -> HeldModel:
    return HeldModel(messages=iter(["one two three"]), received=threading.Event(), waited=[])


@pytest.mark.parametrize("engine", ENGINES)
def test_the_first_token_arrives_before_the_model_call_ends(engine: Engine) -> None:
    model = _model()
    tokens = []
    for message, _meta in _graph(api(engine), model, False).stream(
        {"messages": []}, stream_mode="messages"
    ):
        tokens.append(message.content)
        model.received.set()
    assert model.waited == [True]
    assert tokens == ["one", " ", "two", " ", "three"]


@pytest.mark.parametrize("engine", ENGINES)
def test_astream_yields_the_first_token_before_the_model_call_ends(engine: Engine) -> None:
    model = _model()

    async def collect() -> list[str]:
        out = []
        graph = _graph(api(engine), model, True)
        async for message, _meta in graph.astream({"messages": []}, stream_mode="messages"):
            out.append(message.content)
            model.received.set()
        return out

    assert asyncio.run(collect()) == ["one", " ", "two", " ", "three"]
    assert model.waited == [True]
