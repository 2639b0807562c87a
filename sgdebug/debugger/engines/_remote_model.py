"""The model of a graph served by a LangGraph server, built from what the server tells.

A server sends a graph's drawing (``GET /assistants/{id}/graph``, with ``xray`` for the
nodes inside subgraphs) and its JSON schemas, not the graph's code. :class:`RemoteModel`
turns them into the :class:`~sgdebug.inspect.GraphModel` the views read: the nodes, one
channel per state key of the state schema, and a builder-shaped description of the edges
(plain edges, conditional edges with every target the server drew, subgraphs with their
own nodes) that :func:`sgdebug.inspect.topology` lays out as it does a local graph's.

Reducers do not travel over HTTP: every state key is described as a plain value (the server
applies the graph's own reducers to every write and edit).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sgdebug.runtime.channels import LastValue

__all__ = ["Drawing", "DrawnEdge", "RemoteModel"]

START, END = "__start__", "__end__"


@dataclass(frozen=True, slots=True)
class DrawnEdge:
    """One edge of the server's drawing."""

    source: str
    target: str
    conditional: bool = False


@dataclass(frozen=True, slots=True)
class Drawing:
    """The server's drawing of a graph: what ``get_graph()`` gives for a local one."""

    nodes: tuple[str, ...]
    edges: tuple[DrawnEdge, ...]

    def draw_mermaid(self) -> str:
        """A Mermaid flowchart of the drawing (conditional edges dotted)."""
        ids = {name: f"n{i}" for i, name in enumerate(self.nodes)}
        lines = ["graph TD;"]
        for name in self.nodes:
            label = name.strip("_") if name in (START, END) else name
            lines.append(f'\t{ids[name]}["{label}"];')
        for edge in self.edges:
            arrow = "-.->" if edge.conditional else "-->"
            lines.append(f"\t{ids.get(edge.source, edge.source)} {arrow} "
                         f"{ids.get(edge.target, edge.target)};")  # fmt: skip
        return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class _Action:
    """What a node runs, as far as the server tells: its name."""

    name: str


@dataclass(frozen=True, slots=True)
class _NodeSpec:
    action: Any
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _BranchSpec:
    path_map: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class _Builder:
    """The edges of a served graph in the shape ``inspect.topology`` reads a builder."""

    nodes: Mapping[str, _NodeSpec]
    edges: frozenset[tuple[str, str]]
    branches: Mapping[str, Mapping[str, _BranchSpec]]
    waiting_edges: frozenset[tuple[tuple[str, ...], str]] = frozenset()


@dataclass(frozen=True, slots=True)
class _Subgraph:
    """A subgraph node's graph, for ``inspect.topology`` (it has a builder and interrupts)."""

    builder: _Builder
    name: str
    interrupt_before_nodes: tuple[str, ...] = ()
    interrupt_after_nodes: tuple[str, ...] = ()


def drawing_of(data: Mapping[str, Any]) -> Drawing:
    """The server's graph JSON (``{"nodes": [{"id": ...}], "edges": [...]}``) as a drawing."""
    nodes = tuple(str(n["id"]) for n in data.get("nodes") or ())
    edges = tuple(
        DrawnEdge(str(e["source"]), str(e["target"]), bool(e.get("conditional")))
        for e in data.get("edges") or ()
    )
    return Drawing(nodes, edges)


def _builder(nodes: Iterable[str], edges: Iterable[DrawnEdge], subs: Mapping[str, Any]) -> _Builder:
    specs = {n: _NodeSpec(subs.get(n) or _Action(n)) for n in nodes if n not in (START, END)}
    plain = frozenset((e.source, e.target) for e in edges if not e.conditional)
    targets: dict[str, dict[str, str]] = {}
    for edge in edges:
        if edge.conditional:
            targets.setdefault(edge.source, {})[edge.target] = edge.target
    branches = {source: {"": _BranchSpec(found)} for source, found in targets.items()}
    return _Builder(specs, plain, branches)


def _subgraphs(flat: Drawing, xray: Drawing) -> dict[str, _Subgraph]:
    """The subgraph of each node the xray drawing shows the inside of (``node:inner``)."""
    found: dict[str, _Subgraph] = {}
    for node in flat.nodes:
        prefix = f"{node}:"
        inner = [n for n in xray.nodes if n.startswith(prefix)]
        if not inner:
            continue
        names = {n: n[len(prefix) :] for n in inner}
        edges = []
        for e in xray.edges:
            source, target = names.get(e.source), names.get(e.target)
            if source is not None and target is not None:
                edges.append(DrawnEdge(source, target, e.conditional))
            elif target is not None:
                edges.append(DrawnEdge(START, target))
            elif source is not None:
                edges.append(DrawnEdge(source, END))
        unique = tuple(dict.fromkeys(edges))
        found[node] = _Subgraph(_builder(names.values(), unique, {}), node)
    return found


class RemoteModel:
    """The graph model of a served graph (its drawing and state schema)."""

    def __init__(
        self,
        name: str,
        flat: Mapping[str, Any],
        xray: Mapping[str, Any] | None,
        state_schema: Mapping[str, Any] | None,
    ) -> None:
        self.name = name
        self.drawing = drawing_of(flat)
        self.xray = drawing_of(xray) if xray else self.drawing
        self.nodes: tuple[str, ...] = tuple(n for n in self.drawing.nodes if n not in (START, END))
        keys = tuple((state_schema or {}).get("properties") or ())
        self.user_fields: dict[str, Any] = {k: LastValue(Any, k) for k in keys}
        self.channel_specs: dict[str, Any] = dict(self.user_fields)
        self.state_keys = frozenset(keys)
        self.stream_keys: str | tuple[str, ...] = keys
        self.builder = _builder(self.drawing.nodes, self.drawing.edges,
                                _subgraphs(self.drawing, self.xray))  # fmt: skip
        self.state_schema: Any = None
        """No Python class: the server holds the schema (edits are checked there)."""
        self.interrupt_before_nodes: tuple[str, ...] = ()
        self.interrupt_after_nodes: tuple[str, ...] = ()

    def get_graph(self, xray: bool | int = False) -> Drawing:
        return self.xray if xray else self.drawing

    def input_keys(self, node: str) -> frozenset[str] | None:
        return None
