"""Which targets may be imported and called: the checks :func:`~.loading.load_target` makes.

Loading a target calls it when it is a function (a factory returning the graph). No function
of the standard library or built into Python ever builds a graph, so those are refused
before they are called, whoever named them (``os:abort``, ``subprocess:call``,
``builtins:exit``).

A target read from a session file is untrusted input, and is held to more: its module may
not be the standard library's or a file inside it (refused before it is imported), and the
only callable it may name is a plain function defined in that very module, in the user's
own code (not an installed package, not sgdebug); anything else is refused before it is
called. A compiled graph or a builder is accepted from anywhere: reading it calls nothing.

Each check returns the refusal's message, or ``None`` when the target may go on.
"""

from __future__ import annotations

import functools
import inspect
import os
import site
import sys
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any, Final

__all__ = ["installed_roots", "refusal_before_call", "refusal_before_import"]

_OWN_PACKAGES: Final = ("sgdebug", "langgraph")
_FROM_FILE: Final = (
    "A session file's target must be a compiled graph, a StateGraph, or a function defined "
    "in your own module that returns one"
)


@functools.cache
def installed_roots() -> tuple[str, ...]:
    """The folders of installed packages (site-packages), each ending with a separator."""
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("purelib", "platlib") if key in paths}
    roots.update(getattr(site, "getsitepackages", list)())
    roots.add(site.getusersitepackages())
    return tuple(os.path.join(os.path.realpath(root), "") for root in roots)


@functools.cache
def _stdlib_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib") if key in paths}
    return tuple(os.path.join(os.path.realpath(root), "") for root in roots)


def refusal_before_import(
    text: str, module: str | None, path: Path | None, *, from_file: bool
) -> str | None:
    """Why a target from a session file may not even be imported (``None``: it may)."""
    if not from_file:
        return None
    if module is not None and _is_stdlib_name(module):
        return (
            f"Cannot load {text!r} from the session file: {module!r} is a module of Python's "
            f"standard library, which defines no graph; it was not imported. {_FROM_FILE}."
        )
    if path is not None and _in_stdlib(str(path)):
        return (
            f"Cannot load {text!r} from the session file: {path} is a file of Python's "
            f"standard library, which defines no graph; it was not imported. {_FROM_FILE}."
        )
    return None


def refusal_before_call(
    value: Any, module: ModuleType, text: str, *, from_file: bool
) -> str | None:
    """Why the attribute ``value`` of ``module`` may not be called (``None``: it may, or it
    is not something loading calls: a graph, a builder, a class, a plain value)."""
    if not callable(value) or isinstance(value, type) or _is_graph_like(value):
        return None
    what = _describe(value)
    inner = value
    while isinstance(inner, functools.partial):  # what a partial calls is what runs
        inner = inner.func
    origin = _origin(inner)
    if inspect.isbuiltin(inner) or _is_stdlib_name(origin):
        return (
            f"Cannot load {text!r}: it is {what}, from Python itself ({origin}), which never "
            f"builds a graph; it was not called. TARGET must name a compiled graph, a "
            f"StateGraph, or a function of your program returning one."
        )
    if not from_file:
        return None
    problem = _file_factory_problem(value, module)
    if problem is None:
        return None
    return (
        f"Cannot load {text!r} from the session file: it is {what}, {problem}; it was not "
        f"called. {_FROM_FILE}."
    )


def _file_factory_problem(value: Any, module: ModuleType) -> str | None:
    if not inspect.isfunction(value):
        return "not a plain function"
    if value.__module__ != module.__name__:
        return f"defined in {value.__module__}, not in {module.__name__}"
    if module.__name__.split(".")[0] in _OWN_PACKAGES:
        return f"a function of {module.__name__.split('.')[0]} itself"
    filename = value.__code__.co_filename
    if _in_stdlib(filename) or os.path.realpath(filename).startswith(installed_roots()):
        return "from an installed package, not from your program"
    return None


def _is_graph_like(value: Any) -> bool:
    """A graph or a builder, of either runtime (by class names: nothing is imported)."""
    return any(
        c.__module__.split(".")[0] in _OWN_PACKAGES
        and c.__name__ in ("Pregel", "StateGraph", "CompiledStateGraph")
        for c in type(value).__mro__
    )


def _origin(value: Any) -> str:
    """The module that defines ``value`` (its class's, for an instance that is callable)."""
    name = getattr(value, "__module__", None)
    if not isinstance(name, str) or not (inspect.isroutine(value) or inspect.isfunction(value)):
        name = type(value).__module__
    return name or "?"


def _is_stdlib_name(name: str | None) -> bool:
    top = (name or "").split(".")[0]
    return top in sys.stdlib_module_names or top in sys.builtin_module_names


def _in_stdlib(filename: str) -> bool:
    real = os.path.realpath(filename)
    return real.startswith(_stdlib_roots()) and not real.startswith(installed_roots())


def _describe(value: Any) -> str:
    if inspect.isbuiltin(value):
        return f"the built-in function {value.__name__}"
    if inspect.isfunction(value):
        return f"the function {value.__qualname__}"
    if inspect.ismethod(value):
        return f"the method {value.__qualname__}"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name} object"
