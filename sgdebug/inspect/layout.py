"""A small layered (Sugiyama-style) layout, deterministic from its input order.

Four phases, each a pure function of plain integers:

1. :func:`break_cycles` - a depth-first search from node 0 (then from the remaining nodes
   in index order) reverses the edges that point back to a node on the search stack;
   self-loops are set aside.
2. :func:`assign_layers` - the longest path from the sources, with extra sources pulled
   down next to their first successor.
3. :func:`order_layers` - dummy objects split edges that span several layers; barycenter
   sweeps (down and up) plus adjacent swaps reduce crossings, keeping the best order seen.
4. :func:`assign_x` (in :mod:`._placement`) - objects move toward the ports they connect
   to, layer by layer in sweeps, with overlaps resolved by pooling (isotonic regression),
   then single objects shift to make links exactly vertical.

Nothing here knows about text: objects have widths and ports have offsets; the drawing
module turns the result into cells.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sgdebug.inspect._placement import PlacementInput, Segment, assign_x

__all__ = [
    "Layering",
    "PlacementInput",
    "Segment",
    "assign_layers",
    "assign_x",
    "break_cycles",
    "count_crossings",
    "layer_count",
    "layer_graph",
    "order_layers",
]

_ORDER_SWEEPS: Final = 12


@dataclass(frozen=True, slots=True)
class Layering:
    """Nodes and dummy objects in ordered layers; every edge is a top-to-bottom chain."""

    node_count: int
    """Objects ``0 .. node_count - 1`` are the input nodes; higher ids are dummies."""
    layers: tuple[tuple[int, ...], ...]
    """Object ids of each layer, left to right."""
    layer_of: tuple[int, ...]
    """The layer of every object."""
    chains: tuple[tuple[int, ...], ...]
    """For each input edge, its objects from the upper end to the lower end (``()`` for a
    self-loop): the upper node, one dummy per layer crossed, the lower node."""
    reversed: tuple[bool, ...]
    """For each input edge: drawn bottom-up (it closes a cycle, so its source is lower)."""

    @property
    def self_loops(self) -> tuple[int, ...]:
        """Indices of the input edges from a node to itself."""
        return tuple(i for i, chain in enumerate(self.chains) if not chain)

    def position(self, obj: int) -> int:
        """Index of ``obj`` within its layer."""
        return self.layers[self.layer_of[obj]].index(obj)


def break_cycles(node_count: int, edges: Sequence[tuple[int, int]]) -> tuple[bool, ...]:
    """For each edge, whether it must be reversed to make the graph acyclic.

    Depth-first from node 0, then from each unvisited node in index order; successors are
    visited in edge order. Self-loops are never reversed (they are drawn apart).
    """
    succ: list[list[tuple[int, int]]] = [[] for _ in range(node_count)]
    for index, (source, target) in enumerate(edges):
        if source != target:
            succ[source].append((target, index))
    state = [0] * node_count  # 0 new, 1 on the stack, 2 done
    back = [False] * len(edges)
    for root in range(node_count):
        if state[root]:
            continue
        state[root] = 1
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            node, next_child = stack[-1]
            if next_child == len(succ[node]):
                state[node] = 2
                stack.pop()
                continue
            stack[-1] = (node, next_child + 1)
            target, index = succ[node][next_child]
            if state[target] == 1:
                back[index] = True
            elif state[target] == 0:
                state[target] = 1
                stack.append((target, 0))
    return tuple(back)


def assign_layers(node_count: int, dag: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """Layer of each node of an acyclic edge list: longest path from the sources.

    A source other than node 0 that has successors moves down to just above its
    nearest successor, so an entry point added late does not float at the top.
    """
    preds: list[list[int]] = [[] for _ in range(node_count)]
    succ: list[list[int]] = [[] for _ in range(node_count)]
    indegree = [0] * node_count
    for source, target in dag:
        preds[target].append(source)
        succ[source].append(target)
        indegree[target] += 1
    layer = [0] * node_count
    ready = [n for n in range(node_count) if indegree[n] == 0]
    done: list[int] = []
    while ready:
        node = ready.pop(0)
        done.append(node)
        for target in succ[node]:
            layer[target] = max(layer[target], layer[node] + 1)
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    for node in reversed(done):
        if node != 0 and not preds[node] and succ[node]:
            layer[node] = max(0, min(layer[t] for t in succ[node]) - 1)
    return tuple(layer)


def layer_count(node_count: int, edges: Sequence[tuple[int, int]]) -> int:
    """How many layers :func:`layer_graph` will use (cheap: no dummies, no ordering)."""
    back = break_cycles(node_count, edges)
    dag = [(t, s) if rev else (s, t) for (s, t), rev in zip(edges, back, strict=True) if s != t]
    return max(assign_layers(node_count, dag), default=-1) + 1


def layer_graph(node_count: int, edges: Sequence[tuple[int, int]]) -> Layering:
    """Break cycles, assign layers, add dummies and order every layer."""
    back = break_cycles(node_count, edges)
    dag = [(t, s) if rev else (s, t) for (s, t), rev in zip(edges, back, strict=True)]
    layer = list(assign_layers(node_count, [(s, t) for s, t in dag if s != t]))
    chains: list[tuple[int, ...]] = []
    for upper, lower in dag:
        if upper == lower:
            chains.append(())
            continue
        chain = [upper]
        for depth in range(layer[upper] + 1, layer[lower]):
            chain.append(len(layer))
            layer.append(depth)
        chains.append((*chain, lower))
    depth = max(layer, default=-1) + 1
    members: list[list[int]] = [[] for _ in range(depth)]
    for obj, at in enumerate(layer):
        members[at].append(obj)
    layers = order_layers(members, chains)
    return Layering(node_count, layers, tuple(layer), tuple(chains), back)


def _links(chains: Sequence[tuple[int, ...]]) -> list[tuple[int, int]]:
    """Every (upper, lower) pair of adjacent objects of every chain."""
    return [(c[i], c[i + 1]) for c in chains for i in range(len(c) - 1)]


def count_crossings(
    upper: Sequence[int], lower: Sequence[int], links: Sequence[tuple[int, int]]
) -> int:
    """How many pairs of links between two ordered layers cross (shared ends do not)."""
    up = {obj: i for i, obj in enumerate(upper)}
    down = {obj: i for i, obj in enumerate(lower)}
    pairs = sorted((up[a], down[b]) for a, b in links if a in up and b in down)
    crossings = 0
    seen: list[int] = []  # lower ends of the links from further left, sorted
    start = 0
    while start < len(pairs):
        stop = start
        while stop < len(pairs) and pairs[stop][0] == pairs[start][0]:
            stop += 1
        group = [b for _, b in pairs[start:stop]]
        crossings += sum(len(seen) - bisect_right(seen, b) for b in group)
        for b in group:
            insort(seen, b)
        start = stop
    return crossings


def _total_crossings(
    layers: Sequence[Sequence[int]], links: Sequence[Sequence[tuple[int, int]]]
) -> int:
    return sum(count_crossings(layers[i], layers[i + 1], links[i]) for i in range(len(layers) - 1))


def order_layers(
    members: Sequence[Sequence[int]], chains: Sequence[tuple[int, ...]]
) -> tuple[tuple[int, ...], ...]:
    """Order the objects of each layer to reduce crossings (barycenter sweeps + swaps)."""
    layer_of = {obj: i for i, layer in enumerate(members) for obj in layer}
    by_layer: list[list[tuple[int, int]]] = [[] for _ in members]
    ups: dict[int, list[int]] = {}
    downs: dict[int, list[int]] = {}
    for a, b in _links(chains):
        by_layer[layer_of[a]].append((a, b))
        downs.setdefault(a, []).append(b)
        ups.setdefault(b, []).append(a)
    layers = [list(m) for m in members]
    for i in range(1, len(layers)):
        _sort_by_barycenter(layers[i], layers[i - 1], ups)
    best = [list(layer) for layer in layers]
    best_count = _total_crossings(best, by_layer)
    for sweep in range(_ORDER_SWEEPS):
        if best_count == 0:
            break
        if sweep % 2 == 0:
            for i in range(1, len(layers)):
                _sort_by_barycenter(layers[i], layers[i - 1], ups)
        else:
            for i in range(len(layers) - 2, -1, -1):
                _sort_by_barycenter(layers[i], layers[i + 1], downs)
        _transpose(layers, ups, downs)
        count = _total_crossings(layers, by_layer)
        if count < best_count:
            best, best_count = [list(layer) for layer in layers], count
    return tuple(tuple(layer) for layer in best)


def _sort_by_barycenter(
    layer: list[int], fixed: Sequence[int], neighbours: dict[int, list[int]]
) -> None:
    where = {obj: i for i, obj in enumerate(fixed)}
    keys: dict[int, float] = {}
    for index, obj in enumerate(layer):
        seen = [where[n] for n in neighbours.get(obj, ()) if n in where]
        keys[obj] = sum(seen) / len(seen) if seen else float(index)
    layer.sort(key=lambda obj: keys[obj])


def _transpose(
    layers: list[list[int]], ups: dict[int, list[int]], downs: dict[int, list[int]]
) -> None:
    """Swap neighbours within a layer while that lowers the crossings around them."""
    where = {obj: k for layer in layers for k, obj in enumerate(layer)}
    for _ in range(4):
        improved = False
        for layer in layers:
            for k in range(len(layer) - 1):
                u, v = layer[k], layer[k + 1]
                kept = _crossed(u, v, ups, where) + _crossed(u, v, downs, where)
                swapped = _crossed(v, u, ups, where) + _crossed(v, u, downs, where)
                if swapped < kept:
                    layer[k], layer[k + 1] = v, u
                    where[u], where[v] = k + 1, k
                    improved = True
        if not improved:
            return


def _crossed(left: int, right: int, neighbours: dict[int, list[int]], where: dict[int, int]) -> int:
    """Crossings between the links of ``left`` and ``right`` (in that order) to one layer."""
    return sum(
        1
        for a in neighbours.get(left, ())
        for b in neighbours.get(right, ())
        if where[a] > where[b]
    )
