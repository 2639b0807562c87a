"""Horizontal placement of layered objects: straight links, no overlaps, order kept.

Objects move toward the ports they link to, layer by layer in down and up sweeps, each
layer solved as a weighted-median isotonic regression (pool adjacent violators), so an
object follows its heaviest links and never passes its neighbours. A last pass moves
single objects within the room left to them to make links exactly vertical where that is
worth it (a bend costs extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["PlacementInput", "Segment", "assign_x"]

_PLACE_SWEEPS: Final = 6
_JOG: Final = 4
"""Cost of a bend in a link, in columns of horizontal run."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A link between adjacent layers, with where it meets each object."""

    upper: int
    """The object above."""
    upper_offset: int
    """Column of the link on the upper object, from its left edge."""
    lower: int
    """The object below."""
    lower_offset: int
    """Column of the link on the lower object, from its left edge."""
    weight: int = 1
    """How much keeping this link short matters."""
    straight: bool = False
    """The link is drawn as its own line, so bending it costs a jog (a fan-out's or a
    join's links share a bar and are bent anyway)."""


@dataclass(frozen=True, slots=True)
class PlacementInput:
    """What :func:`assign_x` places: ordered layers of objects and their links."""

    layers: tuple[tuple[int, ...], ...]
    """Object ids of each layer, left to right."""
    advances: tuple[tuple[int, ...], ...]
    """For each layer, the least distance from each object's left column to the next one's
    (the object's width plus the spacing it needs); one fewer than the layer's objects."""
    segments: tuple[Segment, ...]
    """Links between objects of adjacent layers."""


_Link = tuple[int, int, int, int, bool]
"""(other object, its port offset, own port offset, weight, straight)."""


def assign_x(placement: PlacementInput) -> dict[int, int]:
    """Left column of every object: no overlaps, order kept, links as straight as can be."""
    starts = [_starts(advance) for advance in placement.advances]
    widest = max((s[-1] for s in starts), default=0)
    x: dict[int, int] = {}
    for layer, offsets in zip(placement.layers, starts, strict=True):
        left = (widest - offsets[-1]) // 2
        x.update({obj: left + offset for obj, offset in zip(layer, offsets, strict=True)})
    above: dict[int, list[_Link]] = {}
    below: dict[int, list[_Link]] = {}
    for s in placement.segments:
        up = (s.upper, s.upper_offset, s.lower_offset, s.weight, s.straight)
        down = (s.lower, s.lower_offset, s.upper_offset, s.weight, s.straight)
        above.setdefault(s.lower, []).append(up)
        below.setdefault(s.upper, []).append(down)
    both = {k: above.get(k, []) + below.get(k, []) for k in {*above, *below}}
    count = len(placement.layers)
    passes = [(i, above) for i in range(1, count)] + [(i, below) for i in range(count - 2, -1, -1)]
    for _ in range(_PLACE_SWEEPS):
        for i, links in passes:
            _place_layer(placement.layers[i], starts[i], x, links)
    for i in range(count):
        _place_layer(placement.layers[i], starts[i], x, both)
    _straighten(placement, x, both)
    shift = min(x.values(), default=0)
    return {obj: left - shift for obj, left in x.items()}


def _straighten(
    placement: PlacementInput, x: dict[int, int], links: dict[int, list[_Link]]
) -> None:
    """Move single objects, within the room their neighbours leave, to straighten links.

    A bent link costs its weight times (its horizontal run plus a penalty), so exact
    alignments are worth a longer run elsewhere; an object moves only when that lowers
    the cost of its links.
    """
    for _ in range(_PLACE_SWEEPS):
        moved = False
        for layer, advance in zip(placement.layers, placement.advances, strict=True):
            for index, obj in enumerate(layer):
                low = x[layer[index - 1]] + advance[index - 1] if index else -(10**9)
                high = x[layer[index + 1]] - advance[index] if index + 1 < len(layer) else 10**9
                found = links.get(obj, [])
                best, best_cost = x[obj], _cost(x[obj], found, x)
                for other, at, own, _, straight in found:
                    if not straight:
                        continue
                    place = x[other] + at - own
                    cost = _cost(place, found, x)
                    if low <= place <= high and cost < best_cost:
                        best, best_cost = place, cost
                moved |= best != x[obj]
                x[obj] = best
        if not moved:
            return


def _cost(left: int, links: list[_Link], x: dict[int, int]) -> int:
    total = 0
    for other, at, own, weight, straight in links:
        run = abs(left + own - x[other] - at)
        total += weight * (run + _JOG if run and straight else run)
    return total


def _starts(advance: Sequence[int]) -> list[int]:
    """Offsets of a layer's objects when packed to the left (the first is 0)."""
    out = [0]
    for step in advance:
        out.append(out[-1] + step)
    return out


def _place_layer(
    layer: Sequence[int], offsets: Sequence[int], x: dict[int, int], links: dict[int, list[_Link]]
) -> None:
    """Move a layer's objects toward their neighbours' ports, keeping order and spacing."""
    wanted: list[float] = []
    weights: list[int] = []
    for obj, offset in zip(layer, offsets, strict=True):
        found = links.get(obj)
        if found:
            targets = [(x[other] + at - own, w) for other, at, own, w, _ in found]
            want, weight = _weighted_median(targets)
        else:
            want, weight = float(x[obj]), 0
        wanted.append(want - offset)
        weights.append(weight)
    for obj, offset, z in zip(layer, offsets, _pool(wanted, weights), strict=True):
        x[obj] = z + offset


def _weighted_median(values: list[tuple[int, int]]) -> tuple[float, int]:
    """The weighted median of ``(value, weight)`` pairs (a midpoint on a tie), total weight."""
    ordered = sorted(values)
    total = sum(w for _, w in ordered)
    running = 0
    for index, (value, weight) in enumerate(ordered):
        running += weight
        if 2 * running == total and index + 1 < len(ordered):
            return (value + ordered[index + 1][0]) / 2, total
        if 2 * running > total:
            return float(value), total
    return float(ordered[-1][0]), total


def _pool(wanted: list[float], weights: list[int]) -> list[int]:
    """Non-decreasing integers near ``wanted``: weighted-median pool-adjacent-violators.

    Minimises the weighted sum of distances, so a heavy link wins over light ones instead
    of meeting them halfway. An object without links (weight 0) gets a tiny weight so
    that it keeps its place when nothing pushes it.
    """
    blocks: list[tuple[list[tuple[float, float]], float]] = []  # (members, median)
    for value, weight in zip(wanted, weights, strict=True):
        members = [(value, float(weight) if weight else 0.01)]
        median = value
        while blocks and blocks[-1][1] > median:
            previous, _ = blocks.pop()
            members = previous + members
            median = _median(members)
        blocks.append((members, median))
    out: list[int] = []
    for members, median in blocks:
        out.extend([_round(median)] * len(members))
    return out


def _median(members: list[tuple[float, float]]) -> float:
    ordered = sorted(members)
    total = sum(w for _, w in ordered)
    running = 0.0
    for index, (value, weight) in enumerate(ordered):
        running += weight
        if abs(2 * running - total) < 1e-9 and index + 1 < len(ordered):
            return (value + ordered[index + 1][0]) / 2
        if 2 * running > total:
            return value
    return ordered[-1][0]


def _round(value: float) -> int:
    """Round half up (``round`` rounds half to even, which makes alignments jitter)."""
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)
