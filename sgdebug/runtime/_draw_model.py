"""The drawable graph ``get_graph()`` returns, and the builder views the drawing reads.

:class:`DrawableGraph` has the shape of the graph LangGraph hands back (``nodes`` by id, a
list of ``edges``, ``first_node()``/``last_node()``, ``draw_mermaid()``, ``to_json()``)
without importing LangChain, so the debugger and tests read it the same way on both
engines. The ``*Like`` protocols name the only builder fields the drawing depends on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from sgdebug.runtime._draw_parts import CurveStyle, Edge, Node, NodeStyles

__all__ = [
    "BranchSpecLike",
    "BuilderLike",
    "CompiledLike",
    "CompiledNodeLike",
    "CurveStyle",
    "DrawableGraph",
    "Edge",
    "Node",
    "NodeSpecLike",
    "NodeStyles",
]


class NodeSpecLike(Protocol):
    """What the drawing reads from a builder node."""

    @property
    def action(self) -> Any: ...
    @property
    def metadata(self) -> dict[str, Any] | None: ...
    @property
    def defer(self) -> bool: ...
    @property
    def destinations(self) -> tuple[str, ...] | dict[str, str] | None: ...


class BranchSpecLike(Protocol):
    """What the drawing reads from a conditional edge."""

    @property
    def path_map(self) -> dict[Hashable, str] | None: ...


class BuilderLike(Protocol):
    """What the drawing reads from a ``StateGraph`` builder."""

    @property
    def nodes(self) -> Mapping[str, NodeSpecLike]: ...
    @property
    def edges(self) -> Iterable[tuple[str, str]]: ...
    @property
    def waiting_edges(self) -> Iterable[tuple[tuple[str, ...], str]]: ...
    @property
    def branches(self) -> Mapping[str, Mapping[str, BranchSpecLike]]: ...


class CompiledNodeLike(Protocol):
    """What the drawing reads from a compiled graph's node."""

    @property
    def subgraphs(self) -> list[Any]:
        """The compiled graph the node runs, if any (drawn inside it with ``xray``)."""
        ...


class CompiledLike(Protocol):
    """What the drawing reads from a compiled graph."""

    @property
    def builder(self) -> BuilderLike: ...
    @property
    def nodes(self) -> Mapping[str, CompiledNodeLike]: ...
    @property
    def interrupt_before_nodes(self) -> tuple[str, ...] | str: ...
    @property
    def interrupt_after_nodes(self) -> tuple[str, ...] | str: ...


def _is_uuid(value: str) -> bool:
    from uuid import UUID

    try:
        UUID(value)
    except ValueError:
        return False
    return True


@dataclass(slots=True)
class DrawableGraph:
    """Nodes (in drawing order) and edges of a graph program, as ``get_graph()`` sees it."""

    nodes: dict[str, Node] = field(default_factory=dict)
    """Nodes by id, ``__start__`` first, ``__end__`` last when reachable."""
    edges: list[Edge] = field(default_factory=list)
    """Edges in drawing order."""

    def add_node(self, data: Any, id: str, *, metadata: dict[str, Any] | None = None) -> Node:
        """Add and return a node; its name is its id."""
        if id in self.nodes:
            raise ValueError(f"Node with id {id} already exists")
        node = Node(id, id, data, metadata)
        self.nodes[id] = node
        return node

    def add_edge(
        self, source: Node, target: Node, data: str | None = None, conditional: bool = False
    ) -> Edge:
        """Add and return an edge between two nodes of this graph."""
        if source.id not in self.nodes:
            raise ValueError(f"Source node {source.id} not in graph")
        if target.id not in self.nodes:
            raise ValueError(f"Target node {target.id} not in graph")
        edge = Edge(source.id, target.id, data, conditional)
        self.edges.append(edge)
        return edge

    def remove_node(self, node: Node) -> None:
        """Remove ``node`` and every edge touching it."""
        del self.nodes[node.id]
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def extend(self, graph: DrawableGraph, *, prefix: str = "") -> tuple[Node | None, Node | None]:
        """Copy in ``graph``'s nodes and edges with ids ``prefix:id``; its (first, last) nodes."""
        if all(_is_uuid(node.id) for node in graph.nodes.values()):
            prefix = ""

        def prefixed(id_: str) -> str:
            return f"{prefix}:{id_}" if prefix else id_

        for key, node in graph.nodes.items():
            self.nodes[prefixed(key)] = node.copy(id=prefixed(key))
        self.edges.extend(
            e.copy(source=prefixed(e.source), target=prefixed(e.target)) for e in graph.edges
        )
        first, last = graph.first_node(), graph.last_node()
        return (
            first.copy(id=prefixed(first.id)) if first else None,
            last.copy(id=prefixed(last.id)) if last else None,
        )

    def first_node(self, exclude: tuple[str, ...] = ()) -> Node | None:
        """The only node (outside ``exclude``) no edge points to, else ``None``."""
        targets = {e.target for e in self.edges if e.source not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self, exclude: tuple[str, ...] = ()) -> Node | None:
        """The only node (outside ``exclude``) no edge leaves, else ``None``."""
        sources = {e.source for e in self.edges if e.target not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in sources]
        return found[0] if len(found) == 1 else None

    def trim_first_node(self) -> None:
        """Drop the first node when another would become first and it has one edge out."""
        first = self.first_node()
        if (
            first
            and self.first_node(exclude=(first.id,))
            and len({e for e in self.edges if e.source == first.id}) == 1
        ):
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Drop the last node when another would become last and it has one edge in."""
        last = self.last_node()
        if (
            last
            and self.last_node(exclude=(last.id,))
            and len({e for e in self.edges if e.target == last.id}) == 1
        ):
            self.remove_node(last)

    def reid(self) -> DrawableGraph:
        """A copy in which nodes with generated (uuid) ids are renamed after their names."""
        ids_by_name: defaultdict[str, list[str]] = defaultdict(list)
        for node in self.nodes.values():
            ids_by_name[node.name].append(node.id)
        unique = {
            node_id: name if len(ids) == 1 else f"{name}_{i + 1}"
            for name, ids in ids_by_name.items()
            for i, node_id in enumerate(ids)
        }

        def new_id(node_id: str) -> str:
            return unique[node_id] if _is_uuid(node_id) else node_id

        return DrawableGraph(
            {new_id(k): n.copy(id=new_id(k)) for k, n in self.nodes.items()},
            [e.copy(source=new_id(e.source), target=new_id(e.target)) for e in self.edges],
        )

    def draw_ascii(self) -> str:
        """Not supported: LangGraph draws ASCII with ``grandalf``; ``sgdebug graph TARGET``
        draws the graph in the terminal."""
        raise NotImplementedError(
            "draw_ascii() is not supported by sgdebug.runtime yet: `sgdebug graph TARGET` "
            "draws the graph in the terminal, draw_mermaid() gives its Mermaid text"
        )

    def print_ascii(self) -> None:
        """Not supported: see :meth:`draw_ascii`."""
        self.draw_ascii()

    def to_json(self, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
        """LangGraph's JSON view: ``{"nodes": [...], "edges": [...]}`` (see ``_draw_json``).

        ``with_schemas`` only changes schema nodes, which a graph program's drawing has none of.
        """
        from sgdebug.runtime._draw_json import graph_json

        return graph_json(self, is_uuid=_is_uuid)

    def draw_mermaid(
        self,
        *,
        with_styles: bool = True,
        curve_style: CurveStyle | str = CurveStyle.LINEAR,
        node_colors: NodeStyles | None = None,
        wrap_label_n_words: int = 9,
        frontmatter_config: dict[str, Any] | None = None,
    ) -> str:
        """Mermaid flowchart text, byte for byte what LangGraph draws for the same graph."""
        from sgdebug.runtime._draw_mermaid import MermaidOptions, render_mermaid

        graph = self.reid()
        first, last = graph.first_node(), graph.last_node()
        options = MermaidOptions(
            first_node=first.id if first else None,
            last_node=last.id if last else None,
            with_styles=with_styles,
            curve=curve_style if isinstance(curve_style, str) else str(curve_style.value),
            node_styles=node_colors or NodeStyles(),
            wrap_label_n_words=wrap_label_n_words,
            frontmatter_config=frontmatter_config,
        )
        return render_mermaid(graph.nodes, graph.edges, options)
