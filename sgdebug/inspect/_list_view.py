"""The list view of a graph: one line per node with where its edges go.

Used when a drawing would not fit the area (and on request). Lines never exceed the width;
a node whose edges do not fit on one line continues on indented lines. Each node's name is
its "box", so a front end colours nodes by status in this view too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from sgdebug.inspect._drawn import Box, Drawing, DrawnEdge, DrawnNode
from sgdebug.inspect._scene import Scene, SceneEdge

__all__ = ["list_view"]

_ARROWS: Final[dict[str, str]] = {
    "plain": "──▶",
    "join": "─◆▶",
    "conditional": "┄┄▶",
    "dynamic": "┄┄▶",
}
_NAME_COLUMN_MAX: Final = 24


@dataclass(slots=True)
class _Writer:
    """Lines being written, with the cells of each edge's target name."""

    width: int
    indent: int
    lines: list[str] = field(default_factory=list)
    cells: dict[int, list[tuple[int, int]]] = field(default_factory=dict)

    def start(self, text: str) -> None:
        fits = len(text) <= self.width
        self.lines.append(text if fits else _cut(text.rstrip(), self.width))  # (not its padding)

    def add(self, parts: list[tuple[str, int | None]]) -> None:
        """Append a group of (text, edge) parts, on a new indented line if it does not fit."""
        size = sum(len(text) for text, _ in parts) + 1
        here = len(self.lines[-1])
        if here + size > self.width:
            # on a new line, indented less when that lets the group fit whole (a narrow
            # pane); one that fits nowhere stays on a short line, else goes to a line of
            # its own unindented (its targets cut as little as can be)
            indent = min(self.indent, self.width - size)
            if indent < 0:
                indent = 0 if here > self.indent else here
            if here > indent:
                self.lines.append(" " * indent)
        line = self.lines[-1] + " "
        for text, edge in parts:
            shown = _fit(text, self.width - len(line), edge is not None)
            if edge is not None and shown:
                y = len(self.lines) - 1
                self.cells.setdefault(edge, []).extend(
                    (len(line) + i, y) for i in range(len(shown))
                )
            line += shown
        self.lines[-1] = _cut(line, self.width)


def _fit(text: str, room: int, target: bool) -> str:
    """``text`` in ``room`` cells: whole, or cut with ``…`` (an edge's target that is a
    node path keeps its last parts, the node's own name: ``…/summarize``)."""
    if len(text) <= room:
        return text
    if room <= 0:
        return ""
    if target and "/" in text:
        parts = text.split("/")
        for start in range(1, len(parts)):
            tail = "…/" + "/".join(parts[start:])
            if len(tail) <= room:
                return tail
    return text[: room - 1] + "…"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def list_view(scene: Scene, flags: list[str], width: int) -> Drawing:
    """The list view of ``scene``; ``flags`` are notes shown after each node's name."""
    width = max(width, 8)
    real = [i for i, name in enumerate(scene.names) if name]
    column = min(_NAME_COLUMN_MAX, max((len(scene.labels[i]) for i in real), default=0))
    writer = _Writer(width, min(column, width // 2))
    nodes: list[DrawnNode] = []
    for item in real:
        label = scene.labels[item]
        y = len(writer.lines)
        writer.start(label.ljust(column) + (f" {flags[item]}" if flags[item] else ""))
        nodes.append(DrawnNode(scene.names[item], label, Box(0, y, min(len(label), width), 1)))
        for parts in _groups(scene, item):
            writer.add(parts)
    edges = tuple(
        DrawnEdge(
            scene.names[e.source],
            scene.names[e.target],
            e.kind,
            False,
            scene.labels[e.target] if e.kind == "dynamic" else e.label,
            tuple(writer.cells.get(i, ())),
        )
        for i, e in enumerate(scene.edges)
    )
    lines = tuple(line.rstrip() for line in writer.lines)
    return Drawing(lines, max(map(len, lines), default=0), len(lines), tuple(nodes), edges, "list")


def _groups(scene: Scene, item: int) -> list[list[tuple[str, int | None]]]:
    """Parts of each group of edges leaving ``item``: an arrow, targets, a note."""
    by_kind: dict[tuple[str, tuple[str, ...], str], list[tuple[int, SceneEdge]]] = {}
    for index, edge in enumerate(scene.edges):
        if edge.source == item:
            key = (edge.kind, edge.join, edge.branch or "")
            by_kind.setdefault(key, []).append((index, edge))
    groups: list[list[tuple[str, int | None]]] = []
    for (kind, join, branch), edges in by_kind.items():
        parts: list[tuple[str, int | None]] = [(_ARROWS[kind] + " ", None)]
        for n, (index, edge) in enumerate(edges):
            if n:
                parts.append((", ", None))
            if edge.label:
                parts.append((f"{edge.label}→", None))
            parts.append((scene.labels[edge.target], index))
        if join:
            parts.append((f" (waits for {' + '.join(join)})", None))
        elif branch:
            parts.append((f" ({branch})", None))
        groups.append(parts)
    return groups
