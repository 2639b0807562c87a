"""A streamed model token counts as progress for its node's idle time limit
(``TimeoutPolicy(idle_timeout=..., refresh_on="auto")``), as in LangGraph; with
``refresh_on="heartbeat"`` it does not. No clock is compared with a limit: the test compares
the task's last sign of progress with the moments the model handed out its tokens.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.outputs import ChatGenerationChunk

from sgdebug.runtime import START, MessagesState, StateGraph
from sgdebug.runtime.engine._context import SCOPE
from sgdebug.runtime.types import TimeoutPolicy


class Stamped(GenericFakeChatModel):
    """Notes the time just before it hands out each token."""

    stamps: list[float] = []

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        for chunk in super()._stream(*args, **kwargs):
            self.stamps.append(time.monotonic())
            yield chunk


@pytest.mark.parametrize(("refresh_on", "counted"), [("auto", True), ("heartbeat", False)])
def test_a_streamed_token_is_progress(refresh_on: str, counted: bool) -> None:
    model = Stamped(messages=iter(["a b"]), stamps=[])
    beats: list[float] = []

    async def call(state: Any) -> dict[str, Any]:
        reply = await model.ainvoke("hi")
        scope = SCOPE.get()
        assert scope is not None and scope.task is not None
        beats.append(scope.task.beat)  # the task's last sign of progress
        return {"messages": [reply]}

    policy = TimeoutPolicy(idle_timeout=60, refresh_on=refresh_on)  # type: ignore[arg-type]
    b = StateGraph(MessagesState).add_node("call", call, timeout=policy)
    graph: Any = b.add_edge(START, "call").compile()

    async def run() -> list[Any]:
        return [c async for c in graph.astream({"messages": []}, stream_mode="messages")]

    assert len(asyncio.run(run())) == 3
    assert len(model.stamps) == 3
    if counted:  # the last token's callback came after its stamp
        assert beats[0] >= model.stamps[-1]
    else:  # still the attempt's start
        assert beats[0] < model.stamps[0]
