"""Paint an ``sgdebug.inspect`` drawing with node status: glyphs, colours, the selection.

Colour is never the only mark: every status has a glyph drawn into the node's box (its
top-left border in 3-row boxes, the space inside the opening bracket in one-row boxes,
``[✓ name ]``, a gutter in the list view), and breakpoints are ``●`` (top-right border:
before; bottom-right: after; in one-row boxes the space inside the closing bracket).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text

from sgdebug.debugger.frame import NodeState, NodeStatus
from sgdebug.inspect import Drawing, DrawnNode
from sgdebug.inspect.drawing import legend_for

__all__ = [
    "BREAK_GLYPH",
    "LEGEND",
    "LIST_GUTTER",
    "STATUS_GLYPH",
    "STATUS_WORD",
    "Palette",
    "edge_legend",
    "paint",
]

STATUS_GLYPH: Mapping[NodeStatus, str] = {
    "pending": "»",
    "running": "▶",
    "done": "✓",
    "ran": "✓",
    "error": "✗",
    "finished": "■",
}
"""The glyph drawn on a node for its status (``idle`` has none)."""
STATUS_WORD: Mapping[NodeStatus, str] = {
    "idle": "idle",
    "pending": "next",
    "running": "running",
    "done": "ran, not committed",
    "ran": "ran last step",
    "error": "raised",
    "finished": "run finished",
}
BREAK_GLYPH = "●"
LEGEND = "» next ▶ run ✓ ran\n✗ error ● break ■ end"
_SHORT_LEGEND = {"┄┄▶": "┄ branch", "▲": "▲ back", "↻": "↻ self"}
"""The edge marks the narrow graph pane names, in its own short words."""
LIST_GUTTER = 3
"""Columns :func:`paint` puts before a list view's lines, for the status glyphs and marks."""
_BORDER = frozenset("─═╌━┄╭╮╰╯┌┐└┘╔╗╚╝")
_BRACKETS = frozenset("[](){}")
_PAD = frozenset(" ")
"""The cells inside a one-row box's brackets that take its marks (``[ name ]``)."""


@dataclass(frozen=True, slots=True)
class Palette:
    """Rich styles for each status, the selected node and breakpoint marks."""

    status: Mapping[NodeStatus, Style] = field(default_factory=dict)
    selected: Style = field(default_factory=lambda: Style(reverse=True))
    breakpoint: Style = field(default_factory=lambda: Style(color="red", bold=True))


def paint(
    drawing: Drawing,
    states: Mapping[str, NodeState],
    selected: str | None = None,
    palette: Palette | None = None,
) -> Text:
    """The drawing as styled text, with status glyphs and breakpoint marks."""
    palette = palette or Palette()
    gutter = LIST_GUTTER if drawing.mode == "list" else 0
    width = drawing.width + gutter
    grid = [list((" " * gutter + line).ljust(width)) for line in drawing.lines]
    marks: list[tuple[int, int, Style]] = []
    for node in drawing.nodes:
        state = states.get(node.name, NodeState(node.name, "idle"))
        for x, y in _mark(grid, node, state, gutter):
            marks.append((x, y, palette.breakpoint))
    text = Text()
    for y, row in enumerate(grid):
        line = Text("".join(row).rstrip())
        for node in drawing.nodes:
            box = node.box
            if not box.y <= y < box.y + box.h:
                continue
            state = states.get(node.name, NodeState(node.name, "idle"))
            start, end = box.x + gutter, box.x + gutter + box.w
            style = palette.status.get(state.status)
            if style is not None:
                line.stylize(style, start, end)
            if node.name == selected:
                line.stylize(palette.selected, start, end)
        for x, my, style in marks:
            if my == y:
                line.stylize(style, x, x + 1)
        if y:
            text.append("\n")
        text.append_text(line)
    return text


def _mark(
    grid: list[list[str]], node: DrawnNode, state: NodeState, gutter: int
) -> list[tuple[int, int]]:
    """Write the status glyph and breakpoint marks; the cells of the marks."""
    glyph = STATUS_GLYPH.get(state.status)
    box = node.box
    x, y, w = box.x + gutter, box.y, box.w
    cells: list[tuple[int, int]] = []
    if gutter:  # the list view: a gutter before the node's line
        if glyph:
            grid[y][0] = glyph
        if state.before or state.after:
            grid[y][1] = BREAK_GLYPH
            cells.append((1, y))
        return cells
    if box.h >= 3:
        _put(grid, x + 1, y, glyph, _BORDER)
        if state.before and _put(grid, x + w - 2, y, BREAK_GLYPH, _BORDER):
            cells.append((x + w - 2, y))
        if state.after and _put(grid, x + w - 2, y + box.h - 1, BREAK_GLYPH, _BORDER):
            cells.append((x + w - 2, y + box.h - 1))
        return cells
    left, right = x, x + w - 1
    while left < right and grid[y][left] in _BRACKETS:
        left += 1
    while right > left and grid[y][right] in _BRACKETS:
        right -= 1
    _put(grid, left, y, glyph, _PAD)
    if (state.before or state.after) and _put(grid, right, y, BREAK_GLYPH, _PAD):
        cells.append((right, y))
    return cells


def _put(grid: list[list[str]], x: int, y: int, glyph: str | None, allowed: frozenset[str]) -> bool:
    """Write ``glyph`` at (x, y) if that cell holds one of ``allowed``."""
    if glyph is None or not (0 <= y < len(grid) and 0 <= x < len(grid[y])):
        return False
    if grid[y][x] not in allowed:
        return False
    grid[y][x] = glyph
    return True


def edge_legend(drawing: Drawing) -> str:
    """The edge marks ``drawing`` uses that need explaining, on one line ('' if none)."""
    used = legend_for(drawing)
    return " ".join(_SHORT_LEGEND[symbol] for symbol, _ in used if symbol in _SHORT_LEGEND)
