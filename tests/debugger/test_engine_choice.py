"""Which engine runs a graph, and the clear refusals when one cannot."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sgdebug.debugger import Session, Target
from sgdebug.debugger.engines import engine_for, is_langgraph, open_engine
from sgdebug.sample_graphs import load


def test_a_graph_opens_on_the_engine_it_was_built_for() -> None:
    module = load("linear")

    native = Session(Target(module.graph, {}, "linear"))
    langgraph = Session(Target(module.langgraph_graph, {}, "linear"))

    assert engine_for(module.graph) == "native"
    assert engine_for(module.langgraph_graph) == "langgraph"
    assert is_langgraph(module.build("langgraph")) and not is_langgraph(module.build())
    assert native.engine.capabilities.engine == "native"
    assert langgraph.engine.capabilities.engine == "langgraph"
    assert native.view().engine == native.engine.capabilities


def test_the_langgraph_engine_names_what_it_cannot_do() -> None:
    session = Session(Target(load("fanout").langgraph_graph, {}, "fanout"))
    caps = session.engine.capabilities

    assert {feature for feature, _ in caps.missing} == {"task", "mutations"}
    assert session.why_not("task") == (
        "not available on the langgraph engine: LangGraph runs the tasks of a superstep "
        "together: `step` runs the whole superstep"
    )
    assert session.why_not("step") is not None  # no run yet, for another reason
    assert "no run yet" in str(session.why_not("step"))
    native = Session(Target(load("fanout").graph, {}, "fanout")).engine.capabilities
    assert [feature for feature, _ in native.missing] == []


def test_a_native_graph_cannot_be_put_on_the_langgraph_engine() -> None:
    with pytest.raises(ValueError, match="a native graph cannot run on the langgraph engine"):
        open_engine(load("linear").graph, None, None, "langgraph")


def test_a_langgraph_release_other_than_1x_is_refused_with_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.metadata

    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata,
        "version",
        lambda name: "2.0.0" if name == "langgraph" else real(name),
    )

    with pytest.raises(ValueError, match=r"needs LangGraph 2\.0\.0.*install a 1\.x release"):
        Session(Target(load("linear").langgraph_graph, {}, "linear"))


def test_a_native_session_never_imports_langgraph() -> None:
    code = (
        "import sys\n"
        "from sgdebug.debugger import Session, Target\n"
        "from sgdebug.sample_graphs import load\n"
        "m = load('fanout')\n"
        "s = Session(Target(m.graph, {}, 'fanout'), input=m.EXAMPLE_INPUT)\n"
        "assert s.restart().ok and s.continue_().status == 'done'\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] == 'langgraph'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "[]"
