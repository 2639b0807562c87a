"""Time ``sgdebug.inspect`` previews and diffs on huge values.

Usage::

    python benchmarks/inspect_views.py            # best of 5
    python benchmarks/inspect_views.py --quick    # best of 2, a smoke run
    python benchmarks/inspect_views.py --check    # exit 1 if a preview misses its 10 ms goal

Values: a 1,000,000-item list, a 10 MB string, a 1,000,000-key dict, and a list of
1,000 chat messages. Previews have a goal (under 10 ms, issue 4); diffs are reported
(one append, one replacement in the middle, one edit in the middle of the text, one
changed key, one message edited in place), each followed by ``apply`` to check the diff.
Each measurement is the best of ``repeats`` runs with the garbage collector paused.
"""

from __future__ import annotations

import argparse
import gc
import platform
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from sgdebug.inspect.diff import apply, diff, summary
from sgdebug.inspect.preview import preview
from sgdebug.inspect.values import value_tree

PREVIEW_GOAL_S = 0.010
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="best of 2")
    parser.add_argument("--check", action="store_true", help="exit 1 if a preview goal is missed")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 5
    print(f"Python {platform.python_version()} on {platform.machine()}, best of {repeats}")
    print(f"{'value':34} {'preview':>10} {'children':>10} {'diff':>10} {'apply':>10}  diff")
    missed = False
    for name, (old, new) in values().items():
        tree = value_tree(old)
        change = diff(old, new)
        t_preview = best(partial(preview, old), repeats)
        t_tree = best(tree.children, repeats)
        t_diff = best(partial(diff, old, new), repeats)
        t_apply = best(partial(apply, old, change), repeats)
        ok = apply(old, change) == new
        missed = missed or t_preview >= PREVIEW_GOAL_S or not ok
        print(
            f"{name:34} {_ms(t_preview)} {_ms(t_tree)} {_ms(t_diff)} {_ms(t_apply)}  "
            f"{summary(change)}{'' if ok else '  APPLY MISMATCH'}"
        )
    verdict = "missed" if missed else "met"
    print(f"goal: every preview under {PREVIEW_GOAL_S * 1000:.0f} ms -> {verdict}")
    return 1 if args.check and missed else 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.3f}ms"


if __name__ == "__main__":
    sys.exit(main())
