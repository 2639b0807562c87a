"""Public entry points spell out their keywords: unknown ones raise TypeError, ones LangGraph
accepts that sgdebug.runtime does not support raise NotImplementedError naming them."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.runtime import START, StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver


class S(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


class Narrow(TypedDict):
    x: int


CALLS: list[str] = []


def bump(state: S) -> dict[str, Any]:
    CALLS.append("bump")
    return {"x": state["x"] + 1, "log": ["bump"]}


def _graph(checkpointer: Any = None) -> Any:
    return StateGraph(S).add_node(bump).add_edge(START, "bump").compile(checkpointer)


def _invoke(**kwargs: Any) -> Any:
    return _graph().invoke({"x": 0}, **kwargs)


def _stream(**kwargs: Any) -> Any:
    return list(_graph().stream({"x": 0}, **kwargs))


def _ainvoke(**kwargs: Any) -> Any:
    return asyncio.run(_graph().ainvoke({"x": 0}, **kwargs))


def _astream(**kwargs: Any) -> Any:
    async def collect() -> list[Any]:
        return [chunk async for chunk in _graph().astream({"x": 0}, **kwargs)]

    return asyncio.run(collect())


RUNNERS: dict[str, Callable[..., Any]] = {
    "invoke": _invoke,
    "stream": _stream,
    "ainvoke": _ainvoke,
    "astream": _astream,
}


@pytest.mark.parametrize("call", RUNNERS)
def test_an_unknown_run_keyword_is_a_type_error_and_runs_nothing(call: str) -> None:
    CALLS.clear()
    with pytest.raises(
        TypeError, match=rf"^{call}\(\) got an unexpected keyword argument 'strem_mode'$"
    ):
        RUNNERS[call](strem_mode="values")
    assert CALLS == []


@pytest.mark.parametrize("call", RUNNERS)
@pytest.mark.parametrize(
    ("keyword", "value"),
    [
        ("version", "v3"),
    ],
)
def test_a_run_keyword_langgraph_takes_and_we_do_not_is_named(
    call: str, keyword: str, value: Any
) -> None:
    CALLS.clear()
    with pytest.raises(NotImplementedError, match=rf"^{call}\({keyword}=.*not supported"):
        RUNNERS[call](**{keyword: value})
    assert CALLS == []


@pytest.mark.parametrize("call", RUNNERS)
def test_debug_true_prints_updates_and_values_and_debug_false_prints_nothing(
    call: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert RUNNERS[call](debug=False) is not None
    assert capsys.readouterr().out == ""
    assert RUNNERS[call](debug=True) is not None
    printed = capsys.readouterr().out.splitlines()
    assert "\x1b[1m[updates]\x1b[0m {'bump': {'x': 1, 'log': ['bump']}}" in printed
    assert "\x1b[1m[values]\x1b[0m {'x': 1, 'log': ['bump']}" in printed


@pytest.mark.parametrize("call", RUNNERS)
def test_an_unknown_durability_is_refused_before_anything_runs(call: str) -> None:
    # LangGraph 1.2.22 takes any value here; a misspelt mode would silently mean "async".
    CALLS.clear()
    with pytest.raises(ValueError, match=rf"^{call}\(durability='exits'\): expected 'sync'"):
        RUNNERS[call](durability="exits")
    assert CALLS == []


@pytest.mark.parametrize("call", RUNNERS)
def test_durability_without_a_checkpointer_warns_and_runs(call: str) -> None:
    CALLS.clear()
    with pytest.warns(UserWarning, match="durability. does nothing without a checkpointer"):
        RUNNERS[call](durability="exit")
    assert CALLS == ["bump"]


@pytest.mark.parametrize("call", RUNNERS)
def test_a_deprecated_langgraph_spelling_is_named_with_what_it_stands_for(call: str) -> None:
    with pytest.raises(NotImplementedError, match=r"checkpoint_during=.*spelling of durability"):
        RUNNERS[call](checkpoint_during=True)


@pytest.mark.parametrize("call", RUNNERS)
def test_the_defaults_langgraph_documents_are_accepted(call: str) -> None:
    got = RUNNERS[call](
        print_mode=(), durability=None, control=None, version="v1", context=None,
        interrupt_before=None, interrupt_after=None, output_keys=None,
    )  # fmt: skip
    want = {"x": 1, "log": ["bump"]}
    assert got == (want if call.endswith("invoke") else [{"bump": want}])


def test_stream_without_a_mode_streams_updates_and_stream_modes_can_be_listed() -> None:
    assert _stream(stream_mode=None) == [{"bump": {"x": 1, "log": ["bump"]}}]
    assert _stream(stream_mode=["values"]) == [
        ("values", {"x": 0, "log": []}),
        ("values", {"x": 1, "log": ["bump"]}),
    ]


def test_a_refused_keyword_saves_nothing_on_the_thread() -> None:
    saver = InMemorySaver()
    graph = _graph(saver)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(NotImplementedError):
        list(graph.stream({"x": 0}, config, checkpoint_during=True))
    assert list(graph.get_state_history(config)) == []


@pytest.mark.parametrize(
    ("keyword", "value"),
    [
        ("trace_policy", object()),
    ],
)
def test_add_node_names_the_policy_it_does_not_support(keyword: str, value: Any) -> None:
    builder = StateGraph(S)
    with pytest.raises(NotImplementedError, match=rf"^add_node\({keyword}="):
        builder.add_node("bump", bump, **{keyword: value})
    assert builder.nodes == {}


def test_a_cache_policy_that_is_not_one_is_refused_and_adds_nothing() -> None:
    builder = StateGraph(S)
    with pytest.raises(TypeError, match=r"^add_node\(cache_policy=\.\.\.\) takes a CachePolicy"):
        builder.add_node("bump", bump, cache_policy=object(), error_handler=bump)
    assert builder.nodes == {}
    assert builder.set_node_defaults() is builder
    with pytest.raises(TypeError, match=r"^set_node_defaults\(cache_policy=\.\.\.\) takes a"):
        builder.set_node_defaults(cache_policy=bump)
    assert builder.node_defaults.cache_policy is None
    with pytest.raises(TypeError):
        builder.set_node_defaults(retry=1)  # type: ignore[call-arg]


def test_add_node_refuses_unknown_keywords_and_the_deprecated_retry() -> None:
    builder = StateGraph(S)
    with pytest.raises(
        TypeError, match=r"^add_node\(\) got an unexpected keyword argument 'defered'$"
    ):
        builder.add_node("bump", bump, defered=True)
    with pytest.raises(NotImplementedError, match=r"add_node\(retry=.*spelling of retry_policy"):
        builder.add_node("bump", bump, retry=object())
    assert builder.nodes == {}


def test_add_node_takes_the_deprecated_input_spelling_of_input_schema() -> None:
    builder = StateGraph(S).add_node("bump", bump, input=Narrow)
    assert builder.nodes["bump"].input_schema is Narrow


@pytest.mark.parametrize(
    ("keyword", "value"),
    [("transformers", [print])],
)
def test_compile_names_what_it_does_not_support(keyword: str, value: Any) -> None:
    builder = StateGraph(S).add_node(bump).add_edge(START, "bump")
    with pytest.raises(NotImplementedError, match=rf"^compile\({keyword}="):
        builder.compile(**{keyword: value})
    with pytest.raises(TypeError, match="checkpoint"):
        builder.compile(checkpoint=None)  # type: ignore[call-arg]


def test_state_graph_refuses_unknown_keywords_and_takes_the_deprecated_schemas() -> None:
    with pytest.raises(
        TypeError, match=r"^StateGraph\(\) got an unexpected keyword argument 'schema'$"
    ):
        StateGraph(S, schema=S)
    builder = StateGraph(S, input=Narrow, output=Narrow)
    assert (builder.input_schema, builder.output_schema) == (Narrow, Narrow)
