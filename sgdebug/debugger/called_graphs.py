"""The compiled graph a node's function calls (``sub.invoke(...)`` in the node's code).

A subgraph added as a node is the node's action itself (:func:`~.subframes.subgraph_of`).
One the node's function invokes is found from what the function can name without running
it: the module globals its code names (``co_names``, nested functions' too), its closure
cells and its default arguments, and so on for its own module's functions among those (a
few deep), through ``functools.partial``, bound methods (the instance's attributes),
``__wrapped__`` and LangGraph's ``RunnableCallable`` wrapper; plus what the engine's own
detection (``nodes[name].subgraphs``, LangGraph's rules) finds.

A run stopped inside such a subgraph gives its snapshot; :func:`called_graph` keeps the
candidates whose channels and nodes fit it. Exactly one: that is the frame's graph (its
channel table, its edits). None or several: no graph, and a note saying why, for the
frame to show its snapshot's values alone (:func:`snapshot_rows`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import CodeType, FunctionType, MethodType, ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.inspect import ChannelRow
    from sgdebug.runtime import StateSnapshot

__all__ = [
    "CalledGraph", "called_graph", "called_graphs", "called_note", "graph_fits", "snapshot_rows",
]  # fmt: skip

_GRAPH_METHODS = ("get_state", "stream", "invoke")
"""What the type of a compiled graph (either engine's) has."""
_NOT_GRAPHS = (
    type, FunctionType, ModuleType, MethodType, functools.partial, str, bytes, int, float,
    dict, list, tuple, set, frozenset, type(None),
)  # fmt: skip
"""What is surely no compiled graph (told apart without reading attributes)."""
_DEFAULT_NAME = "LangGraph"
"""The name a graph compiled without one gets (on both engines)."""
_MAX_UNWRAP = 16
"""How many callables (wrappers, the helper functions the node's function names) are looked
through (a cycle stops there)."""


@dataclass(frozen=True, slots=True)
class CalledGraph:
    """What the lookup found for a subgraph frame."""

    graph: Any
    """The compiled graph the node calls (``None``: none, or several, fit)."""
    note: str = ""
    """Why there is none (empty when :attr:`graph` is set)."""


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


def graph_fits(graph: Any, snapshot: StateSnapshot) -> bool:
    """Whether ``snapshot`` can be a snapshot of ``graph``: its values' keys are channels of
    it, the nodes it waits on and its tasks' nodes are nodes of it."""
    nodes = set(getattr(getattr(graph, "builder", None), "nodes", {}) or ())
    waiting = {*snapshot.next, *(t.name for t in snapshot.tasks)}
    if not waiting <= nodes:
        return False
    values = snapshot.values
    if not isinstance(values, Mapping):
        return True
    return set(values) <= set(_channels(graph))


def _channels(graph: Any) -> tuple[str, ...]:
    keys = getattr(graph, "stream_keys", None)  # (sgdebug's runtime)
    if keys is None:
        keys = tuple(getattr(getattr(graph, "builder", None), "channels", {}) or ())
    return (keys,) if isinstance(keys, str) else tuple(keys)


def called_graph(graph: Any, node: str, snapshot: StateSnapshot) -> CalledGraph:
    """The compiled graph node ``node`` of ``graph`` calls that ``snapshot`` (a subgraph's
    snapshot under the node's task) fits; or none, with why."""
    candidates = called_graphs(graph, node)
    fitting = [g for g in candidates if graph_fits(g, snapshot)]
    if len(fitting) == 1:
        return CalledGraph(fitting[0])
    if not fitting:
        what = (
            f"the {len(candidates)} compiled graph(s) its function names do not fit it"
            if candidates
            else "its function names no compiled graph (globals, closure, defaults)"
        )
    else:
        names = ", ".join(repr(getattr(g, "name", "?")) for g in fitting)
        what = f"its function names {len(fitting)} compiled graphs that fit it ({names})"
    return CalledGraph(
        None,
        f"The graph {node} calls is not known: {what}; its channels show the snapshot's "
        "values (no reducers, no edits).",
    )


def snapshot_rows(snapshot: StateSnapshot) -> tuple[ChannelRow, ...]:
    """Channel rows from a snapshot's values alone (the graph that made it is not known)."""
    from sgdebug.inspect import ChannelRow
    from sgdebug.inspect.preview import preview

    values = snapshot.values
    items = values.items() if isinstance(values, Mapping) else (("__root__", values),)
    rows = []
    for name, value in items:
        rows.append(
            ChannelRow(
                name=str(name), kind="(unknown)", category="value", reducer=None, version=None,
                last_step=None, writers=(), value=value, preview=preview(value), empty=False,
                changed=False,
            )
        )  # fmt: skip
    return tuple(rows)


def called_note(graph: Any, path: str) -> str:
    """What a refusal of the node path ``path`` adds when its first node is a plain node
    of ``graph`` whose function invokes a compiled graph (empty otherwise): paths name the
    nodes of subgraphs added as nodes only."""
    node = path.split("/", 1)[0]
    if subgraph_of_node(graph, node):
        return ""
    found = called_graphs(graph, node)
    if not found:
        return ""
    names = [str(getattr(g, "name", "")) for g in found]
    named = ", ".join(repr(n) for n in names if n and n != _DEFAULT_NAME)
    what = f"compiled graph {named}" if len(found) == 1 and named else "a compiled graph"
    return (
        f" ({node} is a plain node whose function invokes {what}: the run stops in that "
        "graph's frame at an interrupt() inside it, but a path names only the nodes and "
        "channels of a subgraph added as a node)"
    )


def subgraph_of_node(graph: Any, node: str) -> bool:
    """Whether node ``node`` of ``graph`` is itself a compiled graph."""
    return is_compiled_graph(node_action(graph, node))
