"""A subgraph node opened in place: its inner nodes drawn where the node was.

:func:`expand` returns a :class:`Topology` in which the ``subgraph`` node at a path is
replaced by the nodes of its subgraph, named by their paths (``research/gather``): the edges
into the node enter the subgraph's first nodes, the subgraph's edges to its END (and its
nodes with no way on) leave for the node's successors, and its own edges stay between its
nodes. Any drawing of a topology draws the result, so the opened subgraph is laid out with
the rest of the graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from sgdebug.inspect.node_paths import join_path, split_path
from sgdebug.inspect.topology import (
    END,
    START,
    Topology,
    TopologyBranch,
    TopologyEdge,
    TopologyJoin,
    TopologyNode,
)

__all__ = ["expand", "expandable", "expand_all"]


def expandable(topo: Topology) -> tuple[str, ...]:
    """The subgraph nodes of ``topo`` that :func:`expand` can open (their inner topology is
    known), by name."""
    return tuple(n.name for n in topo.nodes if n.kind == "subgraph" and n.subgraph is not None)


def expand_all(topo: Topology, paths: Iterable[str]) -> Topology:
    """``topo`` with each subgraph of ``paths`` opened (a nested one after its parent)."""
    for path in sorted(set(paths), key=lambda p: len(split_path(p))):
        if path in expandable(topo):
            topo = expand(topo, path)
    return topo


def expand(topo: Topology, name: str) -> Topology:
    """``topo`` with subgraph node ``name`` replaced by its inner nodes (``name/inner``)."""
    node = topo.node(name)
    inner = node.subgraph
    if inner is None:
        raise ValueError(f"{name!r} is not a subgraph node with a known shape")

    def prefixed(inner_name: str) -> str:
        return join_path((name, inner_name))

    entries = [e for e in inner.edges if e.source == START]
    exits = _exits(inner)
    incoming = topo.edges_to(name)
    outgoing = topo.edges_from(name)
    edges = [e for e in topo.edges if name not in (e.source, e.target)]
    for into in incoming:
        for entry in entries:
            kind = "conditional" if "conditional" in (into.kind, entry.kind) else into.kind
            edges.append(replace(into, target=prefixed(entry.target), kind=kind))
    for out in outgoing:
        for leave in exits:
            kind = "conditional" if "conditional" in (out.kind, leave.kind) else out.kind
            label = leave.label if leave.kind == "conditional" else out.label
            branch = leave.branch if leave.kind == "conditional" else out.branch
            edges.append(TopologyEdge(prefixed(leave.source), out.target, kind, label, branch))
    for edge in inner.edges:
        if START not in (edge.source, edge.target) and END not in (edge.source, edge.target):
            join = tuple(prefixed(s) for s in edge.join)
            edges.append(
                replace(edge, source=prefixed(edge.source), target=prefixed(edge.target), join=join)
            )
    inner_nodes = [
        replace(n, name=prefixed(n.name)) for n in inner.nodes if n.name not in (START, END)
    ]
    nodes: list[TopologyNode] = []
    for each in topo.nodes:
        nodes.extend(inner_nodes if each.name == name else [each])
    order = {n.name: i for i, n in enumerate(nodes)}
    return Topology(
        nodes=tuple(nodes),
        edges=tuple(sorted(set(edges), key=lambda e: _key(e, order))),
        branches=_branches(topo, inner, name),
        joins=_joins(topo, inner, name),
    )


def _exits(inner: Topology) -> list[TopologyEdge]:
    """The subgraph's ways out: its edges to END, and a node with no edge or branch of its
    own (the subgraph ends after it, as LangGraph ends a run when nothing is triggered)."""
    exits = [e for e in inner.edges if e.target == END]
    leaving = {e.source for e in inner.edges} | {b.source for b in inner.branches}
    for node in inner.nodes:
        if node.name not in (START, END, *leaving):
            exits.append(TopologyEdge(node.name, END, "plain"))
    return exits


def _key(edge: TopologyEdge, order: dict[str, int]) -> tuple[int, int, str, str]:
    end = len(order)
    return (order.get(edge.source, end), order.get(edge.target, end), edge.kind, edge.label or "")


def _branches(topo: Topology, inner: Topology, name: str) -> tuple[TopologyBranch, ...]:
    """The parent's branches (minus the node's own) and the subgraph's, renamed; only a
    dynamic branch is drawn from this list (a stub), the others are in the edges."""
    kept = [b for b in topo.branches if b.source != name]
    kept += [
        TopologyBranch(join_path((name, b.source)), b.name, (), ())
        for b in inner.branches
        if b.dynamic and b.source != START
    ]
    return tuple(kept)


def _joins(topo: Topology, inner: Topology, name: str) -> tuple[TopologyJoin, ...]:
    kept = [j for j in topo.joins if name not in (j.target, *j.sources)]
    kept += [
        TopologyJoin(tuple(join_path((name, s)) for s in j.sources), join_path((name, j.target)))
        for j in inner.joins
    ]
    return tuple(kept)
