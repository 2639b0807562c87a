"""Loading a target: every accepted form, and one specific message for every way it fails."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgdebug.debugger.loading import LoadedTarget, TargetError, load_target
from sgdebug.runtime import CompiledStateGraph

GRAPH_MODULE = """
from typing import TypedDict
from types import SimpleNamespace
from sgdebug.runtime import END, START, StateGraph


class State(TypedDict):
    x: int


def bump(state: State) -> dict:
    return {"x": state["x"] + 1}


builder = StateGraph(State)
builder.add_node("bump", bump)
builder.add_edge(START, "bump")
builder.add_edge("bump", END)
graph = builder.compile(interrupt_before=["bump"])
holder = SimpleNamespace(graph=graph)
HELPER_CONSTANT = 42


def make_builder():
    return builder


def make_graph(name="made"):
    return builder.compile(name=name)


def needs_arguments(a, b, c=1):
    return builder


def factory_that_raises():
    raise RuntimeError("the model is offline")


def returns_a_number():
    return 7


invalid = StateGraph(State)
invalid.add_node("bump", bump)
invalid.add_edge(START, "bump")
invalid.add_edge("bump", "nowhere")
settings = {"debug": True}
"""


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A folder with a graph module; imports made by a test are forgotten afterwards."""
    (tmp_path / "graphs_under_test.py").write_text(GRAPH_MODULE)
    modules, path = set(sys.modules), list(sys.path)
    yield tmp_path
    for name in set(sys.modules) - modules:
        del sys.modules[name]
    sys.path[:] = path


def write(project: Path, name: str, source: str) -> None:
    (project / name).parent.mkdir(parents=True, exist_ok=True)
    (project / name).write_text(textwrap.dedent(source))


def load_error(spec: str, project: Path) -> TargetError:
    with pytest.raises(TargetError) as info:
        load_target(spec, cwd=project)
    return info.value


def run_graph(target: LoadedTarget) -> object:
    return target.graph.builder.compile().invoke({"x": 1})


# -- what loads ----------------------------------------------------------------------------


def test_a_module_attribute_gives_the_graph_and_the_module_globals(project: Path) -> None:
    target = load_target("graphs_under_test:graph", cwd=project)

    assert isinstance(target.graph, CompiledStateGraph)
    assert target.graph.interrupt_before_nodes == ("bump",)  # the user's graph, as compiled
    assert target.namespace["HELPER_CONSTANT"] == 42
    assert target.namespace["graph"] is target.graph
    assert target.label == "graphs_under_test:graph"
    assert target.spec == "graphs_under_test:graph"


@pytest.mark.parametrize("attr", ["builder", "make_builder", "make_graph", "holder.graph"], ids=str)
def test_builders_factories_and_dotted_attributes_load(project: Path, attr: str) -> None:
    target = load_target(f"graphs_under_test:{attr}", cwd=project)

    assert list(target.graph.builder.nodes) == ["bump"]
    assert run_graph(target) == {"x": 2}


def test_a_factory_with_default_arguments_is_called_with_none(project: Path) -> None:
    assert load_target("graphs_under_test:make_graph", cwd=project).graph.name == "made"


def test_a_file_target_loads_from_any_directory_through_its_spec(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    write(project, "apps/chat_app.py", GRAPH_MODULE)

    target = load_target("apps/chat_app.py:graph", cwd=project)
    again = load_target(target.spec, cwd=tmp_path_factory.mktemp("elsewhere"))

    assert target.label == "apps/chat_app.py:graph"
    assert target.spec == f"{project / 'apps' / 'chat_app.py'}:graph"
    assert again.graph is target.graph


def test_a_file_inside_a_package_keeps_its_relative_imports(project: Path) -> None:
    write(project, "shop/__init__.py", "")
    write(project, "shop/flows/__init__.py", "")
    write(project, "shop/flows/checkout.py", "from ._nodes import graph\n")
    write(project, "shop/flows/_nodes.py", GRAPH_MODULE)

    target = load_target("shop/flows/checkout.py:graph", cwd=project)

    assert target.namespace["__name__"] == "shop.flows.checkout"
    assert load_target("shop.flows.checkout:graph", cwd=project).graph is target.graph


def test_the_current_directory_is_importable(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(project))])

    assert list(load_target("graphs_under_test:graph").graph.builder.nodes) == ["bump"]


def test_the_bundled_samples_load_by_module_and_by_factory() -> None:
    compiled = load_target("sgdebug.sample_graphs.linear:graph")
    built = load_target("sgdebug.sample_graphs.linear:build")

    assert list(compiled.graph.builder.nodes) == list(built.graph.builder.nodes)


# -- what fails, and how it says so -----------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "kind", "says"),
    [
        ("graphs_under_test", "spec", "needs a colon"),
        ("graphs_under_test.py", "spec", "e.g. `graphs_under_test.py:graph`"),
        ("graphs_under_test:", "spec", "after the colon comes the name of the graph"),
        ("graphs_under_test:1graph", "spec", "got '1graph'"),
        ("my-app:graph", "spec", "neither a dotted module name"),
        ("no_such_module:graph", "module", "there is no module named 'no_such_module'"),
        ("graphs_under_test.sub:graph", "module", "no module named 'graphs_under_test.sub'"),
        ("missing/app.py:graph", "file", "there is no file 'missing/app.py'"),
        ("notes.txt/:graph", "file", "no file"),
        ("graphs_under_test:grph", "attribute", "Did you mean 'graph'?"),
        ("graphs_under_test:holder.grph", "attribute", "'holder' "),
        ("graphs_under_test:settings", "not_graph", "is a dict, not a graph"),
        ("graphs_under_test:State", "not_graph", "is the class State, not a graph"),
        ("graphs_under_test:returns_a_number", "not_graph", "returned an int, not a graph"),
        ("graphs_under_test:needs_arguments", "factory", "needs 2 arguments (a, b)"),
        ("graphs_under_test:invalid", "invalid", "Found edge ending at unknown node `nowhere`"),
    ],
)
def test_each_failure_raises_one_specific_message(
    project: Path, spec: str, kind: str, says: str
) -> None:
    error = load_error(spec, project)

    assert error.kind == kind
    assert says in str(error)


def test_a_missing_attribute_lists_the_graphs_the_module_defines(project: Path) -> None:
    message = str(load_error("graphs_under_test:app", project))

    assert "has no attribute 'app'" in message
    assert "Graphs it defines: builder, graph, invalid." in message


def test_an_exception_while_importing_shows_the_users_traceback(project: Path) -> None:
    write(project, "crashes.py", """\
        import graphs_under_test

        def connect():
            raise ConnectionError("database unreachable")

        connect()
        """)  # fmt: skip

    error = load_error("crashes:graph", project)
    message = str(error)

    assert error.kind == "import"
    assert "Importing module 'crashes' raised ConnectionError" in message
    assert f'File "{project / "crashes.py"}", line 6, in <module>' in message
    assert 'raise ConnectionError("database unreachable")' in message
    assert message.endswith("ConnectionError: database unreachable")
    assert "importlib" not in message  # only the user's frames


def test_a_syntax_error_points_at_the_line(project: Path) -> None:
    write(project, "typo.py", "x = 1\nif x\n    pass\n")

    message = str(load_error("typo.py:graph", project))

    assert "raised SyntaxError" in message
    assert f'File "{project / "typo.py"}", line 2' in message


def test_a_missing_import_inside_the_module_is_an_import_error_not_a_missing_target(
    project: Path,
) -> None:
    write(project, "needs_dep.py", "import a_dependency_nobody_installed\n")

    error = load_error("needs_dep:graph", project)

    assert error.kind == "import"
    assert "No module named 'a_dependency_nobody_installed'" in str(error)


def test_sys_exit_in_the_module_does_not_exit_the_debugger(project: Path) -> None:
    write(project, "exits.py", "import sys\nsys.exit(3)\n")

    assert load_error("exits:graph", project).kind == "import"


def test_a_factory_that_raises_shows_its_traceback(project: Path) -> None:
    error = load_error("graphs_under_test:factory_that_raises", project)

    assert error.kind == "factory"
    assert "Calling 'graphs_under_test:factory_that_raises' raised RuntimeError" in str(error)
    assert 'raise RuntimeError("the model is offline")' in str(error)


def test_a_file_shadowed_by_an_imported_module_is_refused(project: Path) -> None:
    write(project, "lib/json.py", GRAPH_MODULE)

    error = load_error("lib/json.py:graph", project)

    assert error.kind == "file"
    assert "already taken" in str(error)


def test_a_langgraph_graph_builder_or_factory_loads_as_it_is(project: Path) -> None:
    write(project, "lg_app.py", """\
        from typing import TypedDict
        from langgraph.graph import START, StateGraph

        class State(TypedDict):
            x: int

        builder = StateGraph(State)
        builder.add_node("n", lambda state: state)
        builder.add_edge(START, "n")
        graph = builder.compile()

        def make():
            return builder
        """)  # fmt: skip

    from langgraph.graph.state import CompiledStateGraph as LangGraphCompiled

    for attr in ("graph", "builder", "make"):
        loaded = load_target(f"lg_app:{attr}", cwd=project)
        assert isinstance(loaded.graph, LangGraphCompiled)
        assert list(loaded.graph.builder.nodes) == ["n"]


def test_a_langgraph_object_that_is_no_graph_is_refused_by_name(project: Path) -> None:
    write(project, "fake_lg.py", """\
        class ToolNode:
            pass

        ToolNode.__module__ = "langgraph.prebuilt.tool_node"
        tools = ToolNode()
        """)  # fmt: skip

    error = load_error("fake_lg:tools", project)

    assert error.kind == "langgraph"
    assert "a LangGraph ToolNode (from langgraph.prebuilt.tool_node), not a graph" in str(error)
