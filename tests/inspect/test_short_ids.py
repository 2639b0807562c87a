"""Short ids of a long history: the shortest unique stretch, as the definition says."""

from __future__ import annotations

import itertools

import pytest

from sgdebug.inspect.history import SHORT_ID_MIN, short_ids
from sgdebug.runtime.checkpoint import time_ordered_ids


def shortest_by_definition(ids: list[str]) -> dict[str, str]:
    """Try every size from the shortest up (what ``short_ids`` promises)."""
    bare = {i: i.replace("-", "") for i in ids}
    values = list(bare.values())
    suffix = 0
    while all(v[-1 - suffix] == values[0][-1 - suffix] for v in values):
        suffix += 1
    for size in itertools.count(SHORT_ID_MIN):
        cut = {i: b[max(0, len(b) - suffix - size) : len(b) - suffix] for i, b in bare.items()}
        if len(set(cut.values())) == len(cut):
            return cut
    raise AssertionError("unreachable")


@pytest.mark.parametrize("count", [2, 17, 3_000])
def test_short_ids_of_time_ordered_ids_are_the_shortest_unique_stretches(count: int) -> None:
    make = time_ordered_ids()
    ids = [make() for _ in range(count)]
    found = short_ids(ids)
    assert found == shortest_by_definition(ids)
    assert len(set(found.values())) == count


def test_ids_that_differ_only_far_left_still_get_unique_short_ids() -> None:
    ids = [f"{n:x}-0000-0000-0000-000000000000" for n in range(0xA0000, 0xA0040)]
    found = short_ids(ids)
    assert found == shortest_by_definition(ids)
