"""Runnable example graphs to try the debugger on, shared by tests, benchmarks and docs.

Each sample is a module with:

* ``build(engine="sgdebug", **params)``: a factory returning the *uncompiled* ``StateGraph``,
  written with the public names of either engine (:func:`~._engines.api`), so one program
  runs unchanged on sgdebug's runtime and on LangGraph;
* ``graph``: the graph compiled with sgdebug's runtime, built on first access (importing a
  sample is cheap and never imports LangGraph);
* ``EXAMPLE_INPUT``: what a user would run it with, e.g.
  ``sgdebug sgdebug.sample_graphs.loop:graph``.

Nothing here imports the samples eagerly: :data:`SAMPLES` maps names to module paths and
:func:`load` imports one on demand.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType, ModuleType
from typing import Any, TypedDict

from sgdebug.sample_graphs._engines import ENGINES, Engine, EngineAPI, api

__all__ = [
    "ASKS_A_HUMAN",
    "ENGINES",
    "RUNS_ALONE",
    "SAMPLES",
    "Engine",
    "EngineAPI",
    "api",
    "build",
    "lazy_graph",
    "load",
    "typed_dict",
]

SAMPLES: Mapping[str, str] = MappingProxyType(
    {
        "linear": "sgdebug.sample_graphs.linear",
        "overwrite": "sgdebug.sample_graphs.overwrite",
        "multi_schema": "sgdebug.sample_graphs.multi_schema",
        "channels": "sgdebug.sample_graphs.channels",
        "fanout": "sgdebug.sample_graphs.fanout",
        "map_reduce": "sgdebug.sample_graphs.map_reduce",
        "loop": "sgdebug.sample_graphs.loop",
        "chatbot": "sgdebug.sample_graphs.chatbot",
        "approval": "sgdebug.sample_graphs.approval",
        "nested": "sgdebug.sample_graphs.nested",
    }
)
"""Sample name -> module path, in the order a tour of the debugger would show them."""

ASKS_A_HUMAN: frozenset[str] = frozenset({"approval", "nested"})
"""Samples whose example run stops at ``interrupt()`` until someone answers (``resume``)."""
RUNS_ALONE: tuple[str, ...] = tuple(name for name in SAMPLES if name not in ASKS_A_HUMAN)
"""Samples whose example input runs to the end with no answer needed."""


def load(name: str) -> ModuleType:
    """Import the sample called ``name`` (a key of :data:`SAMPLES`)."""
    try:
        path = SAMPLES[name]
    except KeyError:
        known = ", ".join(SAMPLES)
        raise KeyError(f"unknown sample {name!r}; known samples: {known}") from None
    return importlib.import_module(path)


def build(name: str, engine: Engine = "sgdebug", **params: Any) -> Any:
    """The uncompiled ``StateGraph`` of sample ``name`` on ``engine``."""
    factory: Callable[..., Any] = load(name).build
    return factory(engine, **params)


def lazy_graph(module_name: str, attribute: str, factory: Callable[..., Any]) -> Any:
    """Module ``__getattr__`` body: compile ``graph`` (sgdebug's runtime) or
    ``langgraph_graph`` (the same program built with LangGraph) on first access, then cache.

    Compiling at import time would make every import of a sample pay for the runtime;
    this keeps ``import sgdebug.sample_graphs.<name>`` cheap (and free of LangGraph).
    """
    if attribute == "graph":
        compiled = factory().compile()
    elif attribute == "langgraph_graph":
        compiled = factory("langgraph").compile()
    else:
        raise AttributeError(f"module {module_name!r} has no attribute {attribute!r}")
    vars(sys.modules[module_name])[attribute] = compiled
    return compiled


def typed_dict(name: str, fields: Mapping[str, Any], *, total: bool = True) -> Any:
    """A ``TypedDict`` class built from real annotation objects.

    Sample modules use ``from __future__ import annotations``, which turns class-body
    annotations into strings resolved against module globals. A state class whose
    annotations mention one engine's classes (``EphemeralValue``, ``RemainingSteps``) is
    therefore created inside ``build()`` from objects instead of strings.
    """
    make: Any = TypedDict
    schema = make(name, dict(fields), total=total)
    schema.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    return schema
