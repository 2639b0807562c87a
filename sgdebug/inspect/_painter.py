"""Turn a layered scene into cells: place boxes, route the gaps, paint, collect the cells.

:func:`paint_scene` sizes every box (wide enough for its ports), places the layers with
:func:`~sgdebug.inspect.layout.assign_x`, routes every gap, stacks layers and gaps into rows,
and paints boxes, lines, arrows and edge labels on a :class:`~._canvas.Canvas`. It returns
``None`` when two lines would overlap, so that the caller can fall back to another mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Final

from sgdebug.inspect._canvas import Canvas
from sgdebug.inspect._drawn import Box, Drawing, DrawnEdge, DrawnNode
from sgdebug.inspect._routing import Gap, Net, assign_tracks
from sgdebug.inspect._scene import BoxStyle, Ports, Scene, Side, spread
from sgdebug.inspect.layout import Layering, PlacementInput, Segment, assign_x

__all__ = ["paint_scene"]

_GAP: Final = 2
"""Columns between two boxes of a layer."""
_LOOP: Final = 2
"""Extra columns right of a box with a self-loop (the loop's return lane, or its mark)."""
_SELF_LOOP: Final = "↻"
"""Ends the self-loop of a one-row box, drawn beside it: ``[ name ]┄↻``."""
_UNTANGLE_TRIES: Final = 12
"""How many times overlapping lines may be fixed by moving boxes before giving up."""


@dataclass(slots=True)
class _Geometry:
    """Sizes and positions of one attempt."""

    scene: Scene
    layering: Layering
    ports: Ports
    style: BoxStyle
    widths: dict[int, int] = field(default_factory=dict)
    heights: dict[int, int] = field(default_factory=dict)
    offsets: dict[tuple[int, Side, object], int] = field(default_factory=dict)
    x: dict[int, int] = field(default_factory=dict)
    band_top: list[int] = field(default_factory=list)
    gaps: dict[int, Gap] = field(default_factory=dict)
    loops: dict[int, int] = field(default_factory=dict)  # edge -> item

    @property
    def items(self) -> int:
        return len(self.scene.names)

    def is_item(self, obj: int) -> bool:
        return obj < self.items

    def offset(self, obj: int, side: Side, edge: int) -> int:
        """Column of ``edge``'s port on ``obj`` (a dummy has one column)."""
        if not self.is_item(obj):
            return 0
        end: Side = "top" if side == "bottom" else "bottom"
        return self.offsets[(obj, side, self.ports.edge_keys[(edge, end)])]

    def middle(self, item: int) -> int:
        """Row of the item's label."""
        layer = self.layering.layer_of[item]
        return self.band_top[layer] + self.heights[item] // 2


def paint_scene(scene: Scene, layering: Layering, ports: Ports, style: BoxStyle) -> Drawing | None:
    """Draw the scene in ``style``; ``None`` if lines would overlap."""
    geo = _Geometry(scene, layering, ports, style)
    _size(geo)
    _place(geo)
    for _ in range(_UNTANGLE_TRIES):
        conflicts = _route(geo)
        if not conflicts:
            break
        _untangle(geo, conflicts)
    _stack(geo)
    width = max(
        [geo.x[o] + geo.widths.get(o, 1) for o in geo.x]
        + [geo.x[item] + geo.widths[item] + _LOOP for item in geo.loops.values()]
    )
    height = geo.band_top[-1] + max(
        (geo.heights[o] for o in layering.layers[-1] if geo.is_item(o)), default=1
    )
    canvas = Canvas(width, height)
    _paint(geo, canvas)
    edges = _edges(geo, canvas)
    lines = canvas.render()
    if canvas.collisions:
        return None
    nodes = tuple(
        DrawnNode(name, scene.labels[i], _box(geo, i)) for i, name in enumerate(scene.names) if name
    )
    return Drawing(lines, max(map(len, lines), default=0), len(lines), nodes, edges, style)


def _size(geo: _Geometry) -> None:
    scene, style = geo.scene, geo.style
    spare = 3 if style == "boxes" else 1
    for item in range(geo.items):
        most = max(geo.ports.count(item, "top"), geo.ports.count(item, "bottom"))
        width = scene.min_width(item, style)
        if scene.kinds[item] != "stub":
            width = max(width, 2 * most + spare)
            width += style == "boxes" and width % 2 == 0  # odd: one middle column
        geo.widths[item] = width
        geo.heights[item] = 3 if style == "boxes" and scene.kinds[item] != "stub" else 1
        for side in ("top", "bottom"):
            keys = geo.ports.keys.get((item, side), ())
            for key, offset in zip(keys, spread(len(keys), width), strict=True):
                geo.offsets[(item, side, key)] = offset
    for index, chain in enumerate(geo.layering.chains):
        if not chain:
            geo.loops[index] = geo.scene.edges[index].source


def _place(geo: _Geometry) -> None:
    looped = set(geo.loops.values())
    advances: list[tuple[int, ...]] = []
    for layer in geo.layering.layers:
        steps = []
        for left, right in pairwise(layer):
            if geo.is_item(left):
                step = geo.widths[left] + (_LOOP if left in looped else 0)
                steps.append(step + (_GAP if geo.is_item(right) else 1))
            else:
                steps.append(2)
        advances.append(tuple(steps))
    segments: list[Segment] = []
    for edge, chain in enumerate(geo.layering.chains):
        for upper, lower in pairwise(chain):
            dummies = (not geo.is_item(upper)) + (not geo.is_item(lower))
            alone = _alone(geo, edge, upper, "bottom") and _alone(geo, edge, lower, "top")
            segments.append(
                Segment(
                    upper,
                    geo.offset(upper, "bottom", edge),
                    lower,
                    geo.offset(lower, "top", edge),
                    (3, 6, 24)[dummies] if alone else 1,
                    alone,
                )
            )
    placement = PlacementInput(geo.layering.layers, tuple(advances), tuple(segments))
    geo.x = assign_x(placement)


def _alone(geo: _Geometry, edge: int, obj: int, side: Side) -> bool:
    """Whether ``edge`` is the only edge at its port on ``obj`` (a dummy has one edge)."""
    end: Side = "top" if side == "bottom" else "bottom"
    return not geo.is_item(obj) or geo.ports.size(obj, side, geo.ports.edge_keys[edge, end]) == 1


def _net_key(geo: _Geometry, edge: int, upper: int, lower: int, link: int) -> object:
    """Links that share a port share a net (the upper end's tree wins over the lower's)."""
    keys, found = geo.ports.edge_keys, geo.ports
    top, bottom = keys[(edge, "top")], keys[(edge, "bottom")]
    if geo.is_item(upper) and found.size(upper, "bottom", top) > 1:
        return ("b", upper, top)
    if geo.is_item(lower) and found.size(lower, "top", bottom) > 1:
        return ("t", lower, bottom)
    return ("e", edge, link)


def _route(geo: _Geometry) -> dict[int, set[int]]:
    """Build and route every gap; the conflicting columns of each gap (see assign_tracks)."""
    layering = geo.layering
    geo.gaps = {g: Gap() for g in range(-1, len(layering.layers) - 1)}
    geo.band_top = []
    for edge, chain in enumerate(layering.chains):
        scene_edge = geo.scene.edges[edge]
        back = layering.reversed[edge]
        for link, (upper, lower) in enumerate(pairwise(chain)):
            gap = geo.gaps[layering.layer_of[upper]]
            net = gap.net(_net_key(geo, edge, upper, lower, link), scene_edge.style)
            top = geo.x[upper] + geo.offset(upper, "bottom", edge)
            bottom = geo.x[lower] + geo.offset(lower, "top", edge)
            net.tops.add(top)
            net.bottoms.add(bottom)
            if back and link == 0:
                net.up_arrows.add(top)
            if not back and link == len(chain) - 2:
                net.down_arrows.add(bottom)
                if scene_edge.join:
                    net.join_at = bottom
    loops = geo.loops.items() if geo.style == "boxes" else ()  # compact: a mark, no lane
    for edge, item in loops:
        gap = geo.gaps[layering.layer_of[item] - 1]
        net = gap.net(("e", edge, -1), geo.scene.edges[edge].style)
        port = geo.x[item] + geo.offset(item, "top", edge)
        net.bottoms |= {port, _lane(geo, item)}
        net.down_arrows.add(port)
    conflicts = {g: assign_tracks(gap) for g, gap in geo.gaps.items()}
    return {g: columns for g, columns in conflicts.items() if columns}


def _untangle(geo: _Geometry, conflicts: dict[int, set[int]]) -> None:
    """Move right by one column each object below a conflict, and those to its right."""
    looped = set(geo.loops.values())
    for g, columns in conflicts.items():
        layer = geo.layering.layers[g + 1]
        for column in sorted(columns, reverse=True):
            for index, obj in enumerate(layer):
                right = geo.x[obj] + geo.widths.get(obj, 1) + (_LOOP if obj in looped else 0)
                if column < right:
                    for moved in layer[index:]:
                        geo.x[moved] += 1
                    break


def _lane(geo: _Geometry, item: int) -> int:
    return geo.x[item] + geo.widths[item] + 1


def _stack(geo: _Geometry) -> None:
    row = geo.gaps[-1].rows if geo.gaps[-1].nets else 0
    for index, layer in enumerate(geo.layering.layers):
        geo.band_top.append(row)
        row += max((geo.heights[o] for o in layer if geo.is_item(o)), default=1)
        if index in geo.gaps:
            geo.gaps[index].top = row
            row += geo.gaps[index].rows


def _box(geo: _Geometry, item: int) -> Box:
    layer = geo.layering.layer_of[item]
    return Box(geo.x[item], geo.band_top[layer], geo.widths[item], geo.heights[item])


def _paint(geo: _Geometry, canvas: Canvas) -> None:
    for item in range(geo.items):
        _paint_item(geo, canvas, item)
    for edge, chain in enumerate(geo.layering.chains):
        style = geo.scene.edges[edge].style
        for obj in chain[1:-1]:
            top = geo.band_top[geo.layering.layer_of[obj]]
            canvas.vertical(("d", obj), geo.x[obj], top, _band_bottom(geo, obj), style)
    for edge, item in geo.loops.items():
        key, style = ("e", edge, -1), geo.scene.edges[edge].style
        middle, lane = geo.middle(item), _lane(geo, item)
        if geo.style == "compact":  # ``]┄↻``: a mark beside the box, not a line around it
            canvas.horizontal(key, middle, lane - 1, lane, style)
            canvas.mark(lane, middle, _SELF_LOOP)
            continue
        gap = geo.gaps[geo.layering.layer_of[item] - 1]
        canvas.vertical(key, lane, gap.bottom, middle, style)
        canvas.horizontal(key, middle, lane - 1, lane, style)
    for gap in geo.gaps.values():
        gap.paint(canvas)


def _band_bottom(geo: _Geometry, obj: int) -> int:
    layer = geo.layering.layer_of[obj]
    height = max((geo.heights[o] for o in geo.layering.layers[layer] if geo.is_item(o)), default=1)
    return geo.band_top[layer] + height - 1


def _paint_item(geo: _Geometry, canvas: Canvas, item: int) -> None:
    scene, box = geo.scene, _box(geo, item)
    looped = item in geo.loops.values()
    if box.h == 1:
        canvas.text(box.x, box.y, _centre(scene.box_text(item, box.w), box.w))
        return
    tl, top, tr, side, bl, bottom, br, down, up, right = tuple(scene.borders(item))
    row_top = [top] * (box.w - 2)
    row_bottom = [bottom] * (box.w - 2)
    sides: tuple[tuple[Side, list[str], str], ...] = (
        ("top", row_top, up),
        ("bottom", row_bottom, down),
    )
    for side_name, row, joint in sides:
        for key in geo.ports.keys.get((item, side_name), ()):
            if key[0] == "out" or (side_name == "bottom" and key[0] == "join"):
                row[geo.offsets[(item, side_name, key)] - 1] = joint
    label = _centre(scene.labels[item], box.w - 4)
    canvas.text(box.x, box.y, tl + "".join(row_top) + tr)
    canvas.text(box.x, box.y + 1, f"{side} {label} {right if looped else side}")
    canvas.text(box.x, box.y + 2, bl + "".join(row_bottom) + br)


def _centre(text: str, width: int) -> str:
    """``text`` centred in ``width`` columns, the odd space on the right."""
    return (" " * ((width - len(text)) // 2) + text).ljust(width)


def _edges(geo: _Geometry, canvas: Canvas) -> tuple[DrawnEdge, ...]:
    out: list[DrawnEdge] = []
    layering, scene = geo.layering, geo.scene
    for edge, chain in enumerate(layering.chains):
        spec = scene.edges[edge]
        label, label_at = spec.label, None
        if not chain:
            cells = _loop_cells(geo, edge, spec.source)
        else:
            cells = _chain_cells(geo, edge, chain)
            if layering.reversed[edge]:
                cells.reverse()
            if spec.kind == "dynamic":
                box = _box(geo, spec.target)
                label, label_at = scene.labels[spec.target], (box.x, box.y)
            elif label:
                label_at = _place_label(geo, canvas, edge, chain, label)
        out.append(
            DrawnEdge(
                scene.names[spec.source],
                scene.names[spec.target],
                spec.kind,
                layering.reversed[edge] or not chain,
                label,
                tuple(dict.fromkeys(cells)),
                label_at,
            )
        )
    return tuple(out)


def _chain_cells(geo: _Geometry, edge: int, chain: tuple[int, ...]) -> list[tuple[int, int]]:
    cells: list[tuple[int, int]] = []
    for link, (upper, lower) in enumerate(pairwise(chain)):
        gap = geo.gaps[geo.layering.layer_of[upper]]
        net = gap.nets[_net_key(geo, edge, upper, lower, link)]
        top = geo.x[upper] + geo.offset(upper, "bottom", edge)
        bottom = geo.x[lower] + geo.offset(lower, "top", edge)
        cells += gap.cells(net, top, bottom)
        if not geo.is_item(lower):
            first = geo.band_top[geo.layering.layer_of[lower]]
            cells += [(geo.x[lower], y) for y in range(first, _band_bottom(geo, lower) + 1)]
    return cells


def _loop_cells(geo: _Geometry, edge: int, item: int) -> list[tuple[int, int]]:
    middle, lane = geo.middle(item), _lane(geo, item)
    cells = [(lane - 1, middle), (lane, middle)]
    if geo.style == "compact":
        return cells
    gap = geo.gaps[geo.layering.layer_of[item] - 1]
    net: Net = gap.nets[("e", edge, -1)]
    row = gap.track_row(net)
    port = geo.x[item] + geo.offset(item, "top", edge)
    cells += [(lane, y) for y in range(middle - 1, row - 1, -1)]
    cells += [(x, row) for x in range(lane - 1, port - 1, -1)]
    cells += [(port, y) for y in range(row + 1, gap.bottom + 1)]
    return cells


def _place_label(
    geo: _Geometry, canvas: Canvas, edge: int, chain: tuple[int, ...], label: str
) -> tuple[int, int] | None:
    """Write the edge's label beside its arrow if the cells are free; where it went."""
    back = geo.layering.reversed[edge]
    end = chain[0] if back else chain[-1]
    gap = geo.gaps[geo.layering.layer_of[chain[0] if back else chain[-2]]]
    x = geo.x[end] + geo.offset(end, "bottom" if back else "top", edge)
    y = gap.top if back else gap.bottom
    size = len(label)
    for start in (x + 2, x - size - 1, x + 1, x - size):  # spaced, then tight
        span = range(start - 1, start + size + 1)
        free = all(c in (x, -1, canvas.width) or canvas.is_blank(c, y) for c in span)
        if free and start >= 0 and start + size <= canvas.width:
            canvas.text(start, y, label)
            return (start, y)
    return None
