"""Time ``sgdebug.inspect`` previews, value trees and diffs on huge values, and a drawing.

Usage::

    python benchmarks/inspect_views.py            # best of 5
    python benchmarks/inspect_views.py --quick    # best of 2, a smoke run
    python benchmarks/inspect_views.py --check    # exit 1 if a goal is missed

Values: a 1,000,000-item list, a 10 MB string, a 1,000,000-key dict, and a list of
1,000 chat messages; previews also of the list inside a dict and of a list of three
10 MB strings. Goals: a preview under 10 ms (issue 4), the first page of a value tree's
children under 10 ms, a diff under 2 s (one append, one replacement in the middle, one
edit in the middle of the text, one changed key, one message edited in place), each
followed by ``apply`` to check the diff; and drawing 30 random nodes (a chain with back
edges) on a 200x200 canvas under 1 s. These goals were unit-test assertions once; they
live here so that a busy machine cannot fail the test suite. Each measurement is the
best of ``repeats`` runs with the garbage collector paused.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from sgdebug.inspect.diff import apply, diff, summary
from sgdebug.inspect.drawing import draw
from sgdebug.inspect.preview import preview
from sgdebug.inspect.topology import END, START, Topology, TopologyEdge, TopologyNode
from sgdebug.inspect.values import value_tree

PREVIEW_GOAL_S = 0.010
CHILDREN_GOAL_S = 0.010
DIFF_GOAL_S = 2.0
DRAW_GOAL_S = 1.0
DRAWN_NODES = 30
SIZE = 1_000_000
TEXT_SIZE = 10_000_000


def best(fn: Callable[[], Any], repeats: int) -> float:
    """The fastest of ``repeats`` calls, in seconds."""
    times = []
    for _ in range(repeats):
        gc.disable()
        try:
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def values() -> dict[str, tuple[Any, Any]]:
    """Name -> (old value, new value) pairs."""
    big = list(range(SIZE))
    middle = list(big)
    middle[SIZE // 2] = -1
    text = "x" * TEXT_SIZE
    table = dict.fromkeys(range(SIZE), 0)
    out: dict[str, tuple[Any, Any]] = {
        "list, 1 item appended": (big, [*big, -1]),
        "list, 1 item replaced": (big, middle),
        "str 10 MB, 2 chars inserted": (
            text,
            text[: TEXT_SIZE // 2] + "yy" + text[TEXT_SIZE // 2 :],
        ),
        "dict, 1 key changed": (table, {**table, 7: 1}),
    }
    try:
        from langchain_core.messages import AIMessage
    except ImportError:
        return out
    chat = [AIMessage(content=f"message {i}", id=f"m{i}") for i in range(1000)]
    edited = list(chat)
    edited[500] = AIMessage(content="edited", id="m500")
    out["1,000 messages, 1 edited by id"] = (chat, edited)
    return out


def preview_only() -> dict[str, Any]:
    """Values only previewed (their shape matters, not a diff)."""
    return {"{'k': 1,000,000-item list}": {"k": list(range(SIZE))},
            "[10 MB str] * 3": ["x" * TEXT_SIZE] * 3}  # fmt: skip


def random_topology(count: int = DRAWN_NODES) -> Topology:
    """``count`` nodes: each follows one of the four before it; a quarter loop back."""
    rng = random.Random(7)
    names = [f"n{i}" for i in range(count)]
    edges = {TopologyEdge(START, "n0", "plain")}
    for i in range(1, count):
        edges.add(TopologyEdge(names[rng.randrange(max(0, i - 4), i)], names[i], "plain"))
        if rng.random() < 0.25:
            edges.add(TopologyEdge(names[i], names[rng.randrange(0, i)], "conditional"))
    edges.add(TopologyEdge(names[-1], END, "plain"))
    nodes = [TopologyNode(START, "start"), *(TopologyNode(n, "function") for n in names)]
    return Topology((*nodes, TopologyNode(END, "end")), tuple(sorted(edges, key=str)))


def time_values(repeats: int) -> bool:
    """Print a row per value; whether every goal was met."""
    print(f"{'value':34} {'preview':>10} {'children':>10} {'diff':>10} {'apply':>10}  diff")
    met = True
    for name, (old, new) in values().items():
        tree = value_tree(old)
        change = diff(old, new)
        t_preview = best(partial(preview, old), repeats)
        t_tree = best(partial(tree.children, limit=10), repeats)
        t_diff = best(partial(diff, old, new), repeats)
        t_apply = best(partial(apply, old, change), repeats)
        ok = apply(old, change) == new
        met = met and ok and t_preview < PREVIEW_GOAL_S and t_tree < CHILDREN_GOAL_S
        met = met and t_diff < DIFF_GOAL_S
        print(
            f"{name:34} {_ms(t_preview)} {_ms(t_tree)} {_ms(t_diff)} {_ms(t_apply)}  "
            f"{summary(change)}{'' if ok else '  APPLY MISMATCH'}"
        )
    for name, value in preview_only().items():
        t_preview = best(partial(preview, value), repeats)
        met = met and t_preview < PREVIEW_GOAL_S
        print(f"{name:34} {_ms(t_preview)}")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 2")
    parser.add_argument("--check", action="store_true", help="exit 1 if a goal is missed")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 5
    print(f"Python {platform.python_version()} on {platform.machine()}, best of {repeats}")
    met = time_values(repeats)
    t_draw = best(partial(draw, random_topology(), 200, 200), repeats)
    met = met and t_draw < DRAW_GOAL_S
    print(f"{f'drawing {DRAWN_NODES} random nodes, 200x200':34} {_ms(t_draw)}")
    print(
        f"goals: previews and a page of children under {PREVIEW_GOAL_S * 1000:.0f} ms, diffs "
        f"under {DIFF_GOAL_S:g} s, the drawing under {DRAW_GOAL_S:g} s -> "
        f"{'met' if met else 'missed'}"
    )
    return 1 if args.check and not met else 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.3f}ms"


if __name__ == "__main__":
    sys.exit(main())
