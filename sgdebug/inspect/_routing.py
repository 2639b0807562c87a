"""Routing of the edges between two layers: nets on horizontal tracks of a gap.

A *gap* is the band of rows between two layers of boxes. Every link of an edge that
crosses a gap goes straight down from its upper end to a *track* (a row of the gap), along
it, and down to its lower end. Links that share a port (a node's fan-out of one style, a
bundle into a node, the sources of one join, a node's loops back up) form one *net* and
share one track, so a fan-out is drawn as one tree and a join as lines meeting in one dot.
A net whose ends are all in one column needs no track.

Tracks are given by the left-edge algorithm with vertical constraints: a net whose upper
end is in the same column as another net's lower end must run above it, or their vertical
lines would overlap. When the constraints form a cycle, :func:`assign_tracks` reports the
columns in conflict and the painter moves a box by one column and routes again.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from sgdebug.inspect._canvas import NORTH, SOUTH, Canvas, Style
from sgdebug.inspect._drawn import JOIN_GLYPH

__all__ = ["Gap", "Net", "assign_tracks"]


@dataclass(slots=True)
class Net:
    """Links of one gap that share a line."""

    key: Hashable
    """Identity of the net (a shared port, or one link)."""
    style: Style
    """Solid or dotted."""
    tops: set[int] = field(default_factory=set)
    """Columns where it leaves the layer above."""
    bottoms: set[int] = field(default_factory=set)
    """Columns where it enters the layer below."""
    up_arrows: set[int] = field(default_factory=set)
    """Top columns that end in an arrow into the box above."""
    down_arrows: set[int] = field(default_factory=set)
    """Bottom columns that end in an arrow into the box below."""
    join_at: int | None = None
    """Bottom column where the sources of a join meet (drawn as a dot)."""
    track: int = -1
    """Assigned track, ``-1`` for a straight net."""

    @property
    def straight(self) -> bool:
        """All ends in one column: the net is one vertical line."""
        return len(self.tops | self.bottoms) == 1 and self.join_at is None

    @property
    def span(self) -> tuple[int, int]:
        """Leftmost and rightmost column of the net."""
        columns = self.tops | self.bottoms
        return min(columns), max(columns)


@dataclass(slots=True)
class Gap:
    """The nets between two layers and where their rows are."""

    nets: dict[Hashable, Net] = field(default_factory=dict)
    """Nets by key, in the order they were first seen."""
    tracks: int = 0
    """Number of track rows."""
    top: int = 0
    """First row of the gap."""

    @property
    def has_up_arrows(self) -> bool:
        """Some net ends in an upward arrow (the gap then starts with an arrow row)."""
        return any(net.up_arrows for net in self.nets.values())

    @property
    def rows(self) -> int:
        """Height of the gap: an arrow row up (if needed), the tracks, an arrow row down."""
        if not self.nets:
            return 1
        rows = int(self.has_up_arrows) + self.tracks + 1
        dotted = any(n.straight and n.style == "dotted" for n in self.nets.values())
        return max(rows, 2) if dotted else rows

    @property
    def bottom(self) -> int:
        """Last row of the gap (the row of downward arrows)."""
        return self.top + self.rows - 1

    def track_row(self, net: Net) -> int:
        """The row of ``net``'s horizontal line."""
        return self.top + int(self.has_up_arrows) + max(net.track, 0)

    def net(self, key: Hashable, style: Style) -> Net:
        """The net called ``key``, created on first use."""
        found = self.nets.get(key)
        if found is None:
            found = self.nets[key] = Net(key, style)
        return found

    def paint(self, canvas: Canvas) -> None:
        """Draw every net of the gap."""
        for net in self.nets.values():
            key, style = net.key, net.style
            if net.straight:
                (column,) = net.tops | net.bottoms
                canvas.vertical(key, column, self.top, self.bottom, style)
            else:
                row = self.track_row(net)
                left, right = net.span
                canvas.horizontal(key, row, left, right, style)
                for column in sorted(net.tops):
                    for y in range(self.top, row + 1):
                        canvas.line(key, column, y, NORTH | (SOUTH if y < row else 0), style)
                for column in sorted(net.bottoms):
                    for y in range(row, self.bottom + 1):
                        canvas.line(key, column, y, SOUTH | (NORTH if y > row else 0), style)
                if net.join_at is not None:
                    canvas.mark(net.join_at, row, JOIN_GLYPH)
            for column in net.up_arrows:
                canvas.mark(column, self.top, "▲")
            for column in net.down_arrows:
                canvas.mark(column, self.bottom, "▼")

    def cells(self, net: Net, top: int | None, bottom: int) -> list[tuple[int, int]]:
        """Cells of one link of ``net``, top to bottom (``top`` ``None``: from the track)."""
        if net.straight:
            return [(bottom, y) for y in range(self.top, self.bottom + 1)]
        row = self.track_row(net)
        out: list[tuple[int, int]] = []
        if top is not None:
            out += [(top, y) for y in range(self.top, row)]
            start = top
        else:
            start = bottom
        step = 1 if bottom >= start else -1
        out += [(x, row) for x in range(start, bottom + step, step)]
        out += [(bottom, y) for y in range(row + 1, self.bottom + 1)]
        return out


def assign_tracks(gap: Gap) -> set[int]:
    """Give every bent net a track; nets on one track never overlap.

    Returns the lower-end columns where two nets' vertical lines would overlap because
    their constraints form a cycle (empty when the routing is clean); moving the object
    below such a column by one cell removes the conflict.
    """
    bent = [net for net in gap.nets.values() if not net.straight]
    above: dict[Hashable, list[Net]] = {net.key: [] for net in bent}
    for a in bent:
        for b in bent:
            if a is not b and a.tops & b.bottoms:
                above[b.key].append(a)  # a must run above b
    placed: set[Hashable] = set()
    conflicts: set[int] = set()
    track = 0
    while len(placed) < len(bent):
        ready = [n for n in bent if n.key not in placed and _free(above[n.key], placed)]
        if not ready:  # a cycle of constraints: place one net anyway, report the overlap
            net = next(n for n in bent if n.key not in placed)
            for other in above[net.key]:
                if other.key not in placed:
                    conflicts |= other.tops & net.bottoms
            ready = [net]
        _fill_track(ready, track, placed)
        track += 1
    gap.tracks = track
    return conflicts


def _free(nets: Sequence[Net], placed: set[Hashable]) -> bool:
    return all(net.key in placed for net in nets)


def _fill_track(ready: Sequence[Net], track: int, placed: set[Hashable]) -> None:
    last = -2
    for net in sorted(ready, key=lambda n: n.span):
        left, right = net.span
        if left > last:
            net.track = track
            placed.add(net.key)
            last = right
