"""The compiled graphs a node's function can call (``sub.invoke(...)`` in the node's code),
found without running it.

A subgraph added as a node is the node's action itself. One the node's function invokes is
found from what the function can name: the module globals its code names (``co_names``,
nested functions' too), its closure cells and its default arguments, and so on for its own
module's functions among those (a few deep), through ``functools.partial``, bound methods
(the instance's attributes), ``__wrapped__`` and LangGraph's ``RunnableCallable`` wrapper;
plus what the engine's own detection (``nodes[name].subgraphs``, LangGraph's rules) finds.
The topology marks such a node (:attr:`~.topology.TopologyNode.calls`); the debugger picks,
among them, the graph a subgraph frame's snapshot fits.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator, Mapping
from types import CodeType, FunctionType, MethodType, ModuleType
from typing import Any, Final

__all__ = ["DEFAULT_NAME", "called_graphs", "graph_name", "is_compiled_graph", "node_action"]

_GRAPH_METHODS: Final = ("get_state", "stream", "invoke")
"""What the type of a compiled graph (either engine's) has."""
_NOT_GRAPHS: Final = (
    type, FunctionType, ModuleType, MethodType, functools.partial, str, bytes, int, float,
    dict, list, tuple, set, frozenset, type(None),
)  # fmt: skip
"""What is surely no compiled graph (told apart without reading attributes)."""
DEFAULT_NAME: Final = "LangGraph"
"""The name a graph compiled without one gets (on both engines)."""
_MAX_UNWRAP: Final = 16
"""How many callables (wrappers, the helper functions the node's function names) are looked
through (a cycle stops there)."""


def is_compiled_graph(value: Any) -> bool:
    """Whether ``value`` is a compiled graph of either engine (read from its type, so no
    user ``__getattr__`` runs)."""
    if isinstance(value, _NOT_GRAPHS) or _static(value, "builder") is None:
        return False
    kind = type(value)
    return all(inspect.getattr_static(kind, n, None) is not None for n in _GRAPH_METHODS)


def _static(value: Any, name: str) -> Any:
    try:
        return inspect.getattr_static(value, name, None)
    except Exception:  # (an object whose class machinery is odd: nothing to read)
        return None


def node_action(graph: Any, node: str) -> Any:
    """What node ``node`` of ``graph`` runs, as its builder keeps it (``None``: no such node)."""
    builder = getattr(graph, "builder", None)
    spec = getattr(builder, "nodes", {}).get(node) if builder is not None else None
    if spec is None:
        return None
    return getattr(spec, "action", None) or getattr(spec, "runnable", None)


def called_graphs(graph: Any, node: str) -> tuple[Any, ...]:
    """Every compiled graph node ``node`` of ``graph`` can call, first found first, without
    duplicates (``graph`` itself left out)."""
    found: dict[int, Any] = {}
    for value in _reachable(node_action(graph, node)):
        if value is not graph and is_compiled_graph(value):
            found.setdefault(id(value), value)
    engine_nodes = getattr(graph, "nodes", None)
    pregel_node = engine_nodes.get(node) if isinstance(engine_nodes, Mapping) else None
    for value in getattr(pregel_node, "subgraphs", None) or ():
        if value is not graph and is_compiled_graph(value):
            found.setdefault(id(value), value)
    return tuple(found.values())


def _reachable(action: Any) -> Iterator[Any]:
    """The values ``action`` (a node's action) names: itself, then what its functions name."""
    pending, seen = [action], 0
    while pending and seen < _MAX_UNWRAP:
        value = pending.pop(0)
        seen += 1
        if value is None:
            continue
        yield value
        if is_compiled_graph(value):
            continue
        pending.extend(_wrapped(value))
        if inspect.isfunction(value):
            for named in _named_by(value):
                yield named
                if _helper(named, value):
                    pending.append(named)


def _helper(named: Any, fn: Any) -> bool:
    """Whether ``named`` is a function of ``fn``'s own module (a helper it calls may call
    the graph; a library's functions are not looked into)."""
    return inspect.isfunction(named) and named.__module__ == fn.__module__


def _wrapped(value: Any) -> list[Any]:
    """The callables ``value`` wraps (and a partial's or bound method's bound values: a
    method's instance and its attributes)."""
    if isinstance(value, functools.partial):
        return [value.func, *value.args, *value.keywords.values()]
    if isinstance(value, MethodType):
        try:
            own = list(vars(value.__self__).values())
        except TypeError:  # (no instance dict: slots)
            own = []
        return [value.__self__, value.__func__, *own]
    if isinstance(value, FunctionType):
        wrapped = value.__dict__.get("__wrapped__")
        return [wrapped] if callable(wrapped) else []
    inner = [_static(value, name) for name in ("func", "__wrapped__")]
    found = [v for v in inner if v is not None and callable(v)]
    if not found and callable(afunc := _static(value, "afunc")):
        found.append(afunc)
    return found


def _named_by(fn: Any) -> Iterator[Any]:
    """What a function names: its closure cells, its defaults, the globals its code (and
    the code of functions defined in it) names."""
    for cell in fn.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:  # a cell never assigned
            continue
    yield from fn.__defaults__ or ()
    yield from (fn.__kwdefaults__ or {}).values()
    scope = fn.__globals__
    for name in dict.fromkeys(_names(fn.__code__)):
        if name in scope:
            yield scope[name]


def _names(code: CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _names(const)


def graph_name(graph: Any) -> str:
    """The name a compiled graph was given (empty for the default one, ``LangGraph``)."""
    name = str(getattr(graph, "name", "") or "")
    return "" if name == DEFAULT_NAME else name
