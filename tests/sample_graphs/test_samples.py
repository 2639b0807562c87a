"""The sample graphs: what each one shows, on LangGraph and on sgdebug's runtime alike.

Every sample runs its ``EXAMPLE_INPUT`` on both engines; the story it tells a debugger user
(which nodes run, in which order, with which result) is pinned per engine, and the two
engines' ``invoke`` results and ``updates``/``values`` streams must be equal.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import pkgutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sgdebug import sample_graphs
from sgdebug.sample_graphs import ENGINES, SAMPLES, Engine, build, load

REPO_ROOT = Path(__file__).resolve().parents[2]

try:
    from sgdebug.runtime import StateGraph  # noqa: F401
except ImportError as exc:  # the runtime is being written; only its absence skips
    RUNTIME_MISSING: str | None = f"sgdebug.runtime does not import yet ({exc!r})"
else:
    RUNTIME_MISSING = None

ENGINE_PARAMS = [
    pytest.param(
        engine,
        marks=pytest.mark.skipif(
            engine == "sgdebug" and RUNTIME_MISSING is not None, reason=str(RUNTIME_MISSING)
        ),
    )
    for engine in ENGINES
]
needs_runtime = pytest.mark.skipif(RUNTIME_MISSING is not None, reason=str(RUNTIME_MISSING))

# Each sample with its default parameters, plus the parameterised variants worth checking.
CASES: list[tuple[str, dict[str, Any]]] = [
    *((name, {}) for name in SAMPLES),
    ("fanout", {"width": 6}),
    ("map_reduce", {"items": 1}),
    ("map_reduce", {"items": 7}),
    ("loop", {"iterations": 1}),
    ("loop", {"iterations": 25}),
]
CASE_IDS = [name + "".join(f"-{k}={v}" for k, v in params.items()) for name, params in CASES]


@dataclasses.dataclass(frozen=True)
class Run:
    """Everything a user observes of one sample run."""

    result: Any
    updates: list[Any]
    values: list[Any]

    def nodes(self) -> list[str]:
        """The node of each ``updates`` event, in order."""
        return [name for event in self.updates for name in event]


def run(name: str, engine: Engine, **params: Any) -> Run:
    """Compile sample ``name`` on ``engine`` and run its example input three ways."""
    graph = build(name, engine, **params).compile()
    example = load(name).EXAMPLE_INPUT
    config = {"recursion_limit": 100}
    return Run(
        graph.invoke(example, config),
        list(graph.stream(example, config, stream_mode="updates")),
        list(graph.stream(example, config, stream_mode="values")),
    )


def comparable(value: Any) -> Any:
    """``value`` with each engine's own classes made comparable and dict key order kept."""
    if isinstance(value, dict):
        return [(key, comparable(item)) for key, item in value.items()]
    if isinstance(value, list | tuple):
        return type(value)(comparable(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        if type(value).__name__ == "Interrupt":
            del fields["id"]  # made from each engine's own task ids
        return (type(value).__name__, comparable(fields))
    return value


# --- the package ------------------------------------------------------------------------


def test_samples_lists_every_sample_module() -> None:
    modules = {
        info.name
        for info in pkgutil.iter_modules(sample_graphs.__path__)
        if not info.name.startswith("_")
    }
    assert set(SAMPLES) == modules
    assert all(path == f"sgdebug.sample_graphs.{name}" for name, path in SAMPLES.items())


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_module_shape(name: str) -> None:
    module = load(name)
    assert module.__doc__ and "debugger" in module.__doc__
    assert isinstance(module.EXAMPLE_INPUT, dict)
    parameters = list(inspect.signature(module.build).parameters.values())
    assert parameters[0].name == "engine"
    assert parameters[0].default == "sgdebug"


def test_unknown_sample_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="known samples: linear, overwrite"):
        load("nope")


def test_importing_samples_is_cheap() -> None:
    code = (
        "import json, sys\n"
        "import sgdebug.sample_graphs as s\n"
        "for path in s.SAMPLES.values(): __import__(path)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'langgraph', 'langchain_core', 'pydantic'} or m.startswith('sgdebug.runtime'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("fanout", {"width": 1}, "width >= 2"),
        ("map_reduce", {"items": 0}, "items >= 1"),
        ("loop", {"iterations": 0}, "iterations >= 1"),
    ],
)
def test_bad_parameters_are_refused(name: str, params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build(name, "langgraph", **params)


# --- what each sample shows (pinned on both engines) -------------------------------------


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_linear_replaces_cur_id_and_extends_logs(engine: Engine) -> None:
    got = run("linear", engine)
    assert got.nodes() == ["node_1", "node_2"]
    assert got.result == {
        "cur_id": "request-7:validated:done",
        "logs": [
            "received request-7",
            "node_1 validated request-7",
            "node_2 finished request-7:validated after 2 log lines",
        ],
    }


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_overwrite_replaces_the_reducer_value(engine: Engine) -> None:
    got = run("overwrite", engine)
    assert got.nodes() == ["draft", "review", "compact", "publish"]
    assert [len(state["notes"]) for state in got.values] == [1, 2, 3, 1, 2]
    assert got.result["notes"] == [
        "summary of 3 notes at revision 2",
        "published revision 2",
    ]


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_multi_schema_returns_only_the_output_schema(engine: Engine) -> None:
    got = run("multi_schema", engine)
    assert got.result == {"answer": "For reducers, apply each write in task order."}
    assert got.values[-1]["scratchpad"] == "reducers: apply each write in task order"
    assert got.values[-1]["question"] == load("multi_schema").EXAMPLE_INPUT["question"]


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_channels_signal_lives_one_step(engine: Engine) -> None:
    got = run("channels", engine)
    assert got.result == {
        "topic": "RELEASE",
        "history": [
            "announce: signal raised",
            "react: heard 'news about release' while topic is RELEASE",
            "wrap_up: heard 'nothing', 97 steps left",
        ],
    }
    assert ["signal" in state for state in got.values] == [False, True, False, False]


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("width", [2, 6])
def test_fanout_joins_uneven_branches_once(engine: Engine, width: int) -> None:
    got = run("fanout", engine, width=width)
    branches = ["b", "c", *(f"c{i}" for i in range(2, width))]
    assert got.nodes() == [*branches, "b_2", "d"]
    assert got.result["trail"] == ["a", *branches, "b_2", "d"]
    assert got.result["joined"] == " + ".join(["a", *branches, "b_2"])


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("items", [1, 3, 7])
def test_map_reduce_sends_one_task_per_item(engine: Engine, items: int) -> None:
    got = run("map_reduce", engine, items=items)
    assert got.nodes() == ["split", *["count_words"] * items, "combine"]
    assert [record["index"] for record in got.result["counts"]] == list(range(items))
    assert got.result["total_words"] == len(load("map_reduce").EXAMPLE_INPUT["text"].split())
    assert got.result["longest_word"] == "deterministic"


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
@pytest.mark.parametrize("iterations", [1, 3, 25])
def test_loop_runs_until_the_counter_is_reached(engine: Engine, iterations: int) -> None:
    got = run("loop", engine, iterations=iterations)
    assert got.nodes() == [*["attempt"] * iterations, "report"]
    assert got.result == {"count": iterations, "status": f"done after {iterations} attempts"}
    assert load("loop").supersteps(iterations) == len(got.updates) + 1  # + the input step


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_loop_stops_at_the_recursion_limit(engine: Engine) -> None:
    graph = build("loop", engine, iterations=50).compile()
    with pytest.raises(RecursionError, match="Recursion limit of 10 reached"):
        graph.invoke({"count": 0}, {"recursion_limit": 10})


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_chatbot_calls_each_tool_then_answers(engine: Engine) -> None:
    got = run("chatbot", engine)
    assert got.nodes() == ["agent", "tools", "agent", "tools", "agent"]
    messages = got.result["messages"]
    assert [message.type for message in messages] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert [call["args"] for call in messages[1].tool_calls] == [{"city": "Paris"}]
    assert messages[4].content == "6 * 7 = 42"
    assert messages[-1].content == "Here is what I found: Paris: 18°C and sunny. 6 * 7 = 42."
    assert messages[-1].tool_calls == []


def test_chatbot_without_a_request_answers_with_help() -> None:
    graph = build("chatbot", "langgraph").compile()
    result = graph.invoke({"messages": [{"role": "user", "content": "hi", "id": "u"}]})
    assert [message.type for message in result["messages"]] == ["human", "ai"]
    assert "weather" in result["messages"][-1].content


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_approval_asks_until_the_reviewer_says_yes(engine: Engine) -> None:
    lg = sample_graphs.api(engine)
    graph = build("approval", engine).compile(checkpointer=lg.InMemorySaver())
    config = {"configurable": {"thread_id": "review"}}
    first = graph.invoke(load("approval").EXAMPLE_INPUT, config)
    [asked] = first["__interrupt__"]
    assert asked.value["draft"] == "Hello, about a refund for order 1234: we are on it."
    assert graph.get_state(config).next == ("review",)
    second = graph.invoke(lg.Command(resume="say when"), config)
    assert second["feedback"] == ["say when"] and second["status"] == "draft 2"
    [again] = second["__interrupt__"]
    assert again.value["draft"].endswith("we are on it. (say when)")
    done = graph.invoke(lg.Command(resume="yes"), config)
    assert "__interrupt__" not in done
    assert done["status"] == "sent: Hello, about a refund for order 1234: we are on it. (say when)"


@pytest.mark.parametrize("engine", ENGINE_PARAMS)
def test_nested_asks_inside_the_research_subgraph(engine: Engine) -> None:
    lg = sample_graphs.api(engine)
    nested = load("nested")
    graph = build("nested", engine).compile(checkpointer=lg.InMemorySaver())
    config = {"configurable": {"thread_id": "report"}}
    first = graph.invoke(nested.EXAMPLE_INPUT, config)
    [asked] = first["__interrupt__"]
    assert asked.value == {
        "question": nested.QUESTION,
        "notes": ["gather: how heat pumps work", "gather: what heat pumps cost"],
    }
    snap = graph.get_state(config)
    assert snap.next == ("research",)
    [task] = snap.tasks
    assert task.interrupts == (asked,)
    assert task.state["configurable"]["checkpoint_ns"].startswith("research:")
    inner = graph.get_state(config, subgraphs=True).tasks[0].state
    assert inner.next == ("summarize",)
    assert inner.values["notes"] == asked.value["notes"]
    done = graph.invoke(lg.Command(resume="costs"), config)
    assert done == {
        "topic": "heat pumps",
        "summary": "2 notes, seen from costs",
        "report": "Report on heat pumps: 2 notes, seen from costs",
    }


def test_nested_draws_the_subgraph_nodes_with_xray() -> None:
    graph = build("nested", "langgraph").compile()
    assert list(graph.get_graph(xray=True).nodes) == [
        "__start__", "plan", "write", "__end__", "research:gather", "research:summarize"
    ]  # fmt: skip


def test_samples_that_ask_a_human_stop_at_their_question_without_a_checkpointer() -> None:
    for name in sample_graphs.ASKS_A_HUMAN:
        result = build(name, "langgraph").compile().invoke(load(name).EXAMPLE_INPUT)
        assert result["__interrupt__"], name
    assert set(sample_graphs.RUNS_ALONE) == set(SAMPLES) - sample_graphs.ASKS_A_HUMAN


# --- both engines agree ---------------------------------------------------------------------


@needs_runtime
@pytest.mark.parametrize(("name", "params"), CASES, ids=CASE_IDS)
def test_engines_agree(name: str, params: dict[str, Any]) -> None:
    ours, theirs = (run(name, engine, **params) for engine in ("sgdebug", "langgraph"))
    assert comparable(ours.result) == comparable(theirs.result)
    assert comparable(ours.updates) == comparable(theirs.updates)
    assert comparable(ours.values) == comparable(theirs.values)


@needs_runtime
@pytest.mark.parametrize("name", list(SAMPLES))
def test_module_graph_is_compiled_by_sgdebug(name: str) -> None:
    module = load(name)
    graph: Any = module.graph
    assert type(graph).__module__.startswith("sgdebug.runtime")
    assert module.graph is graph  # built once, then cached
    expected = build(name, "langgraph").compile().invoke(module.EXAMPLE_INPUT)
    assert comparable(graph.invoke(module.EXAMPLE_INPUT)) == comparable(expected)


def test_module_has_no_other_lazy_attribute() -> None:
    getter: Callable[[str], Any] = load("linear").__getattr__
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        getter("nothing")
