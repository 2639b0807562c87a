"""A human approves a draft reply through ``interrupt()``; other answers send it back.

``START -> draft -> review``; ``review`` pauses the run with ``interrupt()``, showing the
draft and asking for approval. The answer comes back with ``Command(resume=...)`` (the
debugger's ``resume``): ``"yes"`` moves on to ``send``, anything else is taken as feedback,
kept in ``feedback``, and routes back to ``draft`` for another version.

Things to look at in the debugger: ``continue`` stops at the interrupt (the status line
shows the question, the tasks pane marks ``review``); answer with the ``a`` key or
``resume "make it shorter"`` and watch the run loop back to ``draft``; then
``resume "yes"`` to send. Without a checkpointer ``invoke`` returns the pending question
under ``__interrupt__``, as LangGraph does.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "State", "build", "draft", "route", "send"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"request": "a refund for order 1234"}
"""A customer request to answer."""

APPROVE: Final = "yes"
"""The answer that approves the draft."""


class State(TypedDict, total=False):
    """The request, the current draft, the reviewer's feedback and where it stands."""

    request: str
    draft: str
    feedback: Annotated[list[str], operator.add]
    status: str


def draft(state: State) -> dict[str, Any]:
    """Write a version of the reply, taking the latest feedback into account."""
    feedback = state.get("feedback") or []
    text = f"Hello, about {state['request']}: we are on it."
    if feedback:
        text = f"{text} ({feedback[-1]})"
    return {"draft": text, "status": f"draft {len(feedback) + 1}"}


def route(state: State) -> str:
    """``send`` once approved, else back to ``draft``."""
    return "send" if state.get("status") == "approved" else "draft"


def send(state: State) -> dict[str, Any]:
    """Deliver the approved draft."""
    return {"status": f"sent: {state['draft']}"}


def build(engine: Engine = "sgdebug") -> Any:
    """``draft -> review``, looping back to ``draft`` until the reviewer says ``"yes"``."""
    lg = api(engine)

    def review(state: State) -> dict[str, Any]:
        """Ask a human; ``"yes"`` approves, anything else is feedback."""
        answer = lg.interrupt({"question": "Send this reply? (yes, or what to change)",
                               "draft": state["draft"]})  # fmt: skip
        if answer == APPROVE:
            return {"status": "approved"}
        return {"feedback": [str(answer)], "status": "revise"}

    builder = lg.StateGraph(State)
    builder.add_node("draft", draft)
    builder.add_node("review", review)
    builder.add_node("send", send)
    builder.add_edge(lg.START, "draft")
    builder.add_edge("draft", "review")
    builder.add_conditional_edges("review", route, ["send", "draft"])
    builder.add_edge("send", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
