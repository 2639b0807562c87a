"""The compiled graph's Runnable-style API, each compared with LangGraph on one program:
``with_config``, ``copy``, ``batch``/``abatch``, ``get_name`` and the channel views; and
the builder's introspection (``branches[...].ends``, ``managed``)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph as LgStateGraph
from langgraph.managed import RemainingSteps as LgRemainingSteps

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.channels import BinaryOperatorAggregate, LastValue
from sgdebug.runtime.managed import RemainingSteps


class S(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


class Out(TypedDict):
    log: Annotated[list[str], operator.add]


ENGINES = (StateGraph, LgStateGraph)


def _graph(graph_cls: Any, seen: list[Any] | None = None, **compile_kwargs: Any) -> Any:
    def node(state: S, config: RunnableConfig) -> dict[str, Any]:
        if seen is not None:
            seen.append({k: config.get(k) for k in ("tags", "metadata", "recursion_limit")})
            seen[-1]["thread"] = config["configurable"].get("thread_id")
        if state["n"] < 0:
            raise ValueError("negative")
        return {"n": state["n"] + 1, "log": ["node"]}

    builder = graph_cls(S, output_schema=Out)
    builder.add_node("node", node).add_edge(START, "node")
    return builder.compile(**compile_kwargs)


def _seen_with_config(graph_cls: Any) -> list[Any]:
    seen: list[Any] = []
    bound = _graph(graph_cls, seen).with_config(
        {"tags": ["bound"], "metadata": {"user": "u1", "x": 1}}, recursion_limit=7
    )
    again = bound.with_config(configurable={"thread_id": "t"})
    again.invoke({"n": 0}, {"tags": ["call"], "metadata": {"x": 2}})
    bound.invoke({"n": 0}, {"recursion_limit": 9})
    for entry in seen:  # LangGraph adds its own langgraph_* metadata; compare the user's
        entry["metadata"] = {k: v for k, v in entry["metadata"].items() if k in ("user", "x")}
    return seen


def test_with_config_merges_under_each_run_as_langgraph_does() -> None:
    ours, theirs = (_seen_with_config(cls) for cls in ENGINES)
    assert ours == theirs
    assert ours[0]["tags"] == ["bound", "call"]


def test_with_config_leaves_the_graph_it_copies_alone_and_refuses_unknown_keys() -> None:
    seen: list[Any] = []
    graph = _graph(StateGraph, seen)
    graph.with_config(tags=["bound"])
    graph.invoke({"n": 0})
    assert seen[0]["tags"] == []
    with pytest.raises(TypeError, match="unexpected config key 'tag'"):
        graph.with_config(tag=["x"])


def _batches(graph_cls: Any) -> list[Any]:
    graph = _graph(graph_cls)
    out: list[Any] = [graph.batch([{"n": 1}, {"n": 5}])]
    out.append(graph.batch([{"n": 1}, {"n": 2}], [{"tags": ["a"]}, {"tags": ["b"]}]))
    failed = graph.batch([{"n": -1}, {"n": 2}], return_exceptions=True)
    out.append([repr(x) if isinstance(x, Exception) else x for x in failed])
    with pytest.raises(ValueError, match="negative"):
        graph.batch([{"n": -1}])
    out.append(asyncio.run(graph.abatch([{"n": 3}, {"n": 4}], output_keys=["n"])))
    failed = asyncio.run(graph.abatch([{"n": 1}, {"n": -1}], return_exceptions=True))
    out.append([repr(x) if isinstance(x, Exception) else x for x in failed])
    return out


def test_batch_and_abatch_give_langgraphs_outputs() -> None:
    ours, theirs = (_batches(cls) for cls in ENGINES)
    assert ours == theirs
    assert ours[3] == [{"n": 4}, {"n": 5}]


@pytest.mark.parametrize(
    ("name", "suffix"), [(None, None), (None, "input"), ("my_graph", "Output"), ("X", "y")]
)
def test_get_name_joins_a_suffix_as_langgraph_does(name: str | None, suffix: str | None) -> None:
    names = [
        cls_graph.get_name(suffix)
        for cls_graph in (_graph(cls, name=name) if name else _graph(cls) for cls in ENGINES)
    ]
    assert names[0] == names[1]
    assert _graph(StateGraph).get_name(name="other") == "other"


def test_channel_views_name_langgraphs_channels() -> None:
    ours, theirs = (_graph(cls) for cls in ENGINES)
    for view in ("input_channels", "output_channels", "stream_channels"):
        assert getattr(ours, view) == getattr(theirs, view), view
    assert set(ours.channels) == set(theirs.channels)
    assert isinstance(ours.channels["log"], BinaryOperatorAggregate)
    assert isinstance(ours.channels["n"], LastValue)


def test_copy_replaces_what_it_is_given_and_nothing_else() -> None:
    graph = _graph(StateGraph)
    clone = graph.copy({"name": "clone"})
    assert (clone.name, graph.name) == ("clone", "LangGraph")
    assert clone.invoke({"n": 1}) == graph.invoke({"n": 1})
    with pytest.raises(TypeError, match="unknown attribute 'nmae'"):
        graph.copy({"nmae": "x"})


class Counted(TypedDict):
    n: int
    left: RemainingSteps


class LgCounted(TypedDict):
    n: int
    left: LgRemainingSteps


def _builder(graph_cls: Any, state: Any) -> Any:
    builder = graph_cls(state)
    builder.add_node("a", lambda s: None).add_node("b", lambda s: None)
    builder.add_conditional_edges(START, lambda s: "a", {"a": "a", "other": "b"})
    builder.add_conditional_edges("a", lambda s: "b")
    return builder


def test_builder_introspection_names_branch_ends_and_managed_keys_as_langgraph() -> None:
    ours, theirs = _builder(StateGraph, Counted), _builder(LgStateGraph, LgCounted)
    for builder in (ours, theirs):
        ends = {
            src: {n: b.ends for n, b in specs.items()} for src, specs in builder.branches.items()
        }
        assert ends == {
            "__start__": {"condition": {"a": "a", "other": "b"}},
            "a": {"condition": None},
        }
        assert list(builder.managed) == ["left"]


@pytest.mark.parametrize("checkpointer", [object(), 3])
def test_compile_refuses_what_is_not_a_saver_as_langgraph_does(checkpointer: Any) -> None:
    messages = []
    for graph_cls in ENGINES:
        with pytest.raises(TypeError, match="Invalid checkpointer provided") as raised:
            _graph(graph_cls, checkpointer=checkpointer)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_clear_cache_without_a_cache_raises_as_langgraph_does() -> None:
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LGStateGraph

    from sgdebug.runtime import START as SG_START
    from sgdebug.runtime import StateGraph as SGStateGraph

    class X(TypedDict):
        x: int

    messages = []
    for graph_class, start in ((LGStateGraph, LG_START), (SGStateGraph, SG_START)):
        graph = graph_class(X).add_node("a", lambda s: {"x": 1}).add_edge(start, "a").compile()
        with pytest.raises(ValueError) as raised:
            graph.clear_cache()
        messages.append(str(raised.value))
        with pytest.raises(ValueError) as raised:
            asyncio.run(graph.aclear_cache())
        messages.append(str(raised.value))
    assert len(set(messages)) == 1 and "No cache is set" in messages[0]


def test_draw_ascii_is_refused_with_what_to_use_instead() -> None:
    from sgdebug.runtime import START as SG_START
    from sgdebug.runtime import StateGraph as SGStateGraph

    class X(TypedDict):
        x: int

    drawing = SGStateGraph(X).add_node("a", lambda s: {}).add_edge(SG_START, "a").compile()
    for call in (drawing.get_graph().draw_ascii, drawing.get_graph().print_ascii):
        with pytest.raises(NotImplementedError, match="sgdebug graph TARGET"):
            call()
