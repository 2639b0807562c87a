"""The frozen result of drawing a graph: lines of text and where each node and edge is."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["JOIN_GLYPH", "Box", "DrawingMode", "DrawnEdge", "DrawnEdgeKind", "DrawnNode", "Drawing"]

JOIN_GLYPH = "◆"
"""Where the sources of a join meet (not ``●``, which front ends use for breakpoints)."""

DrawingMode = Literal["boxes", "compact", "list"]
"""``boxes``: 3-row boxes; ``compact``: one-row ``[ name ]`` boxes; ``list``: a text list."""
DrawnEdgeKind = Literal["plain", "join", "conditional", "dynamic"]
"""An edge's kind in the topology, or ``dynamic`` for a branch with no known targets."""


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle of cells: columns ``x .. x + w - 1``, rows ``y .. y + h - 1``."""

    x: int
    """Leftmost column."""
    y: int
    """Top row."""
    w: int
    """Width in cells."""
    h: int
    """Height in cells."""

    def contains(self, x: int, y: int) -> bool:
        """Whether the cell is inside the box."""
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h

    def touches(self, x: int, y: int) -> bool:
        """Whether the cell is outside the box and shares a side with one of its cells."""
        if self.contains(x, y):
            return False
        inside_x = self.x <= x < self.x + self.w
        inside_y = self.y <= y < self.y + self.h
        return (inside_x and y in (self.y - 1, self.y + self.h)) or (
            inside_y and x in (self.x - 1, self.x + self.w)
        )

    def overlaps(self, other: Box) -> bool:
        """Whether the two boxes share a cell."""
        return (
            self.x < other.x + other.w
            and other.x < self.x + self.w
            and self.y < other.y + other.h
            and other.y < self.y + self.h
        )


@dataclass(frozen=True, slots=True)
class DrawnNode:
    """A node of the drawing and the cells of its box (colour them by the node's status)."""

    name: str
    """The topology node's name (``"__start__"``, ``"__end__"`` for the virtual nodes)."""
    label: str
    """The text shown in the box (``START`` / ``END`` for the virtual nodes)."""
    box: Box
    """The node's cells, border included (in list view: its name on its line)."""


@dataclass(frozen=True, slots=True)
class DrawnEdge:
    """An edge of the drawing and the cells of its line (colour them with its source)."""

    source: str
    """Name of the node it leaves."""
    target: str
    """Name of the node it enters; ``""`` for a dynamic branch (its cells end in ``? name``)."""
    kind: DrawnEdgeKind
    """How it is taken: ``plain`` and ``join`` edges are solid, the others dotted."""
    back: bool
    """It goes back up (it closes a loop, or is a self-loop): its arrow points up or sideways."""
    label: str | None
    """Text for the edge: the path-map key choosing it when it differs from the target's
    name, or ``? name`` (the branch's name) for a dynamic branch."""
    cells: tuple[tuple[int, int], ...]
    """Its line's ``(x, y)`` cells, from the one touching the source's box to the arrow
    touching the target's box (or the ``? name`` text); cells shared with other edges of
    the same fan-out, join or bundle appear in each of them. A self-loop of a one-row box
    is two cells beside the box: its line, then ``↻``."""
    label_at: tuple[int, int] | None = None
    """Where ``label`` is written (its first cell; it runs rightwards), ``None`` if it is
    not shown (no room beside the arrow, or the list view)."""


@dataclass(frozen=True, slots=True)
class Drawing:
    """A graph drawn on a grid of character cells."""

    lines: tuple[str, ...]
    """The rows of text, without trailing spaces."""
    width: int
    """Number of columns used (no line is longer)."""
    height: int
    """Number of rows (``len(lines)``)."""
    nodes: tuple[DrawnNode, ...]
    """Every node of the topology, in topology order."""
    edges: tuple[DrawnEdge, ...]
    """One per (source, target) pair of the topology, plus one per dynamic branch."""
    mode: DrawingMode
    """How the graph was drawn; ``list`` when a drawing would not fit the area."""

    @property
    def text(self) -> str:
        """The lines joined with newlines."""
        return "\n".join(self.lines)

    def node(self, name: str) -> DrawnNode:
        """The drawn node called ``name``; ``KeyError`` if absent."""
        for node in self.nodes:
            if node.name == name:
                return node
        raise KeyError(name)

    def node_at(self, x: int, y: int) -> DrawnNode | None:
        """The node whose box holds the cell, for mouse clicks."""
        for node in self.nodes:
            if node.box.contains(x, y):
                return node
        return None
