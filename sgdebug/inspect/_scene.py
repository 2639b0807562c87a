"""The graph to draw, as indexed boxes and edges, with the ports where edges meet boxes.

A :class:`Scene` is built once per drawing from a topology: one item per node (plus a small
text item per dynamic branch, standing for "any node"), one edge per (source, target) pair,
and how each box looks in the two box styles. :func:`ports` then decides, for the layering
found, the columns on each box's top and bottom side where edges attach:

* a node's forward edges of one style leave from one shared port (a fan-out tree);
* a node's incoming edges of one style arrive through one shared port and one arrow (a
  bundle), except an edge that already belongs to a fan-out tree at its other end;
* the sources of a join enter the target through one shared port (with a dot);
* a node's edges that loop back up leave from one shared port on its top side, and the
  loops into a node arrive through one shared ``▲`` on its bottom side, likewise;
* a self-loop enters through its own port on the top side, rightmost (3-row boxes only:
  a compact box has its self-loop marked beside it, ``]┄↻``).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Final, Literal

from sgdebug.inspect._canvas import Style
from sgdebug.inspect.layout import Layering
from sgdebug.inspect.topology import END, START, Topology, TopologyNode

__all__ = ["BoxStyle", "Scene", "SceneEdge", "build_scene", "ports"]

BoxStyle = Literal["boxes", "compact"]
DrawnEdgeKind = Literal["plain", "join", "conditional", "dynamic"]
Side = Literal["top", "bottom"]
PortKey = tuple[str, Hashable]

_RANK: Final[dict[tuple[str, str], int]] = {
    ("bottom", "in"): 0,
    ("bottom", "out"): 1,
    ("bottom", "join"): 1,
    ("top", "out"): 0,
    ("top", "in"): 1,
    ("top", "join"): 1,
    ("top", "loop"): 2,
}
"""Among ports facing the same neighbour: loops back up on the left, forward edges right."""
_PRIORITY: Final[dict[str, int]] = {"plain": 0, "join": 1, "conditional": 2}
_LABELS: Final[dict[str, str]] = {START: "START", END: "END"}
_BORDERS: Final[dict[str, str]] = {
    # top-left, top, top-right, side, bottom-left, bottom, bottom-right, down, up, right
    "function": "┌─┐│└─┘┬┴├",
    "subgraph": "╔═╗║╚═╝╤╧╟",
    "calls": "╓─╖║╙─╜┬┴╟",
    "deferred": "┌╌┐╎└╌┘┬┴├",
    "start": "╭─╮│╰─╯┬┴├",
    "end": "╭─╮│╰─╯┬┴├",
}
_COMPACT: Final[dict[str, tuple[str, str]]] = {
    "function": ("[", "]"),
    "subgraph": ("[[", "]]"),
    "calls": ("[[", "]]"),
    "deferred": ("{", "}"),
    "start": ("(", ")"),
    "end": ("(", ")"),
}


@dataclass(frozen=True, slots=True)
class SceneEdge:
    """One drawn edge between two scene items."""

    source: int
    """Index of the source item."""
    target: int
    """Index of the target item."""
    kind: DrawnEdgeKind
    """How the edge is taken (``dynamic``: to the stand-in of a dynamic branch)."""
    label: str | None
    """Path-map key to show beside the arrow, if it differs from the target's name."""
    join: tuple[str, ...]
    """For a join edge, the sources of its join."""
    branch: str | None = None
    """For a conditional edge, its path function's name."""

    @property
    def style(self) -> Style:
        """Solid for edges always taken, dotted for chosen ones."""
        return "dotted" if self.kind in ("conditional", "dynamic") else "solid"


@dataclass(frozen=True, slots=True)
class Scene:
    """Items (nodes, then stand-ins for dynamic branches) and the edges between them."""

    names: tuple[str, ...]
    """Node name of each item (``""`` for a stand-in)."""
    labels: tuple[str, ...]
    """Text shown for each item."""
    kinds: tuple[str, ...]
    """``start``, ``end``, ``function``, ``subgraph``, ``calls`` (a function that calls a
    compiled graph), ``deferred`` or ``stub``."""
    edges: tuple[SceneEdge, ...]
    """Edges, in the topology's order."""

    def box_text(self, item: int, width: int = 0) -> str:
        """The one-line text of an item (``[ name ]``), its brackets ``width`` apart.

        The label has at least a space on each side inside the brackets: room for a
        front end's marks (a status glyph on the left, a breakpoint on the right).
        """
        label = self.labels[item]
        if self.kinds[item] == "stub":
            return label
        left, right = _COMPACT[self.kinds[item]]
        inner = max(len(label) + 2, width - len(left) - len(right))
        return left + (" " * ((inner - len(label)) // 2) + label).ljust(inner) + right

    def min_width(self, item: int, style: BoxStyle) -> int:
        """Width of the item's box before ports are counted."""
        if style == "compact" or self.kinds[item] == "stub":
            return len(self.box_text(item))
        return len(self.labels[item]) + 4

    def borders(self, item: int) -> str:
        """Border characters of a boxed item (see ``_BORDERS``)."""
        return _BORDERS[self.kinds[item]]


def build_scene(topo: Topology) -> Scene:
    """The items and edges to draw for ``topo``."""
    names = list(topo.names)
    index = {name: i for i, name in enumerate(names)}
    labels = [_LABELS.get(name, _printable(name)) for name in names]
    kinds = [_kind(node) for node in topo.nodes]
    best: dict[tuple[int, int], SceneEdge] = {}
    for edge in topo.edges:
        pair = (index[edge.source], index[edge.target])
        drawn = SceneEdge(*pair, edge.kind, edge.label, edge.join, edge.branch)
        if pair not in best or _PRIORITY[edge.kind] < _PRIORITY[best[pair].kind]:
            best[pair] = drawn
    edges = list(best.values())
    for branch in topo.branches:
        if branch.dynamic:
            names.append("")
            labels.append(f"? {branch.name}" if branch.name else "?")
            kinds.append("stub")
            stub = SceneEdge(index[branch.source], len(names) - 1, "dynamic", None, ())
            edges.append(stub)
            to_end = (index[branch.source], index.get(END, -1))
            if to_end[1] >= 0 and to_end not in best:  # END is always among its choices
                best[to_end] = SceneEdge(*to_end, "conditional", None, (), branch.name or None)
                edges.append(best[to_end])
    return Scene(tuple(names), tuple(labels), tuple(kinds), tuple(edges))


def _printable(name: str) -> str:
    """``name`` with every character that is not one terminal cell wide shown as ``?``.

    Control characters, combining marks and wide (East Asian, emoji) characters would
    shift the cells after them; a drawing must keep one character per cell.
    """
    return "".join(
        char
        if char.isprintable()
        and not unicodedata.combining(char)
        and unicodedata.east_asian_width(char) not in ("W", "F")
        else "?"
        for char in name
    )


def _kind(node: TopologyNode) -> str:
    """How a node's box is drawn: a plain node that calls a compiled graph as a subgraph
    with single rules (its run is one task, as a subgraph node's), a deferred one dashed."""
    if node.kind != "function":
        return node.kind
    return "deferred" if node.deferred else "calls" if node.calls else "function"


@dataclass(frozen=True, slots=True)
class Ports:
    """Where every edge attaches to the boxes of a layering."""

    keys: dict[tuple[int, Side], tuple[PortKey, ...]]
    """Port keys of each (node, side), left to right."""
    edge_keys: dict[tuple[int, Side], PortKey]
    """Port key of each (edge, end): ``top`` = its upper end, ``bottom`` = its lower end."""
    sizes: dict[tuple[int, Side, PortKey], int]
    """How many edges attach at each port."""

    def count(self, item: int, side: Side) -> int:
        """Number of ports on a side of a node."""
        return len(self.keys.get((item, side), ()))

    def size(self, item: int, side: Side, key: PortKey) -> int:
        """How many edges attach at the port."""
        return self.sizes.get((item, side, key), 0)


def ports(scene: Scene, layering: Layering, *, loops: bool = True) -> Ports:
    """Port keys on each node side, ordered to follow the other ends of their edges.

    Edges of one style out of a node share a port (a fan-out tree); edges of one style
    into a node share one too (one arrow), unless the edge is already part of a fan-out
    tree at its other end, which would make the two trees look like one. Without
    ``loops``, a self-loop gets no port (compact boxes mark it beside the box instead).
    """
    fans: Counter[tuple[int, PortKey]] = Counter()
    for i, (edge, chain) in enumerate(zip(scene.edges, layering.chains, strict=True)):
        if chain and not edge.join:
            fans[chain[-1] if layering.reversed[i] else chain[0], ("out", edge.style)] += 1
    groups: dict[tuple[int, Side], dict[PortKey, list[int]]] = {}
    edge_keys: dict[tuple[int, Side], PortKey] = {}

    def add(edge: int, item: int, side: Side, key: PortKey, other: int) -> None:
        end: Side = "top" if side == "bottom" else "bottom"
        edge_keys[(edge, end)] = key
        where = layering.position(other) if other >= 0 else 10**6
        groups.setdefault((item, side), {}).setdefault(key, []).append(where)

    for i, (edge, chain) in enumerate(zip(scene.edges, layering.chains, strict=True)):
        if not chain:
            if loops:
                add(i, edge.source, "top", ("loop", i), -1)
            continue
        upper, lower = chain[0], chain[-1]
        out: PortKey = ("out", edge.style)
        fanned = len(chain) == 2 and fans[(lower if layering.reversed[i] else upper), out] > 1
        into: PortKey = ("in", i) if fanned else ("in", edge.style)
        if layering.reversed[i]:
            add(i, upper, "bottom", into, chain[1])
            add(i, lower, "top", out, chain[-2])
        elif edge.join:
            add(i, upper, "bottom", ("join", i), chain[1])
            add(i, lower, "top", ("join", (edge.join, edge.target)), chain[-2])
        else:
            add(i, upper, "bottom", out, chain[1])
            add(i, lower, "top", into, chain[-2])
    keys = {
        side: tuple(sorted(found, key=lambda k: (_mean(found[k]), _RANK[side[1], k[0]], str(k))))
        for side, found in groups.items()
    }
    sizes = {(*side, key): len(found[key]) for side, found in groups.items() for key in found}
    return Ports(keys, edge_keys, sizes)


def _mean(values: list[int]) -> float:
    return sum(values) / len(values)


def spread(count: int, width: int) -> list[int]:
    """Offsets of ``count`` ports along a box side ``width`` wide, centred.

    Ports are 4 columns apart when the box is wide enough (then 3, then 2), the same on
    every box, so two boxes joined by two edges can have both drawn straight.
    """
    if count == 1:
        return [(width - 1) // 2]
    for pitch in (4, 3, 2):
        span = pitch * (count - 1)
        if span + 3 <= width:
            first = (width - 1 - span) // 2
            return [first + pitch * j for j in range(count)]
    inner = width - 2
    return [1 + round((j + 0.5) * inner / count - 0.5) for j in range(count)]
