"""A graph drawn in a terminal: boxes, lines and arrows on a grid of character cells.

:func:`draw` lays a :class:`~sgdebug.inspect.topology.Topology` out in layers, top to
bottom (see :mod:`sgdebug.inspect.layout`), and paints it with box-drawing characters:

* boxes: ``┌─┐`` a function node, ``╔═╗`` a subgraph, ``╓─╖`` a function node that calls
  a compiled graph, ``┌╌┐`` a deferred node, ``╭─╮`` START and END; the text ``? name``
  stands for a branch with no known targets;
* lines: solid ``─│`` edges that are always taken, dotted ``┄┆`` conditional ones; a
  node's edges of one kind leave as one tree and arrive as one bundle with one arrow;
  the sources of a join meet in a ``◆`` before the join's arrow; a crossing shows the
  vertical line passing over the horizontal one (``┼`` is always a junction);
* arrows: ``▼`` into the top of a box; ``▲`` into its bottom for an edge that closes a
  loop (it leaves its source's top, ``┴``, and goes up); a self-loop leaves the box's
  right side and comes back in through its top (in one-row boxes it is marked ``┄↻``
  beside the box instead, ``─↻`` when always taken);
* a path-map key that differs from its target's name is written beside the arrow when
  there is room.

It first tries 3-row boxes, then one-row ``[ name ]`` boxes (the spaces inside the
brackets leave room for a front end's status and breakpoint marks, as the borders of a
3-row box do), and when neither fits the area (or the graph is too big to lay out
quickly) it gives the list view: one line per node with its edges. Node and edge cells
are given so a front end can colour them.
"""

from __future__ import annotations

from typing import Final

from sgdebug.inspect._drawn import Box, Drawing, DrawingMode, DrawnEdge, DrawnEdgeKind, DrawnNode
from sgdebug.inspect._list_view import list_view
from sgdebug.inspect._painter import paint_scene
from sgdebug.inspect._scene import BoxStyle, build_scene, ports
from sgdebug.inspect.layout import layer_count, layer_graph
from sgdebug.inspect.topology import Topology, TopologyNode

__all__ = [
    "LEGEND",
    "MAX_DRAWN_NODES",
    "Box",
    "Drawing",
    "DrawingMode",
    "DrawnEdge",
    "DrawnEdgeKind",
    "DrawnNode",
    "draw",
    "draw_list",
    "legend_for",
]

LEGEND: Final[tuple[tuple[str, str], ...]] = (
    ("──▶", "always taken"),
    ("┄┄▶", "conditional"),
    ("─◆─", "join: waits for all"),
    ("▲", "loops back"),
    ("↻", "loops to itself (one-row boxes)"),
    ("? name", "dynamic branch"),
    ("╔═╗", "subgraph"),
    ("╓─╖", "calls a subgraph"),
    ("┌╌┐", "deferred"),
)
"""(symbol, meaning) pairs a front end can show next to a drawing."""
_LEGEND_GLYPHS: Final[dict[str, str]] = {
    "┄┄▶": "┄┆",
    "─◆─": "◆",
    "▲": "▲",
    "↻": "↻",
    "╔═╗": "╔",
    "╓─╖": "╓",
    "┌╌┐": "╌",
}
"""The cells that show a legend entry is in use (plain edges need no words)."""

MAX_DRAWN_NODES: Final = 120
"""Graphs with more nodes (or dynamic branches) go straight to the list view."""
_MAX_EDGES: Final = 400


def legend_for(drawing: Drawing) -> tuple[tuple[str, str], ...]:
    """The :data:`LEGEND` entries whose marks ``drawing`` uses (none for a list)."""
    if drawing.mode == "list":
        return ()
    text = drawing.text
    return tuple(
        (symbol, meaning)
        for symbol, meaning in LEGEND
        if any(cell in text for cell in _LEGEND_GLYPHS.get(symbol, ""))
    )


def draw(
    topology: Topology,
    width: int = 100,
    height: int = 40,
    *,
    modes: tuple[DrawingMode, ...] = ("boxes", "compact"),
) -> Drawing:
    """The graph drawn to fit ``width`` x ``height`` cells, or its list view if it cannot.

    ``modes`` are tried in order (``"boxes"``, ``"compact"``); the list view is the last
    resort, and is returned at once when ``modes`` is ``("list",)``. The result is the
    same for the same topology, area and modes. A drawing never has overlapping boxes or
    lines; a list view never has a line wider than ``width`` (it may be taller than
    ``height``: it is meant to scroll).
    """
    scene = build_scene(topology)
    edges = [(e.source, e.target) for e in scene.edges]
    styles = _styles(modes)
    small = len(scene.names) <= MAX_DRAWN_NODES and len(edges) <= _MAX_EDGES
    # Even compact boxes need a row per layer and a row between layers.
    if styles and small and 2 * layer_count(len(scene.names), edges) - 1 <= height:
        layering = layer_graph(len(scene.names), edges)
        for style in styles:
            found = ports(scene, layering, loops=style == "boxes")
            drawing = paint_scene(scene, layering, found, style)
            if drawing is not None and drawing.width <= width and drawing.height <= height:
                return drawing
    return draw_list(topology, width)


def draw_list(topology: Topology, width: int = 100) -> Drawing:
    """The list view: a line per node (more when its edges wrap), at most ``width`` wide.

    ``width`` is taken as at least 8. ``──▶`` plain edges, ``─◆▶`` the edge of a join
    (with the sources it waits for), ``┄┄▶`` conditional edges (with the branch name;
    ``key→target`` when a path-map key differs from the target; ``? name`` for a branch
    with no known targets).
    """
    scene = build_scene(topology)
    flags = [_flags(node) for node in topology.nodes]
    flags += [""] * (len(scene.names) - len(flags))
    return list_view(scene, flags, width)


def _styles(modes: tuple[DrawingMode, ...]) -> list[BoxStyle]:
    """The box styles to try: ``modes`` up to the first ``"list"``."""
    styles: list[BoxStyle] = []
    for mode in modes:
        if mode == "list":
            break
        styles.append(mode)
    return styles


def _flags(node: TopologyNode) -> str:
    notes = []
    if node.kind == "subgraph":
        notes.append("subgraph")
    if node.calls:
        notes.append("calls a subgraph")
    if node.deferred:
        notes.append("deferred")
    if node.interrupt_before:
        notes.append("interrupt before")
    if node.interrupt_after:
        notes.append("interrupt after")
    return f"[{', '.join(notes)}]" if notes else ""
