"""Map-reduce with ``Send``: one worker task per chunk, results merged by a reducer.

``START -> split``; a conditional edge from ``split`` returns one
``Send("count_words", {"index": i, "chunk": ...})`` per chunk, so the next superstep runs
``count_words`` once per chunk, each with its own input (not the graph state). Each worker
appends one record to ``counts`` (an ``operator.add`` reducer); ``count_words -> combine``
then runs ``combine`` once, after all workers, to total the records.
``items`` sets how many chunks the text is cut into.

Things to look at in the debugger: the pending tasks after ``split`` are PUSH tasks with
different inputs; ``counts`` is merged in Send order, whatever order the workers finish in;
``combine`` is triggered by all the workers' writes but runs a single time.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Final, TypedDict

from sgdebug.sample_graphs import lazy_graph
from sgdebug.sample_graphs._engines import Engine, api

__all__ = ["EXAMPLE_INPUT", "State", "build", "combine", "count_words", "split_text"]

EXAMPLE_INPUT: Final[dict[str, Any]] = {
    "text": (
        "A superstep plans its tasks, runs them against one snapshot and then commits "
        "every write through the channel reducers in a fixed order, so parallel work "
        "stays deterministic."
    ),
}
"""A short paragraph to count the words of."""


class State(TypedDict):
    """The text, its chunks, one record per worker, and the combined result."""

    text: str
    chunks: list[str]
    counts: Annotated[list[dict[str, Any]], operator.add]
    total_words: int
    longest_word: str


class ChunkTask(TypedDict):
    """What one ``count_words`` task receives through its ``Send``."""

    index: int
    chunk: str


def split_text(text: str, items: int) -> list[str]:
    """Cut ``text`` into ``items`` chunks of whole words (the last ones may be empty)."""
    words = text.split()
    size = -(-len(words) // items) if words else 0
    return [" ".join(words[i * size : (i + 1) * size]) for i in range(items)]


def count_words(task: ChunkTask) -> dict[str, Any]:
    """The map step: count one chunk's words and find its longest word."""
    words = [word.strip(".,;:!?") for word in task["chunk"].split()]
    longest = max(words, key=len, default="")
    return {"counts": [{"index": task["index"], "words": len(words), "longest": longest}]}


def combine(state: State) -> dict[str, Any]:
    """The reduce step: total the workers' records."""
    records = state["counts"]
    return {
        "total_words": sum(record["words"] for record in records),
        "longest_word": max((record["longest"] for record in records), key=len, default=""),
    }


def build(engine: Engine = "sgdebug", items: int = 3) -> Any:
    """``split`` -> ``items`` x ``count_words`` (one ``Send`` each) -> ``combine``."""
    if items < 1:
        raise ValueError(f"map_reduce needs items >= 1, got {items}")
    lg = api(engine)

    def split(state: State) -> dict[str, Any]:
        """Cut the text into chunks, one per worker."""
        return {"chunks": split_text(state["text"], items)}

    def fan_out(state: State) -> list[Any]:
        """Send each chunk to its own ``count_words`` task."""
        return [
            lg.Send("count_words", {"index": index, "chunk": chunk})
            for index, chunk in enumerate(state["chunks"])
        ]

    builder = lg.StateGraph(State)
    builder.add_node("split", split)
    builder.add_node("count_words", count_words)
    builder.add_node("combine", combine)
    builder.add_edge(lg.START, "split")
    builder.add_conditional_edges("split", fan_out, ["count_words"])
    builder.add_edge("count_words", "combine")
    builder.add_edge("combine", lg.END)
    return builder


def __getattr__(name: str) -> Any:
    return lazy_graph(__name__, name, build)
