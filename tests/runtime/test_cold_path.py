"""A plain run pays only for what it uses.

A benchmark's run, like a script's, often starts cold (after a garbage collection, or
after another program has had the caches): then every module a run calls into costs cache
misses of its own code, constants and globals. Issue 14 measured a plain fan-out run 10%
slower after the runtime was split into modules, most of it in modules asked about
options the run does not have. These tests keep a plain ``invoke`` out of them, and check
that each is still asked once its option is given.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypedDict

import pytest

from sgdebug.runtime import END, START, StateGraph
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.sample_graphs import fanout

OPTION_MODULES = {
    "sgdebug.runtime._keywords",
    "sgdebug.runtime._runnable_graph",
    "sgdebug.runtime._subgraph_runs",
    "sgdebug.runtime.engine._drain",
    "sgdebug.runtime.engine._finish_order",
    "sgdebug.runtime.engine._forward",
    "sgdebug.runtime.engine._inner_breaks",
}
"""Modules for keywords, tracers, subgraphs, control, streaming in finish order, nested
streams and inner breakpoints."""


CHECKPOINTED = {"configurable": {"thread_id": "cold"}}


class Count(TypedDict):
    n: int


def one_node() -> Any:
    builder = StateGraph(Count)
    builder.add_node("add", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "add")
    builder.add_edge("add", END)
    return builder


@contextmanager
def modules_called() -> Iterator[set[str]]:
    """The modules whose functions are called in the block, in any thread (an ``__init__``
    does not count: ``RunRequest``, made by every run, is a dataclass of ``_keywords``)."""
    called: set[str] = set()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name != "__init__":
            called.add(frame.f_globals.get("__name__", ""))

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield called
    finally:
        sys.setprofile(None)
        threading.setprofile(None)


def called_in(run: Callable[[], Any]) -> set[str]:
    run()  # (warm: a first run may import what it needs)
    with modules_called() as called:
        run()
    return called


def test_a_plain_invoke_calls_no_module_for_options_it_lacks() -> None:
    graph = one_node().compile()
    assert called_in(lambda: graph.invoke({"n": 0})) & OPTION_MODULES == set()


def test_a_plain_fan_out_calls_no_module_for_options_it_lacks() -> None:
    graph = fanout.build("sgdebug", width=8).compile()
    config = {"recursion_limit": 20}
    run = lambda: graph.invoke({"trail": []}, config)  # noqa: E731
    assert called_in(run) & OPTION_MODULES == set()


@pytest.mark.parametrize(
    ("module", "make"),
    [
        ("sgdebug.runtime._keywords", lambda g: g.invoke({"n": 0}, version="v2")),
        ("sgdebug.runtime._subgraph_runs", lambda g: g.invoke({"n": 0}, CHECKPOINTED)),
        ("sgdebug.runtime.engine._finish_order", lambda g: list(g.stream({"trail": []}))),
    ],
)
def test_a_module_for_an_option_is_asked_once_the_option_is_given(
    module: str, make: Callable[[Any], Any]
) -> None:
    if module.endswith("_finish_order"):
        graph = fanout.build("sgdebug", width=4).compile()
    elif module.endswith("_subgraph_runs"):
        graph = one_node().compile(checkpointer=InMemorySaver())
    else:
        graph = one_node().compile()
    assert module in called_in(lambda: make(graph))


def test_a_plain_invoke_still_warns_about_durability_without_a_saver() -> None:
    graph = one_node().compile()
    with pytest.warns(UserWarning, match="durability"):
        assert graph.invoke({"n": 0}, durability="sync") == {"n": 1}


def test_a_plain_invoke_still_refuses_an_unknown_keyword() -> None:
    graph = one_node().compile()
    with pytest.raises(TypeError, match="colour"):
        graph.invoke({"n": 0}, colour="red")


def test_import_does_not_load_asyncio_until_an_async_run() -> None:
    """``import sgdebug.runtime`` is a ported program's start-up (benchmarks/startup.py: under
    100 ms of CPU); asyncio, with ssl and sockets under it, is most of it, and only the
    async API needs it. An ``ainvoke`` still works: each async path imports it itself."""
    from tests.conftest import fresh_python_json

    code = (
        "import json, sys\n"
        "import sgdebug.runtime as rt\n"
        "seen = ['asyncio' in sys.modules]\n"
        "from typing import TypedDict\n"
        "class S(TypedDict):\n"
        "    n: int\n"
        "b = rt.StateGraph(S)\n"
        "b.add_node('a', lambda s: {'n': s['n'] + 1}).add_edge(rt.START, 'a')\n"
        "seen += [b.compile().invoke({'n': 0}), 'asyncio' in sys.modules]\n"
        "import asyncio\n"
        "seen.append(asyncio.run(b.compile().ainvoke({'n': 1})))\n"
        "print(json.dumps(seen))\n"
    )
    assert fresh_python_json(code) == [False, {"n": 1}, False, {"n": 2}]
