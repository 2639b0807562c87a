"""Programs with LangChain Runnables as nodes: a ``prompt | model | parser`` chain, a
``RunnableLambda`` (with and without a config parameter), a tool, and a Runnable returning
a ``Command``; each run through invoke / stream, sync and async."""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.language_models.fake import FakeListLLM
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, program


class S(TypedDict):
    """An input key and an output key."""

    x: str
    y: str


@tool
def shout(x: str) -> dict[str, str]:
    """Upper-case ``x`` into ``y``."""
    return {"y": x.upper()}


def _chain() -> Any:
    llm = FakeListLLM(responses=["hello", "again"])
    return PromptTemplate.from_template("say {x}") | llm | RunnableLambda(lambda t: {"y": t})


def _node_graph(g: EngineAPI, action: Any) -> Any:
    return g.StateGraph(S).add_node("n", action).add_edge(g.START, "n").compile()


@program()
def runnable_sequence_node(g: EngineAPI) -> Case:
    return Case(_node_graph(g, _chain()), inputs=({"x": "a"}, {"x": "b"}))


@program()
def runnable_sequence_node_async(g: EngineAPI) -> Case:
    return Case(_node_graph(g, _chain()), inputs=({"x": "a"},), use_async=True)


@program()
def runnable_lambda_nodes_named_and_with_config(g: EngineAPI) -> Case:
    def tagged(state: S, config: RunnableConfig) -> dict[str, str]:
        return {"y": state["x"] + ":" + str(config["metadata"]["langgraph_node"])}

    b = g.StateGraph(S)
    b.add_node(RunnableLambda(tagged)).add_node("twice", RunnableLambda(lambda s: {"x": s["y"]}))
    b.add_edge(g.START, "tagged").add_edge("tagged", "twice")
    return Case(b.compile(), inputs=({"x": "a"},))


@program()
def tool_node_and_async_lambda(g: EngineAPI) -> Case:
    async def later(state: S) -> dict[str, str]:
        return {"y": state["y"] + "!"}

    b = g.StateGraph(S).add_node("shout", shout).add_node("later", RunnableLambda(later))
    b.add_edge(g.START, "shout").add_edge("shout", "later")
    return Case(b.compile(), inputs=({"x": "a"},), use_async=True)


@program()
def runnable_returning_a_command(g: EngineAPI) -> Case:
    def route(state: S) -> Any:
        return g.Command(update={"y": "routed"}, goto="b")

    b = g.StateGraph(S).add_node("a", RunnableLambda(route)).add_node("b", lambda s: {"x": "b"})
    b.add_edge(g.START, "a")
    return Case(b.compile(), inputs=({"x": "a"},))
