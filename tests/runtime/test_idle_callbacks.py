"""A node's ``idle_timeout`` counts LangChain callback events as progress (LangGraph's
``refresh_on="auto"``), without losing the ``messages`` stream's own handler.

The progress marks are read from the task (its ``beat``), not timed: no test depends on the
machine's speed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.config import var_child_runnable_config

from sgdebug.runtime import START, MessagesState, StateGraph
from sgdebug.runtime.engine._idle_callbacks import callbacks_beat
from sgdebug.runtime.types import TimeoutPolicy


class _Task:
    beat = -1.0


class _Counting(BaseCallbackHandler):
    def __init__(self) -> None:
        self.starts = 0

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self.starts += 1


def test_a_callback_event_marks_progress_under_auto() -> None:
    task = _Task()
    with callbacks_beat(task, TimeoutPolicy(idle_timeout=30)):  # type: ignore[arg-type]
        RunnableLambda(lambda x: x).invoke(1)
    assert task.beat > 0


def test_events_do_not_count_under_heartbeat_only_or_without_an_idle_limit() -> None:
    for policy in (TimeoutPolicy(idle_timeout=30, refresh_on="heartbeat"), TimeoutPolicy(5)):
        task = _Task()
        with callbacks_beat(task, policy):  # type: ignore[arg-type]
            RunnableLambda(lambda x: x).invoke(1)
        assert task.beat == -1.0


def test_the_handlers_already_in_place_still_get_the_events() -> None:
    task, counting = _Task(), _Counting()
    manager = CallbackManager([counting], [counting])
    token = var_child_runnable_config.set({"callbacks": manager})
    try:
        with callbacks_beat(task, TimeoutPolicy(idle_timeout=30)):  # type: ignore[arg-type]
            RunnableLambda(lambda x: x).invoke(1)
        assert var_child_runnable_config.get() == {"callbacks": manager}
    finally:
        var_child_runnable_config.reset(token)
    assert counting.starts == 1 and task.beat > 0
    assert manager.handlers == [counting]  # the caller's manager is not changed


def test_an_idle_timed_node_still_streams_its_model_tokens() -> None:
    model = GenericFakeChatModel(messages=iter(["zero one two"]))

    async def call_model(state: Any) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    b = StateGraph(MessagesState).add_node(
        "call_model", call_model, timeout=TimeoutPolicy(idle_timeout=30)
    )
    graph = b.add_edge(START, "call_model").compile()

    async def main() -> list[str]:
        chunks = graph.astream({"messages": [HumanMessage("hi")]}, stream_mode="messages")
        return [str(chunk.content) async for chunk, _ in chunks]

    assert "".join(asyncio.run(main())) == "zero one two"
