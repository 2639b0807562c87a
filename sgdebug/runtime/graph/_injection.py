"""Which of a node function's parameters the engine fills in, by LangGraph 1.2's rule.

A parameter is injected when it has one of the names below, can be passed by keyword
(not positional-only, not ``*args``), and its annotation is one its name allows:

* ``config``: none, ``RunnableConfig`` or ``Optional[RunnableConfig]`` (the class or those
  exact strings; ``RunnableConfig | None`` evaluated counts, the string does not). Any
  other annotation (``config: Any``, ``config: dict``) is not injected, with LangGraph's
  ``UserWarning``: the function gets its default, or fails for want of the argument.
* ``writer``: none or ``StreamWriter`` (``Callable[[Any], None]``, or the string).
* ``store``: none, ``BaseStore`` or ``Optional[BaseStore]``.
* ``runtime``, ``previous``: any annotation.
* ``error``: ``NodeError`` (an error handler's failure), see :func:`names_node_error`.

Annotations are compared as written, without resolving strings, as LangGraph does.
"""

from __future__ import annotations

import inspect
import types
import typing
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from sgdebug.runtime.types import StreamWriter

__all__ = ["RunnableConfig", "injected", "names_node_error"]

RunnableConfig = dict[str, Any]
"""How sgdebug's own node wrappers (subgraphs, Runnables) annotate ``config``: by this name
the rule passes it (LangChain's class is not imported for it)."""

_EMPTY = inspect.Parameter.empty
_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def injected(params: Mapping[str, inspect.Parameter]) -> frozenset[str]:
    """The names of ``params`` the engine passes by keyword (see the module docstring)."""
    names = set()
    for name, param in params.items():
        rule = _RULES.get(name)
        if rule is None or param.kind not in _KINDS:
            continue
        if rule(param.annotation):
            names.add(name)
        elif name == "config":
            warnings.warn(
                "The 'config' parameter should be typed as 'RunnableConfig' or "
                f"'RunnableConfig | None', not '{param.annotation}'. ",
                UserWarning,
                stacklevel=5,
            )
    return frozenset(names)


def _is_class_or_optional(annotation: Any, cls: str) -> bool:
    """Whether ``annotation`` is absent, the class named ``cls``, ``Optional`` of it, or the
    string ``cls`` / ``"Optional[cls]"``."""
    if annotation is _EMPTY or annotation in (cls, f"Optional[{cls}]"):
        return True
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = typing.get_args(annotation)
        others = [a for a in args if a is not type(None)]
        return len(args) == 2 and len(others) == 1 and _names_class(others[0], cls)
    return _names_class(annotation, cls)


def _names_class(annotation: Any, cls: str) -> bool:
    return isinstance(annotation, type) and annotation.__name__ == cls


def names_node_error(annotation: Any) -> bool:
    """Whether a parameter ``error`` is annotated ``NodeError`` (LangGraph's or ours): an
    error handler receives its failure there."""
    name = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return bool(name == "NodeError" or name.endswith(".NodeError"))


_RULES: dict[str, Callable[[Any], bool]] = {
    "config": lambda a: _is_class_or_optional(a, "RunnableConfig"),
    "writer": lambda a: a is _EMPTY or a in ("StreamWriter", StreamWriter),
    "store": lambda a: _is_class_or_optional(a, "BaseStore"),
    "runtime": lambda a: True,
    "previous": lambda a: True,
    "error": names_node_error,
}
"""Per injectable name, whether an annotation lets it be injected."""
