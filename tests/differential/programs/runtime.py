"""Programs exercising the superstep loop: recursion limit, managed values, bad return
values, node errors, unknown keys, injected config/runtime/writer, and stream modes."""

from __future__ import annotations

import operator
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say, ts, typed_dict

if TYPE_CHECKING:
    from langgraph.runtime import Runtime
    from langgraph.types import StreamWriter


class S(TypedDict):
    """A counter, a plain key and an append log."""

    n: int
    x: int
    log: Annotated[list[str], operator.add]


class Boom(Exception):
    """A user exception raised by a node."""


def _limit_message(n: int) -> str:
    return (
        f"Recursion limit of {n} reached without hitting a stop condition. You can increase "
        "the limit by setting the `recursion_limit` config key." + ts("GRAPH_RECURSION_LIMIT")
    )


def _chain(g: EngineAPI) -> Any:
    b = g.StateGraph(S).add_sequence([say("a"), say("b"), say("c")])
    return b.add_edge(g.START, "a").compile()


@program()
def recursion_limit_counts_final_step(g: EngineAPI) -> Case:
    return Case(
        _chain(g),
        config={"recursion_limit": 3},
        expect=(err("GraphRecursionError", _limit_message(3)),),
    )


@program()
def recursion_limit_just_enough(g: EngineAPI) -> Case:
    return Case(_chain(g), config={"recursion_limit": 4}, expect=({"log": ["a", "b", "c"]},))


@program()
def recursion_limit_self_loop(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("loop", lambda s: {"n": s["n"] + 1}).add_edge(g.START, "loop")
    b.add_edge("loop", "loop")
    return Case(
        b.compile(),
        inputs=({"n": 0},),
        config={"recursion_limit": 5},
        expect=(err("GraphRecursionError", _limit_message(5)),),
    )


@program()
def recursion_limit_below_one(g: EngineAPI) -> Case:
    return Case(
        _chain(g),
        config={"recursion_limit": 0},
        expect=(err("ValueError", "recursion_limit must be at least 1"),),
    )


def _managed(g: EngineAPI) -> Any:
    M = typed_dict(
        "M",
        {
            "log": Annotated[list[str], operator.add],
            "rem": g.RemainingSteps,
            "last": g.IsLastStep,
        },
    )
    b = g.StateGraph(M)
    b.add_node("a", lambda s: {"log": [f"a:{s['rem']}:{s['last']}"], "rem": 99})
    b.add_node("b", lambda s: {"log": [f"b:{s['rem']}:{s['last']}"]})
    return b.add_edge(g.START, "a").add_edge("a", "b").compile()


@program()
def managed_values_default_limit(g: EngineAPI) -> Case:
    return Case(
        _managed(g),
        inputs=({"rem": 5, "last": True},),
        expect=({"log": ["a:10006:False", "b:10005:False"]},),
    )


@program()
def managed_values_near_limit(g: EngineAPI) -> Case:
    return Case(
        _managed(g),
        config={"recursion_limit": 3},
        expect=({"log": ["a:2:False", "b:1:True"]},),
    )


@program()
def is_last_step_stops_a_loop(g: EngineAPI) -> Case:
    M = typed_dict("M", {"n": int, "last": g.IsLastStep})
    b = g.StateGraph(M)
    b.add_node("loop", lambda s: {"n": s["n"] + 1}).add_edge(g.START, "loop")
    b.add_conditional_edges("loop", lambda s: g.END if s["last"] else "loop")
    return Case(b.compile(), inputs=({"n": 0},), config={"recursion_limit": 6}, expect=({"n": 5},))


@program()
def unknown_keys_dropped_from_input_and_updates(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"x": 1, "nope": 2, "log": [str(sorted(s))]})
    b.add_node("b", lambda s: {"nope": 3})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        b.compile(),
        inputs=({"n": 1, "junk": 0},),
        expect=({"n": 1, "x": 1, "log": ["['log', 'n']"]},),
        expect_updates=[{"a": {"x": 1, "log": ["['log', 'n']"]}}, {"b": None}],
    )


@program()
def bad_node_return_values(g: EngineAPI) -> Case:
    bad: list[Any] = [5, "hello", [1, 2], ("x", 1), [("x", 2)], True]
    b = g.StateGraph(S)
    b.add_node("a", lambda s: bad[s["n"]]).add_edge(g.START, "a")
    suffix = ts("INVALID_GRAPH_NODE_RETURN_VALUE")
    return Case(
        b.compile(),
        inputs=tuple({"n": i} for i in range(len(bad))),
        expect=tuple(err("InvalidUpdateError", f"Expected dict, got {v}" + suffix) for v in bad),
    )


@program()
def non_dict_graph_input(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a")
    msg = "Expected dict, got 5" + ts("INVALID_GRAPH_NODE_RETURN_VALUE")
    return Case(
        b.compile(),
        inputs=(5, "s"),
        expect=(err("InvalidUpdateError", msg), err("InvalidUpdateError", msg.replace("5", "s"))),
    )


@program()
def empty_input_error(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a")
    msg = "Received no input for __start__"
    return Case(b.compile(), inputs=(None,), expect=(err("EmptyInputError", msg),))


@program()
def node_exception_discards_step_writes(g: EngineAPI) -> Case:
    def fail(s: Any) -> dict[str, Any]:
        raise Boom(f"boom at {s['log']}")

    b = g.StateGraph(S)
    b.add_node("a", say("a")).add_node("b", fail).add_node("c", say("c")).add_node("d", say("d"))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("a", "c").add_edge("c", "d")
    return Case(b.compile(), expect=(err("Boom", "boom at ['a']"),))


@program()
def node_with_zero_parameters(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", lambda: {"x": 1}).add_edge(g.START, "a")
    msg = (
        "node_with_zero_parameters.<locals>.<lambda>() takes 0 positional arguments but 1 was given"
    )
    return Case(b.compile(), expect=(err("TypeError", msg),))


def _config_probe(s: Any, config: RunnableConfig) -> dict[str, Any]:
    meta = config["metadata"]
    keys = ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path")
    seen = [f"{k}={meta[k]!r}" for k in keys]
    seen.append(f"ns={meta['langgraph_checkpoint_ns']!r}")
    seen.append(f"user={config['configurable'].get('user')!r}")
    seen.append(f"limit={config.get('recursion_limit')!r}")
    return {"log": seen}


@program()
def config_injection_with_caller_config(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", say("a")).add_node("probe", _config_probe)
    b.add_edge(g.START, "a").add_edge("a", "probe")
    return Case(b.compile(), config={"configurable": {"user": "u1"}, "recursion_limit": 9})


@program()
def config_injection_without_config(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("probe", _config_probe).add_edge(g.START, "probe")
    return Case(b.compile())


def _kind(value: Any) -> str:
    return "injected" if value is not None else "default"


def _config_any(s: Any, config: Any = None) -> dict[str, Any]:
    return {"log": [f"config: Any -> {_kind(config)}"]}


def _config_union_string(s: Any, config: RunnableConfig | None = None) -> dict[str, Any]:
    return {"log": [f"config: 'RunnableConfig | None' -> {_kind(config)}"]}


def _config_positional_only(s: Any, config: RunnableConfig | None = None, /) -> dict[str, Any]:
    return {"log": [f"config, / -> {_kind(config)}"]}


def _config_unannotated(s, config=None):  # type: ignore[no-untyped-def]
    return {"log": [f"config -> {_kind(config)}"]}


def _writer_any(s: Any, writer: Any = None) -> dict[str, Any]:
    return {"log": [f"writer: Any -> {_kind(writer)}"]}


def _store_any(s: Any, store: Any = "mine") -> dict[str, Any]:
    return {"log": [f"store: Any -> {store!r}"]}


@program()
def injected_parameters_follow_their_annotations(g: EngineAPI) -> Case:
    """LangGraph passes ``config`` only when it is unannotated or annotated RunnableConfig
    (as written: with postponed annotations the string ``'RunnableConfig | None'`` is not
    one), ``writer`` only as StreamWriter, ``store`` only as BaseStore; never positional-only."""
    b = g.StateGraph(S)
    probes = (
        _config_any, _config_union_string, _config_positional_only, _config_unannotated,
        _writer_any, _store_any,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # LangGraph's "should be typed as"
        for probe in probes:
            b.add_node(probe.__name__, probe).add_edge(g.START, probe.__name__)
        graph = b.compile()
    return Case(graph)


@program()
def config_typed_any_without_default_is_not_passed(g: EngineAPI) -> Case:
    def needs(s: Any, config: Any) -> dict[str, Any]:
        return {"log": ["never"]}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        graph = g.StateGraph(S).add_node("needs", needs).add_edge(g.START, "needs").compile()
    msg = "config_typed_any_without_default_is_not_passed.<locals>.needs() missing 1 required "
    return Case(graph, expect=(err("TypeError", msg + "positional argument: 'config'"),))


def _writes(s: Any, writer: StreamWriter) -> dict[str, Any]:
    writer({"custom_from": "a"})
    writer("second")
    return {"x": 1}


@program()
def writer_injection_and_custom_stream(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", _writes).add_node("b", say("b"))
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(b.compile(), modes=("custom", ["updates", "custom"], ["custom", "values"]))


@dataclass
class Ctx:
    """A dataclass context schema."""

    user: str
    level: int = 1


def _runtime_probe(s: Any, runtime: Runtime[Ctx]) -> dict[str, Any]:
    ctx = runtime.context
    runtime.stream_writer({"ctx": repr(ctx)})
    return {"log": [f"{type(ctx).__name__}:{ctx!r}"]}


@program()
def runtime_injection_with_context_schema(g: EngineAPI) -> Case:
    b = g.StateGraph(S, context_schema=Ctx).add_node("a", _runtime_probe).add_edge(g.START, "a")
    return Case(b.compile(), kwargs={"context": {"user": "dict"}}, modes=("custom",))


@program()
def runtime_injection_with_context_instance(g: EngineAPI) -> Case:
    b = g.StateGraph(S, context_schema=Ctx).add_node("a", _runtime_probe).add_edge(g.START, "a")
    return Case(b.compile(), kwargs={"context": Ctx("inst", 3)})


@program()
def runtime_injection_without_context(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_node("a", _runtime_probe).add_edge(g.START, "a")
    return Case(b.compile(), expect=({"log": ["NoneType:None"]},))


@program()
def stream_default_mode_and_mode_lists(g: EngineAPI) -> Case:
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"x": s["x"] + 1, "log": ["a"]}).add_node("b", say("b"))
    b.add_node("c", say("c"))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("a", "c")
    return Case(
        b.compile(),
        inputs=({"x": 1},),
        modes=(None, ["updates", "values"], ["values", "debug"], "tasks"),
        expect=({"x": 2, "log": ["a", "b", "c"]},),
    )


@program()
def invoke_with_updates_stream_mode(g: EngineAPI) -> Case:
    b = g.StateGraph(S).add_sequence([say("a"), say("b")]).add_edge(g.START, "a")
    return Case(
        b.compile(),
        kwargs={"stream_mode": "updates"},
        expect=([{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}],),
    )


def _where(g: EngineAPI) -> str:
    """Which task ``get_config()`` says is running, or its error outside one."""
    try:
        meta = g.get_config()["metadata"]
    except RuntimeError as exc:
        return f"RuntimeError: {exc}"
    return f"{meta['langgraph_node']}@{meta['langgraph_step']}"


def _probed(g: EngineAPI) -> Any:
    """A counter and a log whose reducer notes where it runs."""

    def add(a: list[str], b: list[str]) -> list[str]:
        return a + b + [f"reducer in {_where(g)}"]

    # The functional form: its annotations are objects, not names to resolve.
    fields: dict[str, Any] = {"n": int, "log": Annotated[list[str], add]}
    return TypedDict("Probed", fields)  # type: ignore[operator]


@program()
def get_config_in_single_task_steps_and_their_reducer(g: EngineAPI) -> Case:
    # Each step runs one task: nodes see their own step, and the reducer (applied when
    # the step commits, after the task) runs outside any task.
    def step(s: Any) -> dict[str, Any]:
        return {"n": s["n"] + 1, "log": [f"node in {_where(g)}"]}

    b = g.StateGraph(_probed(g)).add_node("a", step).add_node("b", step).add_node("c", step)
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    return Case(b.compile(), inputs=({"n": 0, "log": []},))


@program()
def get_config_in_a_subgraph_node_and_its_reducer(g: EngineAPI) -> Case:
    # The subgraph runs inside the parent's task: its reducer sees that task's config.
    def inner(s: Any) -> dict[str, Any]:
        return {"n": s["n"] + 1, "log": [f"inner in {_where(g)}"]}

    sub = g.StateGraph(_probed(g)).add_node("inner", inner).add_edge(g.START, "inner").compile()

    def outer(s: Any) -> dict[str, Any]:
        out = sub.invoke({"n": s["n"], "log": []})
        return {"n": out["n"], "log": out["log"] + [f"outer in {_where(g)}"]}

    b = g.StateGraph(S).add_node("outer", outer).add_edge(g.START, "outer")
    return Case(b.compile(), inputs=({"n": 0},))
