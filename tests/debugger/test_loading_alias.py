"""``load_target(alias=True)``: a LangGraph program loaded afresh under the ``langgraph``
import alias gives an ``sgdebug.runtime`` graph; what the alias lacks is one sentence."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import sgdebug.runtime
from sgdebug import compat
from sgdebug.debugger.loading import TargetError, forget_user_modules, load_target

SENTENCE = (
    "sgdebug's runtime does not provide {} yet; run this program on the langgraph engine "
    "(leave out --engine native)"
)
FILES = {
    "lga_app.py": """\
        from typing import TypedDict

        from langgraph.graph import START, StateGraph
        from lga_helper import double

        class State(TypedDict):
            x: int

        builder = StateGraph(State)
        builder.add_node("n", lambda state: {"x": double(state["x"])})
        builder.add_edge(START, "n")
        graph = builder.compile()
        """,
    "lga_helper.py": """\
        from langgraph.graph import StateGraph

        def double(x: int) -> int:
            return 2 * x
        """,
    "lga_prebuilt.py": "from lga_app import graph\nfrom langgraph.prebuilt import ToolNode\n",
    "lga_name.py": "from langgraph.types import TracePolicy\nfrom lga_app import graph\n",
    "lga_factory.py": """\
        def make():
            from langgraph.types import TracePolicy
            from lga_app import builder
            return builder
        """,
    "lga_uses_lib.py": "from lga_app import graph\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """The files above in a folder; ``sys.path`` and ``sys.modules`` restored afterwards."""
    for name, text in FILES.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    path, modules = list(sys.path), set(sys.modules)
    yield tmp_path
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if name.startswith("lga_"):
            del sys.modules[name]
    assert not compat.installed()


def test_a_langgraph_program_loads_as_an_sgdebug_graph(project: Path) -> None:
    loaded = load_target("lga_app:graph", cwd=project, alias=True)

    assert isinstance(loaded.graph, sgdebug.runtime.CompiledStateGraph)
    assert loaded.namespace["StateGraph"] is sgdebug.runtime.StateGraph
    assert sys.modules["lga_helper"].StateGraph is sgdebug.runtime.StateGraph
    assert loaded.graph.invoke({"x": 4}) == {"x": 8}


def test_a_file_target_loads_under_the_alias(project: Path) -> None:
    loaded = load_target(str(project / "lga_app.py") + ":graph", alias=True)

    assert isinstance(loaded.graph, sgdebug.runtime.CompiledStateGraph)


def test_after_forgetting_the_first_load_the_program_runs_again(project: Path) -> None:
    before = frozenset(sys.modules)
    first = load_target("lga_app:graph", cwd=project)

    forgotten = forget_user_modules(before)
    second = load_target("lga_app:graph", cwd=project, alias=True)

    assert set(forgotten) == {"lga_app", "lga_helper"}
    assert type(first.graph).__module__.startswith("langgraph.")
    assert isinstance(second.graph, sgdebug.runtime.CompiledStateGraph)
    assert sys.modules["lga_helper"].StateGraph is sgdebug.runtime.StateGraph


def test_forgetting_keeps_the_standard_library_and_installed_packages(project: Path) -> None:
    import colorsys

    import typer

    (project / "lga_mine.py").write_text("X = 1\n")
    load_target("lga_app:graph", cwd=project)
    __import__("lga_mine")
    before = frozenset(sys.modules) - {"colorsys", "typer", "lga_mine"}

    forgotten = forget_user_modules(before)

    assert forgotten == ("lga_mine",)
    assert sys.modules["colorsys"] is colorsys and sys.modules["typer"] is typer


@pytest.mark.parametrize(
    ("target", "missing"),
    [
        ("lga_prebuilt:graph", "langgraph.prebuilt"),
        ("lga_name:graph", "langgraph.types.TracePolicy"),
        ("lga_factory:make", "langgraph.types.TracePolicy"),
    ],
)
def test_what_the_alias_lacks_is_one_sentence(project: Path, target: str, missing: str) -> None:
    with pytest.raises(TargetError) as raised:
        load_target(target, cwd=project, alias=True)

    assert raised.value.kind == "langgraph"
    assert str(raised.value) == SENTENCE.format(missing)


def test_a_graph_still_built_by_real_langgraph_is_refused(project: Path) -> None:
    load_target("lga_app:graph", cwd=project)  # lga_app stays imported with real LangGraph

    with pytest.raises(TargetError, match="still gives a LangGraph graph") as raised:
        load_target("lga_uses_lib:graph", cwd=project, alias=True)

    assert raised.value.kind == "langgraph"
