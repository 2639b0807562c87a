"""The nodes a node's ``-> Command[Literal[...]]`` return annotation names: its
destinations, read once when the node is added (``add_node``) and drawn as its edges by
``get_graph()``. Its own module so that building a graph does not import the drawing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

__all__ = ["command_destinations"]


def command_destinations(action: Callable[..., Any]) -> tuple[str, ...]:
    """Targets named by a ``-> Command[Literal[...]]`` return annotation of ``action``.

    A ``Union`` return uses its first ``Command[...]`` member, as LangGraph does; any other
    annotation (including ``Command[...] | None`` written with ``X | Y`` on plain classes)
    gives no destinations.
    """
    from inspect import isfunction, ismethod

    call = getattr(action, "__call__", None)  # noqa: B004 - LangGraph looks at __call__
    if not (isfunction(action) or ismethod(action) or ismethod(call)):
        return ()
    try:
        hints = get_type_hints(call) or get_type_hints(action)
    except (NameError, TypeError):
        return ()
    returned = hints.get("return")
    if get_origin(returned) is Union:
        returned = next((a for a in get_args(returned) if _is_command(get_origin(a))), returned)
    if not _is_command(get_origin(returned)) or not (args := get_args(returned)):
        return ()
    if get_origin(args[0]) is not Literal:
        return ()
    return tuple(get_args(args[0]))


def _is_command(origin: Any) -> bool:
    from sgdebug.runtime.types import Command

    if origin is Command:
        return True
    module = getattr(origin, "__module__", "")
    return getattr(origin, "__name__", "") == "Command" and module.startswith("langgraph")
