"""Reserved names shared by the builder and the engine."""

from __future__ import annotations

from typing import Final

START: Final = "__start__"
"""The virtual node every run begins at."""
END: Final = "__end__"
"""The virtual node a path finishes at."""

ROOT: Final = "__root__"
"""The one channel of a graph whose state schema has no annotations."""
TASKS: Final = "__pregel_tasks"
"""The channel that queues Send packets for the next superstep."""
PULL: Final = "__pregel_pull"
"""First element of the path of a task triggered by its channels."""
PUSH: Final = "__pregel_push"
"""First element of the path of a task created by a Send."""
INTERRUPT: Final = "__interrupt__"
"""Key under which interrupts are reported in outputs and streams."""
INPUT: Final = "__input__"
"""`update_state(as_node=...)` value that writes like graph input."""
COPY: Final = "__copy__"
"""`update_state(as_node=...)` value that copies a checkpoint unchanged."""
RESERVED_CHARS: Final = ("|", ":")
"""Characters a node name may not contain."""
DEFAULT_RECURSION_LIMIT: Final = 10007
"""LangGraph 1.2's default `recursion_limit`."""
TROUBLESHOOTING: Final = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
)
"""Prefix of the troubleshooting suffix LangGraph appends to some error messages."""


def branch_channel(node: str) -> str:
    """The trigger channel that every edge into ``node`` writes."""
    return f"branch:to:{node}"


def join_channel(sources: tuple[str, ...], target: str) -> str:
    """The barrier channel of a waiting edge ``add_edge([a, b], c)``."""
    return f"join:{'+'.join(sources)}:{target}"
