"""``is_invalid_resume`` tells a rejected answer from a node's own validation error."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from pydantic import BaseModel, ValidationError

from sgdebug.runtime import START, Command, StateGraph, interrupt
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.engine._response_schema import is_invalid_resume


class Decision(BaseModel):
    approved: bool


class A(TypedDict):
    answer: Any


def test_a_rejected_answer_is_an_invalid_resume_and_a_node_error_is_not() -> None:
    def ask(state: A) -> dict[str, Any]:
        return {"answer": interrupt("ok?", response_schema=Decision)}

    builder = StateGraph(A)
    builder.add_node("ask", ask).add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"answer": None}, config)

    with pytest.raises(ValidationError) as raised:
        graph.invoke(Command(resume={"approved": "nope"}), config)
    assert is_invalid_resume(raised.value)
    with pytest.raises(ValidationError) as own:
        Decision.model_validate({"approved": "nope"})
    assert not is_invalid_resume(own.value)
    assert not is_invalid_resume(ValueError("nope"))
    assert graph.invoke(Command(resume={"approved": True}), config) == {
        "answer": Decision(approved=True)
    }
