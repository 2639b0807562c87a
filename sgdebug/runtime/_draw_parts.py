"""The parts of a drawable graph: nodes, edges, and the Mermaid styles they are drawn with."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, NamedTuple

__all__ = ["CurveStyle", "Edge", "Node", "NodeStyles"]


class Node(NamedTuple):
    """One box of the drawing."""

    id: str
    """Unique id; ``prefix:id`` for nodes pulled in from a subgraph (``xray``)."""
    name: str
    """The text shown in the box."""
    data: Any
    """The node's action (a function or a compiled subgraph); ``None`` for start and end."""
    metadata: dict[str, Any] | None
    """User metadata plus ``defer``/``__interrupt`` marks; ``None`` when empty."""

    def copy(self, *, id: str | None = None, name: str | None = None) -> Node:
        """This node with a new id and/or name."""
        return Node(id or self.id, name or self.name, self.data, self.metadata)


class Edge(NamedTuple):
    """One arrow of the drawing."""

    source: str
    """Id of the node the arrow leaves."""
    target: str
    """Id of the node the arrow enters."""
    data: str | None = None
    """Label (a path-map key different from the target's name), or ``None``."""
    conditional: bool = False
    """Drawn dotted: the arrow is taken only when a branch or a ``Command`` chooses it."""

    def copy(self, *, source: str | None = None, target: str | None = None) -> Edge:
        """This edge with a new source and/or target."""
        return Edge(source or self.source, target or self.target, self.data, self.conditional)


class CurveStyle(Enum):
    """Mermaid's edge curve styles."""

    BASIS = "basis"
    BUMP_X = "bumpX"
    BUMP_Y = "bumpY"
    CARDINAL = "cardinal"
    CATMULL_ROM = "catmullRom"
    LINEAR = "linear"
    MONOTONE_X = "monotoneX"
    MONOTONE_Y = "monotoneY"
    NATURAL = "natural"
    STEP = "step"
    STEP_AFTER = "stepAfter"
    STEP_BEFORE = "stepBefore"


@dataclass(frozen=True, slots=True)
class NodeStyles:
    """Mermaid ``classDef`` styles of ordinary, first and last nodes."""

    default: str = "fill:#f2f0ff,line-height:1.2"
    """Style of every node."""
    first: str = "fill-opacity:0"
    """Style of the unique node nothing points to (``__start__``)."""
    last: str = "fill:#bfb6fc"
    """Style of the unique node that points nowhere (``__end__``)."""
