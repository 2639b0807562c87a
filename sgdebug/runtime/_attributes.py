"""Which attributes a user may set on a compiled graph, and what happens to the others.

LangGraph's compiled graph is a plain object: ``graph.step_timeout = 1`` changes how it runs,
and a misspelt name is kept and ignored. sgdebug honours the settings LangGraph reads at run
time that it supports (:data:`HONOURED`), refuses the ones it reads but sgdebug does not
support yet with :class:`NotImplementedError` naming them (:data:`UNSUPPORTED`), and refuses
any other name with :class:`AttributeError`, as a ``__slots__`` class would, so that a typo
or an unknown option is not silently lost.
"""

from __future__ import annotations

from numbers import Real
from typing import Any

from sgdebug.runtime._keywords import check_checkpointer

__all__ = ["HONOURED", "UNSUPPORTED", "check_assignment"]

HONOURED = frozenset(
    {
        "step_timeout",
        "debug",
        "name",
        "checkpointer",
        "interrupt_before_nodes",
        "interrupt_after_nodes",
        "config",
        "store",
        "cache",
    }
)
"""Attributes read at run time, as in LangGraph: setting one changes the next runs."""

UNSUPPORTED = frozenset(
    {
        "retry_policy",
        "cache_policy",
        "stream_mode",
        "stream_eager",
        "nodes",
        "channels",
        "input_channels",
        "output_channels",
        "stream_channels",
        "trigger_to_nodes",
        "context_schema",
        "builder",
        "node_error_handler_map",
        "schema_to_mapper",
    }
)
"""LangGraph's other compiled-graph attributes: setting one is refused, naming it."""


def check_assignment(graph: Any, name: str, value: Any) -> None:
    """Raise unless ``graph.<name> = value`` is a setting sgdebug honours, with a valid value."""
    cls = type(graph).__name__
    if name in HONOURED:
        _check_value(name, value)
        return
    if name in UNSUPPORTED:
        raise NotImplementedError(
            f"setting {cls}.{name} after compile is not supported by sgdebug.runtime yet"
        )
    settable = ", ".join(sorted(HONOURED))
    raise AttributeError(
        f"{cls!r} object has no attribute {name!r} (a compiled graph's settable "
        f"attributes are: {settable})",
        name=name,
        obj=graph,
    )


def _check_value(name: str, value: Any) -> None:
    if name == "step_timeout":
        if value is not None and (isinstance(value, bool) or not isinstance(value, Real)):
            raise TypeError(f"step_timeout must be a number of seconds or None, not {value!r}")
    elif name == "debug" and not isinstance(value, bool):
        raise TypeError(f"debug must be True or False, not {value!r}")
    elif name == "checkpointer":
        check_checkpointer(value)
