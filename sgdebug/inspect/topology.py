"""The shape of a compiled graph: its nodes, edges, branches and joins, as frozen data.

:func:`topology` reads the builder behind a compiled graph (sgdebug's runtime or
LangGraph's): nodes with their kind, plain edges, waiting edges (joins) and conditional
edges with every target the program declares (a path map, a ``Literal`` return annotation,
``Command`` destinations). Unlike ``get_graph()``, which dry-runs the program and draws a
branch without known targets as no edge at all, a topology keeps such a branch and marks it
*dynamic*. :func:`mermaid` gives the runtime's own Mermaid text unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from sgdebug.inspect.called_graphs import called_graphs, graph_name
from sgdebug.runtime import END, START

__all__ = [
    "END",
    "START",
    "EdgeKind",
    "NodeKind",
    "Topology",
    "TopologyBranch",
    "TopologyEdge",
    "TopologyJoin",
    "TopologyNode",
    "mermaid",
    "topology",
]

NodeKind = Literal["start", "end", "function", "subgraph"]
"""``start``/``end`` are the virtual nodes; ``subgraph`` runs a compiled graph."""
EdgeKind = Literal["plain", "join", "conditional"]
"""``plain`` always taken; ``join`` one source of a waiting edge; ``conditional`` chosen."""

_MAX_DEPTH: Final = 8
"""Subgraphs nested deeper than this are not expanded (a guard, not a real limit)."""
_KIND_ORDER: Final[dict[str, int]] = {"plain": 0, "join": 1, "conditional": 2}


@dataclass(frozen=True, slots=True)
class TopologyNode:
    """One node of the graph, or the virtual ``__start__`` / ``__end__``."""

    name: str
    """The node's name (``"__start__"`` / ``"__end__"`` for the virtual nodes)."""
    kind: NodeKind
    """What the node runs."""
    deferred: bool = False
    """Added with ``defer=True``: runs only when nothing else would run next."""
    interrupt_before: bool = False
    """Compiled with a static breakpoint before the node."""
    interrupt_after: bool = False
    """Compiled with a static breakpoint after the node."""
    action: str = ""
    """Qualified name of the function (or graph) the node runs; empty for START/END."""
    metadata: tuple[tuple[str, Any], ...] = ()
    """User metadata as ``(key, value)`` pairs, in the user's order."""
    subgraph: Topology | None = None
    """The topology of the compiled graph a ``subgraph`` node runs."""
    calls: tuple[str, ...] = ()
    """For a ``function`` node whose function invokes compiled graphs (``sub.invoke(...)``
    in its code, found without running it: :mod:`~sgdebug.inspect.called_graphs`): their
    names, ``""`` for one given none. Its run is the node's one task, as a subgraph's."""


@dataclass(frozen=True, slots=True)
class TopologyEdge:
    """One possible step from ``source`` to ``target``."""

    source: str
    """Name of the node the step leaves."""
    target: str
    """Name of the node the step enters (may be ``"__end__"``)."""
    kind: EdgeKind
    """How the step is taken."""
    label: str | None = None
    """The path-map key (or destinations label) choosing it, when it is not the target name."""
    branch: str | None = None
    """For ``conditional``: the path function's name, ``None`` for a ``Command`` destination."""
    join: tuple[str, ...] = ()
    """For ``join``: every source the target waits for (this one included), in order."""


@dataclass(frozen=True, slots=True)
class TopologyBranch:
    """A conditional edge (``add_conditional_edges``) or a node's ``Command`` destinations."""

    source: str
    """The node whose result is routed."""
    name: str
    """The path function's name (``"condition"`` for a lambda); ``""`` for destinations."""
    targets: tuple[str, ...]
    """Every node the branch may choose, in declaration order; empty when dynamic."""
    labels: tuple[str | None, ...] = ()
    """For each target, its path-map key when different from the target name."""

    @property
    def dynamic(self) -> bool:
        """No declared targets: the path function may return any node name or ``Send``."""
        return not self.targets


@dataclass(frozen=True, slots=True)
class TopologyJoin:
    """A waiting edge ``add_edge([a, b], c)``: ``target`` runs once every source has run."""

    sources: tuple[str, ...]
    """The nodes waited for, in the order given."""
    target: str
    """The node that runs after all of them."""


@dataclass(frozen=True, slots=True)
class Topology:
    """Nodes, edges, branches and joins of a graph, in a stable order."""

    nodes: tuple[TopologyNode, ...]
    """``__start__`` first, then the nodes in the order they were added, ``__end__`` last
    (present only when some edge or branch can reach it)."""
    edges: tuple[TopologyEdge, ...]
    """Every possible step, sorted by source, then target (in node order), then kind."""
    branches: tuple[TopologyBranch, ...] = ()
    """Conditional routing, dynamic branches included, by source in node order."""
    joins: tuple[TopologyJoin, ...] = ()
    """Waiting edges, by target in node order."""

    @property
    def names(self) -> tuple[str, ...]:
        """The node names, in order."""
        return tuple(node.name for node in self.nodes)

    def node(self, name: str) -> TopologyNode:
        """The node called ``name``; ``KeyError`` if there is none."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def edges_from(self, name: str) -> tuple[TopologyEdge, ...]:
        """The edges leaving ``name``."""
        return tuple(edge for edge in self.edges if edge.source == name)

    def edges_to(self, name: str) -> tuple[TopologyEdge, ...]:
        """The edges entering ``name``."""
        return tuple(edge for edge in self.edges if edge.target == name)


def topology(graph: Any) -> Topology:
    """The topology of a compiled graph (sgdebug's ``CompiledStateGraph`` or LangGraph's)."""
    return _topology(graph, 0)


def mermaid(graph: Any, *, xray: bool | int = False) -> str:
    """Mermaid flowchart text of a compiled graph, exactly as its ``get_graph()`` draws it."""
    text: str = graph.get_graph(xray=xray).draw_mermaid()
    return text


def _topology(graph: Any, depth: int) -> Topology:
    builder = graph.builder
    specs: Mapping[str, Any] = builder.nodes
    before = _interrupts(getattr(graph, "interrupt_before_nodes", ()), specs)
    after = _interrupts(getattr(graph, "interrupt_after_nodes", ()), specs)
    edges = [TopologyEdge(s, t, "plain") for s, t in builder.edges]
    joins = [TopologyJoin(tuple(s), t) for s, t in builder.waiting_edges]
    edges += [TopologyEdge(s, j.target, "join", join=j.sources) for j in joins for s in j.sources]
    branches = _branches(builder.branches, specs)
    for branch in branches:
        for target, label in zip(branch.targets, branch.labels, strict=True):
            name = branch.name or None
            edges.append(TopologyEdge(branch.source, target, "conditional", label, name))
    names = [START, *specs]
    if any(edge.target == END for edge in edges) or any(b.dynamic for b in branches):
        names.append(END)  # a branch with no declared targets may choose END too
    nodes = [_node(name, specs.get(name), name in before, name in after, depth) for name in names]
    nodes = [_with_calls(graph, node) for node in nodes]
    order = {name: index for index, name in enumerate(names)}
    return Topology(
        nodes=tuple(nodes),
        edges=tuple(sorted(set(edges), key=lambda e: _edge_key(e, order))),
        branches=tuple(sorted(branches, key=lambda b: (order.get(b.source, -1), b.name))),
        joins=tuple(sorted(set(joins), key=lambda j: (order.get(j.target, -1), j.sources))),
    )


def _edge_key(edge: TopologyEdge, order: Mapping[str, int]) -> tuple[int, int, int, str, str]:
    return (
        order.get(edge.source, len(order)),
        order.get(edge.target, len(order)),
        _KIND_ORDER[edge.kind],
        edge.branch or "",
        edge.label or "",
    )


def _interrupts(value: Any, specs: Mapping[str, Any]) -> frozenset[str]:
    if value == "*" or (isinstance(value, Iterable) and "*" in list(value)):
        return frozenset(specs)
    if isinstance(value, str):
        return frozenset((value,))
    return frozenset(value or ())


def _node(name: str, spec: Any, before: bool, after: bool, depth: int) -> TopologyNode:
    if spec is None:
        return TopologyNode(name, "start" if name == START else "end")
    action = _action(spec)
    sub = _is_subgraph(action)
    return TopologyNode(
        name=name,
        kind="subgraph" if sub else "function",
        deferred=bool(getattr(spec, "defer", False)),
        interrupt_before=before,
        interrupt_after=after,
        action=_qualified_name(action),
        metadata=tuple((getattr(spec, "metadata", None) or {}).items()),
        subgraph=_topology(action, depth + 1) if sub and depth < _MAX_DEPTH else None,
    )


def _with_calls(graph: Any, node: TopologyNode) -> TopologyNode:
    """``node`` with the names of the compiled graphs its function calls, if it is a plain
    node that calls any."""
    if node.kind != "function":
        return node
    found = called_graphs(graph, node.name)
    return replace(node, calls=tuple(map(graph_name, found))) if found else node


def _branches(
    raw: Mapping[str, Mapping[str, Any]], specs: Mapping[str, Any]
) -> list[TopologyBranch]:
    found: list[TopologyBranch] = []
    for source, by_name in raw.items():
        for name, spec in by_name.items():
            mapping = getattr(spec, "path_map", None)
            if mapping is None and not hasattr(spec, "path_map"):
                mapping = getattr(spec, "ends", None)  # LangGraph's BranchSpec
            found.append(_branch(source, name, _pairs(mapping)))
    for source, spec in specs.items():
        ends = getattr(spec, "destinations", None) if hasattr(spec, "destinations") else None
        if ends is None:
            ends = getattr(spec, "ends", None)  # LangGraph's StateNodeSpec
        pairs: list[tuple[str, str | None]] = (
            _pairs(ends) if isinstance(ends, Mapping) else [(str(e), None) for e in ends or ()]
        )
        if pairs:
            found.append(_branch(source, "", pairs))
    return found


def _pairs(mapping: Mapping[Any, str] | None) -> list[tuple[str, str | None]]:
    """(target, label) pairs of a path map; the label is kept when it differs from the target."""
    pairs: list[tuple[str, str | None]] = []
    for key, target in (mapping or {}).items():
        label = None if str(key) == str(target) else str(key)
        pairs.append((str(target), label))
    return pairs


def _branch(source: str, name: str, pairs: list[tuple[str, str | None]]) -> TopologyBranch:
    seen: dict[str, str | None] = {}
    for target, label in pairs:
        if target not in seen or seen[target] is None:
            seen[target] = label
    return TopologyBranch(source, name, tuple(seen), tuple(seen.values()))


def _action(spec: Any) -> Any:
    if hasattr(spec, "action"):
        return spec.action
    return getattr(spec, "runnable", None)  # LangGraph's StateNodeSpec


def _is_subgraph(action: Any) -> bool:
    return hasattr(action, "builder") and hasattr(action, "interrupt_before_nodes")


def _qualified_name(action: Any) -> str:
    func = getattr(action, "func", None)  # LangGraph's RunnableCallable, functools.partial
    if callable(func) and func is not action:
        return _qualified_name(func)
    for attribute in ("__qualname__", "name", "__name__"):
        value = getattr(action, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(action).__name__
