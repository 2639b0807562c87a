"""Parallel subgraph nodes whose own steps are parallel, more of them than the runtime's
pool has threads: every pool thread is taken by the outer step while the inner steps need
threads too (sgdebug's shared pool waited forever here; LangGraph runs each graph's tasks
in an executor of its own)."""

from __future__ import annotations

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program

OUTER = 40
"""Subgraph nodes in the outer step: more than any pool (32 threads at most)."""
INNER = ("x", "y", "z")
"""The parallel nodes of each subgraph's step."""


class Log(TypedDict):
    """Every inner node's mark."""

    log: Annotated[list[str], operator.add]


def _slow(name: str) -> Any:
    def node(state: Log) -> dict[str, Any]:
        time.sleep(0.001)  # (slow enough to be run in a pool thread)
        return {"log": [name]}

    node.__name__ = name
    return node


@program()
def parallel_subgraphs_with_parallel_steps_past_the_pool_size(g: EngineAPI) -> Case:
    inner = g.StateGraph(Log)
    for name in INNER:
        inner.add_node(name, _slow(name)).add_edge(g.START, name)
    sub = inner.compile()
    outer = g.StateGraph(Log)
    for i in range(OUTER):
        outer.add_node(f"sub{i:02d}", sub).add_edge(g.START, f"sub{i:02d}")
    return Case(outer.compile(), inputs=({"log": []},), unordered=True)


@program()
def parallel_nodes_running_async_graphs_past_the_pool_size(g: EngineAPI) -> Case:
    """Each outer node runs an async graph of parallel sync nodes with ``asyncio.run``:
    its sync tasks need threads while the outer step holds every pool thread (sgdebug's
    async steps handed each to the shared pool and waited forever)."""
    inner = g.StateGraph(Log)
    for name in INNER:
        inner.add_node(name, _slow(name)).add_edge(g.START, name)
    sub = inner.compile()

    def run(state: Log) -> dict[str, Any]:
        time.sleep(0.001)  # (slow enough to be run in a pool thread)
        return {"log": asyncio.run(sub.ainvoke({"log": []}))["log"]}

    outer = g.StateGraph(Log)
    for i in range(OUTER):
        outer.add_node(f"sub{i:02d}", run).add_edge(g.START, f"sub{i:02d}")
    return Case(outer.compile(), inputs=({"log": []},), unordered=True)
