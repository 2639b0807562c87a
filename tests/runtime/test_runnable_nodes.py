"""LangChain Runnables as nodes, and what ``builder.nodes[name].runnable`` shows."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig, RunnableLambda

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.graph._runnable import is_runnable, runnable_action


class S(TypedDict):
    x: int


class Counter:
    """A callable node that counts its calls."""

    def __init__(self) -> None:
        self.ticks = 0
        self.__name__ = "count"

    def __call__(self, state: S) -> dict[str, Any]:
        self.ticks += 1
        return {"x": state["x"] + 1}


def test_a_node_spec_shows_its_function_as_the_runnable_func() -> None:
    counter = Counter()
    builder = StateGraph(S).add_node(counter).add_edge(START, "count")
    assert builder.compile().invoke({"x": 1}) == {"x": 2}
    runnable = builder.nodes["count"].runnable
    assert runnable.func is counter and runnable.func.ticks == 1
    assert (runnable.afunc, runnable.name) == (None, "count")


def test_an_async_node_spec_shows_its_function_as_afunc() -> None:
    async def later(state: S) -> dict[str, Any]:
        return {"x": 0}

    builder = StateGraph(S).add_node(later)
    assert (builder.nodes["later"].runnable.func, builder.nodes["later"].runnable.afunc) == (
        None,
        later,
    )


def test_a_runnable_node_spec_shows_the_runnable() -> None:
    lam: RunnableLambda[Any, dict[str, int]] = RunnableLambda(lambda s: {"x": 5})
    builder = StateGraph(S).add_node("n", lam).add_edge(START, "n")
    assert builder.nodes["n"].runnable is lam
    assert builder.compile().invoke({"x": 1}) == {"x": 5}


def test_only_langchain_runnables_are_run_as_runnables() -> None:
    assert is_runnable(RunnableLambda(lambda s: s))
    assert not is_runnable(Counter())
    assert not is_runnable(lambda s: s)


@pytest.mark.parametrize("use_async", [False, True])
def test_a_runnable_receives_the_node_config(use_async: bool) -> None:
    seen: list[Any] = []

    def look(state: S, config: RunnableConfig) -> dict[str, Any]:
        seen.append(config.get("metadata", {})["langgraph_node"])
        return {"x": 9}

    graph = StateGraph(S).add_node("n", RunnableLambda(look)).add_edge(START, "n").compile()
    run = graph.ainvoke({"x": 1}) if use_async else None
    result = asyncio.run(run) if run is not None else graph.invoke({"x": 1})
    assert (result, seen) == ({"x": 9}, ["n"])
    assert runnable_action(RunnableLambda(look)).__name__ == "look"


def test_a_compiled_node_copies_with_fields_replaced() -> None:
    graph = StateGraph(S).add_node(Counter()).add_edge(START, "count").compile()
    node = graph.nodes["count"]
    same, renamed = node.copy({}), node.copy({"name": "other"})
    assert (same.name, same.action, same.triggers) == (node.name, node.action, node.triggers)
    assert (renamed.name, renamed.pull_path) == ("other", ("__pregel_pull", "other"))
    assert same is not node
