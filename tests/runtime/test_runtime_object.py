"""``Runtime`` as LangGraph has it: subscriptable, ``override``/``merge``, ``get_runtime()``
and ``execution_info`` inside a node; ``StateGraph[...]`` in annotations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import pytest
from langgraph import runtime as lg_runtime
from langgraph.checkpoint.memory import InMemorySaver as LgSaver
from langgraph.graph import StateGraph as LgStateGraph

from sgdebug.runtime import START, Runtime, StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.runtime.engine._runtime import ExecutionInfo, get_runtime


class S(TypedDict):
    x: int


@dataclass
class Ctx:
    key: str


def test_state_graph_and_runtime_take_type_arguments_as_in_langgraph() -> None:
    graph_cls: Any = StateGraph  # mypy does not know the classes are subscriptable
    runtime_cls: Any = Runtime
    graph = graph_cls[S, Ctx](S, Ctx)

    assert isinstance(graph, StateGraph)
    assert runtime_cls[Ctx](context=Ctx("k")).context == Ctx("k")


def _fields(r: Any) -> tuple[Any, ...]:
    return (r.context, r.store, r.previous, r.execution_info, r.server_info)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"context": Ctx("a")}, {"context": Ctx("b")}),
        ({"context": Ctx("a")}, {}),
        ({"previous": 1}, {"previous": 0}),
        ({}, {"previous": None}),
    ],
)
def test_merge_and_override_give_langgraphs_fields(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    ours = Runtime(**first).merge(Runtime(**second))
    theirs = lg_runtime.Runtime(**first).merge(lg_runtime.Runtime(**second))
    assert _fields(ours) == _fields(theirs)
    ours = Runtime(**first).override(**second)
    theirs = lg_runtime.Runtime(**first).override(**second)
    assert _fields(ours) == _fields(theirs)


def test_merge_keeps_the_writer_unless_the_other_sets_one() -> None:
    def writer(_chunk: Any) -> None:
        return None

    assert Runtime(stream_writer=writer).merge(Runtime()).stream_writer is writer
    assert Runtime().merge(Runtime(stream_writer=writer)).stream_writer is writer


def test_override_replaces_control_and_heartbeat_and_refuses_what_nobody_has() -> None:
    from sgdebug.runtime import RunControl

    control = RunControl()
    assert Runtime().override(control=control).control is control
    assert Runtime().merge(Runtime(control=control)).drain_requested is False
    control.request_drain("sigterm")
    assert Runtime(control=control).drain_reason == "sigterm"
    Runtime().heartbeat()  # outside a time-limited attempt: nothing happens
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        Runtime().override(colour=1)


def _capture_graph(graph_cls: Any, saver: Any, seen: dict[str, Any], getter: Any) -> Any:
    def node(state: S, runtime: Any) -> dict[str, Any]:
        seen["info"] = runtime.execution_info
        seen["got"] = getter()
        return {"x": 1}

    builder = graph_cls(S, Ctx)
    builder.add_node("node", node).add_edge(START, "node")
    return builder.compile(checkpointer=saver)


def test_execution_info_and_get_runtime_in_a_node_match_langgraph() -> None:
    config = {"configurable": {"thread_id": "t9"}, "run_id": None}
    ours: dict[str, Any] = {}
    theirs: dict[str, Any] = {}
    graphs = (
        _capture_graph(StateGraph, InMemorySaver(), ours, get_runtime),
        _capture_graph(LgStateGraph, LgSaver(), theirs, lg_runtime.get_runtime),
    )
    for graph, seen in zip(graphs, (ours, theirs), strict=True):
        graph.invoke({"x": 0}, config, context=Ctx("k"))
        planned_from = list(graph.get_state_history(config))[1].config  # step 0
        info = seen["info"]
        assert info.checkpoint_id == planned_from["configurable"]["checkpoint_id"]
        assert (info.thread_id, info.node_attempt, info.run_id) == ("t9", 1, None)
        assert info.checkpoint_ns == f"node:{info.task_id}"
        assert isinstance(info.node_first_attempt_time, float)
        assert seen["got"].context == Ctx("k")
    assert isinstance(ours["info"], ExecutionInfo)
    assert ours["info"].patch(node_attempt=2).node_attempt == 2


def test_get_runtime_outside_a_node_raises() -> None:
    with pytest.raises(RuntimeError):
        get_runtime()


def test_a_node_sees_the_server_info_its_config_carries() -> None:
    from sgdebug.runtime import START, ServerInfo, StateGraph

    seen: list[Any] = []

    def node(state: S, runtime: Runtime) -> dict[str, Any]:
        seen.append(runtime.server_info)
        return {}

    graph = StateGraph(S).add_node("n", node).add_edge(START, "n").compile()
    graph.invoke({"x": 1})
    user = type("User", (), {"identity": "ann"})()
    configurable = {"assistant_id": "a1", "langgraph_auth_user": user}
    graph.invoke({"x": 1}, {"configurable": configurable})
    graph.invoke({"x": 1}, {"configurable": {"langgraph_auth_user": {"identity": "dict"}}})
    assert seen == [None, ServerInfo("a1", "", user), None]
