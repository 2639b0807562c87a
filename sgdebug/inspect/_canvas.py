"""A grid of cells that edges and boxes are painted on, turned into lines of text.

Edges are painted as *directions* per cell (north, south, east, west) and per net (the
edges that share a line); the character of a cell is chosen at the end from the union of
its directions, so corners and junctions come out right whatever the painting order. Where
two nets meet in one cell, only a plain crossing (one vertical, one horizontal) is allowed:
it is drawn as the vertical line passing over the horizontal one, so a crossing never looks
like a junction. Any other meeting is counted as a collision; a drawing with collisions is
not shown.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Final, Literal

__all__ = ["EAST", "NORTH", "SOUTH", "WEST", "Canvas", "Style"]

Style = Literal["solid", "dotted"]

NORTH: Final = 1
SOUTH: Final = 2
EAST: Final = 4
WEST: Final = 8
_VERTICAL: Final = NORTH | SOUTH
_HORIZONTAL: Final = EAST | WEST

_SOLID: Final[dict[int, str]] = {
    NORTH: "│",
    SOUTH: "│",
    _VERTICAL: "│",
    EAST: "─",
    WEST: "─",
    _HORIZONTAL: "─",
    SOUTH | EAST: "╭",
    SOUTH | WEST: "╮",
    NORTH | EAST: "╰",
    NORTH | WEST: "╯",
    _VERTICAL | EAST: "├",
    _VERTICAL | WEST: "┤",
    _HORIZONTAL | SOUTH: "┬",
    _HORIZONTAL | NORTH: "┴",
    _VERTICAL | _HORIZONTAL: "┼",
}
_DOTTED: Final[dict[int, str]] = {
    **_SOLID,
    NORTH: "┆",
    SOUTH: "┆",
    _VERTICAL: "┆",
    EAST: "┄",
    WEST: "┄",
    _HORIZONTAL: "┄",
}


class Canvas:
    """A mutable cell grid, private to one drawing call."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._fixed: dict[tuple[int, int], str] = {}
        self._lines: dict[tuple[int, int], dict[Hashable, tuple[int, Style]]] = {}
        self._marks: dict[tuple[int, int], str] = {}
        self.collisions = 0

    def inside(self, x: int, y: int) -> bool:
        """Whether the cell is on the canvas."""
        return 0 <= x < self.width and 0 <= y < self.height

    def text(self, x: int, y: int, text: str) -> None:
        """Write fixed characters (box borders, labels) from ``(x, y)`` rightwards."""
        for offset, char in enumerate(text):
            cell = (x + offset, y)
            if cell in self._lines or (cell in self._fixed and self._fixed[cell] != char):
                self.collisions += 1
            self._fixed[cell] = char

    def is_blank(self, x: int, y: int) -> bool:
        """Nothing is painted on the cell."""
        cell = (x, y)
        return self.inside(x, y) and cell not in self._fixed and cell not in self._lines

    def line(self, net: Hashable, x: int, y: int, dirs: int, style: Style) -> None:
        """Add ``dirs`` to the cell's line of ``net``."""
        cell = (x, y)
        if cell in self._fixed:
            self.collisions += 1
            return
        nets = self._lines.setdefault(cell, {})
        old, _ = nets.get(net, (0, style))
        nets[net] = (old | dirs, style)

    def vertical(self, net: Hashable, x: int, top: int, bottom: int, style: Style) -> None:
        """A vertical line of ``net`` from row ``top`` to row ``bottom`` (inclusive)."""
        if top == bottom:
            self.line(net, x, top, _VERTICAL, style)
            return
        for y in range(top, bottom + 1):
            dirs = (NORTH if y > top else 0) | (SOUTH if y < bottom else 0)
            self.line(net, x, y, dirs, style)

    def horizontal(self, net: Hashable, y: int, left: int, right: int, style: Style) -> None:
        """A horizontal line of ``net`` on row ``y`` from ``left`` to ``right`` (inclusive)."""
        for x in range(left, right + 1):
            dirs = (WEST if x > left else 0) | (EAST if x < right else 0)
            self.line(net, x, y, dirs, style)

    def mark(self, x: int, y: int, char: str) -> None:
        """Show ``char`` instead of the line drawn on the cell (an arrow, a join dot)."""
        self._marks[(x, y)] = char

    def render(self) -> tuple[str, ...]:
        """The grid as lines of text, trailing spaces removed; counts collisions."""
        rows = [[" "] * self.width for _ in range(self.height)]
        for (x, y), char in self._fixed.items():
            if self.inside(x, y):
                rows[y][x] = char
        for (x, y), nets in self._lines.items():
            if self.inside(x, y):
                rows[y][x] = self._line_char(nets)
        for (x, y), char in self._marks.items():
            if self.inside(x, y):
                rows[y][x] = char
        return tuple("".join(row).rstrip() for row in rows)

    def _line_char(self, nets: dict[Hashable, tuple[int, Style]]) -> str:
        if len(nets) == 1:
            ((dirs, style),) = nets.values()
            return (_DOTTED if style == "dotted" else _SOLID)[dirs]
        verticals = [s for d, s in nets.values() if d & _VERTICAL and not d & _HORIZONTAL]
        horizontals = [d for d, _ in nets.values() if d & _HORIZONTAL and not d & _VERTICAL]
        if len(nets) == 2 and len(verticals) == 1 and len(horizontals) == 1:
            return "┆" if verticals[0] == "dotted" else "│"
        self.collisions += 1
        return "┼"
