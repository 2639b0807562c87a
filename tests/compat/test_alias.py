"""The ``langgraph`` import alias: a LangGraph program imported under it runs on sgdebug's
runtime with LangGraph's results; what it lacks is one sentence; real LangGraph survives."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sgdebug import compat
from sgdebug.runtime import CompiledStateGraph

PROGRAM = """\
    import operator
    from typing import Annotated, TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.managed import RemainingSteps
    from langgraph.types import Command, Send, interrupt


    class State(TypedDict):
        topic: str
        notes: Annotated[list[str], operator.add]
        approved: bool
        remaining: RemainingSteps


    def plan(state: State) -> Command:
        return Command(update={"notes": [f"plan {state['topic']}"]}, goto="fan")


    def fan(state: State) -> dict:
        return {"notes": [f"fan, {state['remaining']} steps left"]}


    def spread(state: State) -> list[Send]:
        return [Send("write", {"topic": f"{state['topic']}-{i}"}) for i in range(3)]


    def write(state: dict) -> dict:
        return {"notes": [f"wrote {state['topic']}"]}


    def review(state: State) -> dict:
        answer = interrupt({"question": "approve?", "count": len(state["notes"])})
        return {"approved": answer == "yes", "notes": ["reviewed"]}


    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("fan", fan)
    builder.add_node("write", write)
    builder.add_node("review", review)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("fan", spread, ["write"])
    builder.add_edge("write", "review")
    builder.add_edge("review", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    """
SENTENCE = (
    "sgdebug's runtime does not provide {} yet; run this program on the langgraph engine "
    "(leave out --engine native)"
)


def _is_langgraph(name: str) -> bool:
    return name == "langgraph" or name.startswith("langgraph.")


def _import_file(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _drive(program: ModuleType) -> dict[str, Any]:
    """Everything a caller sees of one run: updates, the interrupt, the resumed result."""
    graph, config = program.graph, {"configurable": {"thread_id": "t"}}
    updates = list(graph.stream({"topic": "owls", "notes": []}, config, stream_mode="updates"))
    paused = graph.get_state(config)
    final = graph.invoke(program.Command(resume="yes"), config)
    return {
        # LangGraph streams the updates of parallel tasks as they finish: compare them as a set
        "updates": sorted(
            repr([i.value for i in chunk["__interrupt__"]] if "__interrupt__" in chunk else chunk)
            for chunk in updates
        ),
        "next": paused.next,
        "paused": paused.values,
        "interrupts": [i.value for i in paused.interrupts],
        "final": final,
        "history": len(list(graph.get_state_history(config))),
    }


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "lg_program.py"
    path.write_text(textwrap.dedent(PROGRAM))
    return path


@pytest.fixture
def real_langgraph() -> Iterator[dict[str, ModuleType]]:
    """Real LangGraph imported, as the rest of the suite has it; checked unchanged after."""
    import langgraph.graph
    import langgraph.types  # noqa: F401

    before = {k: v for k, v in sys.modules.items() if _is_langgraph(k)}
    yield before
    assert not compat.installed()
    assert all(sys.modules.get(name) is module for name, module in before.items())
    assert not any(isinstance(f, compat.AliasFinder) for f in sys.meta_path)


def test_a_langgraph_program_runs_on_the_runtime_with_langgraph_results(
    program: Path, real_langgraph: dict[str, ModuleType]
) -> None:
    on_langgraph = _import_file(program, "lg_program_real")
    with compat.alias():
        aliased = _import_file(program, "lg_program_alias")
        assert isinstance(aliased.graph, CompiledStateGraph)
        sgdebug_run = _drive(aliased)

    assert type(on_langgraph.graph).__module__.startswith("langgraph.")
    assert sgdebug_run == _drive(on_langgraph)
    assert sgdebug_run["interrupts"] == [{"question": "approve?", "count": 5}]


SERVED = [
    ("langgraph.graph", "StateGraph", "sgdebug.runtime", "StateGraph"),
    ("langgraph.graph", "add_messages", "sgdebug.runtime", "add_messages"),
    ("langgraph.graph.state", "CompiledStateGraph", "sgdebug.runtime", "CompiledStateGraph"),
    ("langgraph.types", "Send", "sgdebug.runtime", "Send"),
    ("langgraph.types", "interrupt", "sgdebug.runtime", "interrupt"),
    ("langgraph.errors", "InvalidUpdateError", "sgdebug.runtime.errors", "InvalidUpdateError"),
    ("langgraph.checkpoint.memory", "InMemorySaver", "sgdebug.runtime.checkpoint", "InMemorySaver"),
    ("langgraph.checkpoint.memory", "MemorySaver", "sgdebug.runtime.checkpoint", "InMemorySaver"),
    ("langgraph.config", "get_store", "sgdebug.runtime", "get_store"),
    ("langgraph.store.memory", "InMemoryStore", "sgdebug.runtime.store", "InMemoryStore"),
    ("langgraph.store.base", "BaseStore", "sgdebug.runtime.store", "BaseStore"),
    ("langgraph.store.base", "SearchItem", "sgdebug.runtime.store", "SearchItem"),
    ("langgraph.channels.binop", "BinaryOperatorAggregate", "sgdebug.runtime.channels",
     "BinaryOperatorAggregate"),
    ("langgraph.managed", "RemainingSteps", "sgdebug.runtime.managed", "RemainingSteps"),
    ("langgraph.config", "get_stream_writer", "sgdebug.runtime", "get_stream_writer"),
    ("langgraph.runtime", "Runtime", "sgdebug.runtime", "Runtime"),
    ("langgraph.runtime", "get_runtime", "sgdebug.runtime.engine._runtime", "get_runtime"),
    ("langgraph.runtime", "ExecutionInfo", "sgdebug.runtime.engine._runtime", "ExecutionInfo"),
    ("langgraph.types", "StateUpdate", "sgdebug.runtime.types", "StateUpdate"),
    ("langgraph.errors", "is_invalid_resume", "sgdebug.runtime.engine._response_schema",
     "is_invalid_resume"),
]  # fmt: skip


@pytest.mark.parametrize(("module", "name", "source", "attr"), SERVED)
def test_alias_modules_serve_sgdebug_objects_under_langgraph_names(
    module: str, name: str, source: str, attr: str
) -> None:
    with compat.alias():
        served = getattr(importlib.import_module(module), name)
        top = sys.modules["langgraph"]

    assert served is getattr(importlib.import_module(source), attr)
    assert repr(top) == "<module 'langgraph' (sgdebug.compat alias)>"


@pytest.mark.parametrize("name", sorted(compat.ALIASES))
def test_every_alias_module_has_all_and_mirrors_langgraph(
    name: str, real_langgraph: dict[str, ModuleType]
) -> None:
    real = importlib.import_module(name)
    with compat.alias():
        module = importlib.import_module(name)
        exported = {n: getattr(module, n) for n in module.__all__}

    alias = compat.ALIASES[name]
    assert list(module.__all__) == list(alias.names)
    assert all(hasattr(real, n) for n in exported), "served names are LangGraph's names"
    assert all(hasattr(real, n) for n in alias.upstream), "upstream names exist in LangGraph"
    assert hasattr(module, "__path__") == hasattr(real, "__path__")


@pytest.mark.parametrize(
    ("statement", "missing"),
    [
        ("import langgraph.types as t; t.TracePolicy", "langgraph.types.TracePolicy"),
        ("import langgraph.graph as g; g.MessageGraph", "langgraph.graph.MessageGraph"),
        (
            "from langgraph.types import PregelExecutableTask",
            "langgraph.types.PregelExecutableTask",
        ),
        ("from langgraph.errors import NodeInterrupt", "langgraph.errors.NodeInterrupt"),
        (
            "from langgraph.store.base import Embeddings",
            "langgraph.store.base.Embeddings",
        ),
        ("from langgraph.channels import AnyValue", "langgraph.channels.AnyValue"),
    ],
)
def test_a_name_langgraph_has_and_sgdebug_lacks_is_one_sentence(
    statement: str, missing: str
) -> None:
    with compat.alias(), pytest.raises((ImportError, AttributeError)) as raised:
        exec(statement, {})

    assert compat.explain(raised.value) == SENTENCE.format(missing)
    if isinstance(raised.value, AttributeError):
        assert str(raised.value) == SENTENCE.format(missing)
        assert isinstance(raised.value, compat.NameNotProvidedError)


@pytest.mark.parametrize(
    ("module", "missing"),
    [
        ("langgraph.prebuilt", "langgraph.prebuilt"),
        ("langgraph.func", "langgraph.func"),
        ("langgraph.store.base.embed", "langgraph.store.base.embed"),
        ("langgraph.pregel", "langgraph.pregel"),
        ("langgraph.checkpoint.sqlite", "langgraph.checkpoint.sqlite"),
        ("langgraph.managed.base", "langgraph.managed.base"),
    ],
)
def test_a_module_the_alias_does_not_serve_is_one_sentence(module: str, missing: str) -> None:
    with compat.alias(), pytest.raises(ModuleNotFoundError) as raised:
        importlib.import_module(module)

    assert str(raised.value) == SENTENCE.format(missing)
    assert raised.value.name == missing
    assert compat.explain(raised.value) == str(raised.value)


def test_a_name_langgraph_does_not_have_either_is_a_plain_error() -> None:
    with compat.alias():
        import langgraph.graph

        typo = "StateGrap"
        with pytest.raises(AttributeError, match="has no attribute 'StateGrap'") as raised:
            getattr(langgraph.graph, typo)
        assert not hasattr(langgraph.graph, "_private")
        with pytest.raises(ImportError) as imported:
            exec("from langgraph.graph import StateGrap", {})

    assert not isinstance(raised.value, compat.NameNotProvidedError)
    assert compat.explain(raised.value) is None
    assert compat.explain(imported.value) is None
    assert compat.explain(ValueError("x")) is None


def test_install_and_uninstall_set_real_langgraph_aside_and_put_it_back(
    real_langgraph: dict[str, ModuleType],
) -> None:
    real_graph = sys.modules["langgraph.graph"]

    compat.install()
    try:
        compat.install()  # again: nothing changes
        assert compat.installed()
        assert not any(_is_langgraph(name) for name in sys.modules)
        import langgraph.graph

        assert langgraph.graph is not real_graph
        with compat.alias():  # nested: leaves the alias installed
            pass
        assert compat.installed()
    finally:
        compat.uninstall()

    assert not compat.installed()
    assert sys.modules["langgraph.graph"] is real_graph
    assert not any(isinstance(f, compat.AliasFinder) for f in sys.meta_path)
    compat.uninstall()  # again: nothing happens


def test_the_alias_never_imports_real_langgraph() -> None:
    probe = (
        "import json, sys\n"
        "from sgdebug import compat\n"
        "compat.install()\n"
        "for name in sorted(compat.ALIASES):\n"
        "    __import__(name)\n"
        "import langgraph.graph, langgraph.checkpoint.memory\n"
        "print(json.dumps(sorted({m: sys.modules[m].__spec__.origin\n"
        "    for m in sys.modules if m.startswith('langgraph')}.items())))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )

    assert result.returncode == 0, result.stderr
    origins = dict(json.loads(result.stdout))
    assert sorted(origins) == sorted(compat.ALIASES)
    assert set(origins.values()) == {"sgdebug.compat alias"}
