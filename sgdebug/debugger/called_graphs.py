"""The compiled graph a subgraph frame runs when its node's function calls one.

:func:`~sgdebug.inspect.called_graphs.called_graphs` finds the compiled graphs a node's
function can call (``sub.invoke(...)`` in its code) without running it. A run stopped
inside such a subgraph gives its snapshot; :func:`called_graph` keeps the candidates whose
channels and nodes fit it. Exactly one: that is the frame's graph (its channel table, its
edits). None or several: no graph, and a note saying why, for the frame to show its
snapshot's values alone (:func:`snapshot_rows`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.inspect.called_graphs import called_graphs, graph_name, is_compiled_graph, node_action

if TYPE_CHECKING:
    from sgdebug.inspect import ChannelRow
    from sgdebug.runtime import StateSnapshot

__all__ = [
    "CalledGraph", "called_graph", "called_graphs", "called_note", "graph_fits", "snapshot_rows",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class CalledGraph:
    """What the lookup found for a subgraph frame."""

    graph: Any
    """The compiled graph the node calls (``None``: none, or several, fit)."""
    note: str = ""
    """Why there is none (empty when :attr:`graph` is set)."""


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
    named = ", ".join(repr(n) for n in map(graph_name, found) if n)
    what = f"compiled graph {named}" if len(found) == 1 and named else "a compiled graph"
    return (
        f" ({node} is a plain node whose function invokes {what}: the run stops in that "
        "graph's frame at an interrupt() inside it, but a path names only the nodes and "
        "channels of a subgraph added as a node)"
    )


def subgraph_of_node(graph: Any, node: str) -> bool:
    """Whether node ``node`` of ``graph`` is itself a compiled graph."""
    return is_compiled_graph(node_action(graph, node))
