"""The layered layout on plain integer graphs: cycles, layers, dummies, order, placement."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from sgdebug.inspect.layout import (
    Layering,
    PlacementInput,
    Segment,
    assign_layers,
    assign_x,
    break_cycles,
    count_crossings,
    layer_graph,
)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    """Up to 14 nodes and any edges between them (cycles and self-loops included)."""
    count = draw(st.integers(1, 14))
    node = st.integers(0, count - 1)
    edges = draw(st.lists(st.tuples(node, node), max_size=30, unique=True))
    return count, edges


def is_acyclic(count: int, edges: Sequence[tuple[int, int]]) -> bool:
    succ: list[list[int]] = [[] for _ in range(count)]
    indegree = [0] * count
    for s, t in edges:
        succ[s].append(t)
        indegree[t] += 1
    ready = [n for n in range(count) if indegree[n] == 0]
    seen = 0
    while ready:
        node = ready.pop()
        seen += 1
        for t in succ[node]:
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
    return seen == count


def test_the_edge_closing_a_cycle_is_the_one_reversed() -> None:
    # 0 -> 1 -> 2 -> 1 (a loop back), 2 -> 3
    assert break_cycles(4, [(0, 1), (1, 2), (2, 1), (2, 3)]) == (False, False, True, False)


def test_self_loops_are_never_reversed() -> None:
    assert break_cycles(2, [(0, 1), (1, 1)]) == (False, False)


@given(graphs())
def test_reversing_the_chosen_edges_leaves_no_cycle(
    graph: tuple[int, list[tuple[int, int]]],
) -> None:
    count, edges = graph
    back = break_cycles(count, edges)
    dag = [(t, s) if r else (s, t) for (s, t), r in zip(edges, back, strict=True) if s != t]
    assert is_acyclic(count, dag)


def test_layers_are_longest_paths_and_late_sources_sit_above_their_successor() -> None:
    # 0 -> 1 -> 2 -> 3 and a source 4 -> 3: 4 is put just above 3, not at the top
    assert assign_layers(5, [(0, 1), (1, 2), (2, 3), (4, 3)]) == (0, 1, 2, 3, 2)


def check_layering(count: int, edges: Sequence[tuple[int, int]], lay: Layering) -> None:
    objects = [obj for layer in lay.layers for obj in layer]
    assert sorted(objects) == list(range(len(lay.layer_of)))
    assert all(obj in lay.layers[lay.layer_of[obj]] for obj in objects)
    dummies_seen: list[int] = []
    for (s, t), chain, back in zip(edges, lay.chains, lay.reversed, strict=True):
        if s == t:
            assert chain == ()
            continue
        upper, lower = (t, s) if back else (s, t)
        assert chain[0] == upper and chain[-1] == lower
        for a, b in pairwise(chain):
            assert lay.layer_of[b] == lay.layer_of[a] + 1
        assert all(obj >= count for obj in chain[1:-1])
        dummies_seen += chain[1:-1]
    assert sorted(dummies_seen) == list(range(count, len(lay.layer_of)))


@settings(max_examples=150)
@given(graphs())
def test_every_edge_becomes_a_chain_through_adjacent_layers(
    graph: tuple[int, list[tuple[int, int]]],
) -> None:
    count, edges = graph
    lay = layer_graph(count, edges)
    check_layering(count, edges, lay)
    assert layer_graph(count, edges) == lay  # deterministic


def test_ordering_removes_an_avoidable_crossing() -> None:
    # 0 -> 2 -> 4 and 1 -> 3 -> 5 where the initial order would cross 2/3 against 4/5
    edges = [(0, 3), (1, 2), (3, 4), (2, 5)]
    lay = layer_graph(6, edges)
    links = [(c[i], c[i + 1]) for c in lay.chains for i in range(len(c) - 1)]
    total = sum(
        count_crossings(lay.layers[i], lay.layers[i + 1], links) for i in range(len(lay.layers) - 1)
    )
    assert total == 0


def test_count_crossings_counts_only_true_crossings() -> None:
    assert count_crossings([0, 1], [2, 3], [(0, 3), (1, 2)]) == 1
    assert count_crossings([0, 1], [2, 3], [(0, 2), (1, 3)]) == 0
    assert count_crossings([0, 1], [2, 3], [(0, 2), (0, 3), (1, 3)]) == 0  # shared ends


def test_a_chain_of_single_links_is_placed_straight() -> None:
    placement = PlacementInput(
        layers=((0,), (1,), (2,)),
        advances=((), (), ()),
        segments=(Segment(0, 3, 1, 5, 3, True), Segment(1, 5, 2, 1, 3, True)),
    )
    x = assign_x(placement)
    assert x[0] + 3 == x[1] + 5 == x[2] + 1
    assert min(x.values()) == 0


@settings(max_examples=150)
@given(graphs(), st.integers(1, 9))
def test_placement_keeps_order_and_spacing(
    graph: tuple[int, list[tuple[int, int]]], width: int
) -> None:
    count, edges = graph
    lay = layer_graph(count, edges)
    advances = tuple(tuple(width + 2 for _ in layer[1:]) for layer in lay.layers)
    segments = tuple(
        Segment(a, width // 2, b, width // 2) for chain in lay.chains for a, b in pairwise(chain)
    )
    x = assign_x(PlacementInput(lay.layers, advances, segments))
    for layer in lay.layers:
        for left, right in pairwise(layer):
            assert x[right] - x[left] >= width + 2
    assert min(x.values()) == 0
