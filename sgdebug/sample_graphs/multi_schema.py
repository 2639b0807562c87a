"""Input, output and private schemas: what a caller sees is not the whole state.

``START -> parse -> think -> respond -> END`` on ``StateGraph(OverallState,
input_schema=InputState, output_schema=OutputState)``:

* the caller passes only ``question`` (``InputState``) and gets back only ``answer``
  (``OutputState``);
* ``parse`` reads the input schema and writes ``topic`` into the overall state;
* ``think`` writes ``scratchpad``, a key of ``PrivateState`` that is not in the graph's
  state schema: the builder picks that schema up from ``respond``'s first-parameter
  annotation and adds a private channel for it;
* ``respond`` reads *only* ``scratchpad`` (its input schema is ``PrivateState``) and
  writes ``answer``.

Things to look at in the debugger: the channel table lists ``question``, ``topic``,
``answer`` and the private ``scratchpad``, while the run's result holds ``answer`` alone;
each pending task's input shows the narrow view its node was given.
"""

from __future__ import annotations

from typing import Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = [
    "EXAMPLE_INPUT",
    "InputState",
    "OutputState",
    "OverallState",
    "PrivateState",
    "build",
]

EXAMPLE_INPUT: Final[dict[str, Any]] = {"question": "How do reducers merge parallel writes?"}
"""A question from the user; any other key would be dropped by the input schema."""


class InputState(TypedDict):
    """What the caller provides."""

    question: str


class OutputState(TypedDict):
    """What the caller gets back."""

    answer: str


class OverallState(TypedDict):
    """The graph's state: input, output and one intermediate key."""

    question: str
    topic: str
    answer: str


class PrivateState(TypedDict):
    """Notes passed from ``think`` to ``respond`` only, never returned to the caller."""

    scratchpad: str


def parse(state: InputState) -> dict[str, Any]:
    """Pick the topic: the longest word of the question."""
    words = [word.strip("?.,!").lower() for word in state["question"].split()]
    return {"topic": max(words, key=len)}


def think(state: OverallState) -> PrivateState:
    """Draft reasoning into the private scratchpad."""
    return {"scratchpad": f"{state['topic']}: apply each write in task order"}


def respond(state: PrivateState) -> OutputState:
    """Turn the scratchpad into the final answer; sees no other key."""
    topic, _, rule = state["scratchpad"].partition(": ")
    return {"answer": f"For {topic}, {rule}."}


def build(engine: Engine = "sgdebug") -> Any:
    """``parse -> think -> respond`` with input/output/private schemas on ``engine``."""
    lg = api(engine)
    builder = lg.StateGraph(OverallState, input_schema=InputState, output_schema=OutputState)
    builder.add_node("parse", parse)
    builder.add_node("think", think)
    builder.add_node("respond", respond)
    builder.add_edge(lg.START, "parse")
    builder.add_edge("parse", "think")
    builder.add_edge("think", "respond")
    builder.add_edge("respond", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
