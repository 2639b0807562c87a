"""Breakpoints on a subgraph's nodes, named from the root graph (``research/summarize``).

A debugger stops before or after a node of a subgraph without recompiling anything: the
root run carries :class:`InnerBreaks` (``RunOptions.inner_breaks``), every subgraph run
started inside it inherits them, and a run whose frame (its namespace without task ids:
``("research",)``) holds one of the named nodes adds it to its own ``interrupt_before`` /
``interrupt_after``, as if the subgraph had been compiled with it. The subgraph then stops
at its checkpoint and its parent stops too (``GraphInterrupt`` with no interrupts);
resuming re-enters the subgraph there, past the breakpoint. A path ending in ``*``
(``research/*``) names every node of that frame: the subgraph's run stops before (after)
each of its supersteps, as if compiled with ``interrupt_before="*"`` (a debugger's step
inside a subgraph); it names no node of the subgraphs that frame runs. The root's value is read
when each subgraph run starts, so replacing it on a live run takes effect from the next
subgraph run. A run without them pays one ``None`` check.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.runtime.engine._nesting import Parent

__all__ = [
    "EVERY_NODE",
    "PATH_SEP",
    "InnerBreaks",
    "Interrupts",
    "every_node",
    "inherited",
    "with_inner_breaks",
]

PATH_SEP = "/"
"""Joins the node names of a path from the root graph."""
EVERY_NODE = "*"
"""The last part of a path naming every node of its frame (``research/*``)."""

Interrupts = Sequence[str] | str
"""A run's ``interrupt_before``/``interrupt_after``: node names, or ``"*"``."""


@dataclass(frozen=True, slots=True)
class InnerBreaks:
    """Nodes of subgraphs to stop before or after, by path from the root graph."""

    before: frozenset[str] = frozenset()
    """Paths to stop before (``"research/summarize"``; ``"research/*"``: every node)."""
    after: frozenset[str] = frozenset()
    """Paths to stop after."""

    def __post_init__(self) -> None:
        for path in (*self.before, *self.after):
            if not isinstance(path, str) or PATH_SEP not in path:
                raise ValueError(f"an inner breakpoint names a node path 'a/b', not {path!r}")

    def nodes_in(self, frame: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The node names (before, after) the subgraph run at ``frame`` stops at."""
        prefix = PATH_SEP.join(frame) + PATH_SEP
        return _names(self.before, prefix), _names(self.after, prefix)


def _names(paths: frozenset[str], prefix: str) -> tuple[str, ...]:
    found = (p[len(prefix) :] for p in paths if p.startswith(prefix))
    return tuple(sorted(n for n in found if PATH_SEP not in n))


def inherited(parent: Parent | None) -> InnerBreaks | None:
    """The inner breakpoints of the run ``parent`` names (``None`` for a root run)."""
    if parent is None:
        return None
    options = getattr(parent.run, "options", None)  # (a view hides it; a run has it)
    breaks: InnerBreaks | None = getattr(options, "inner_breaks", None)
    return breaks


def with_inner_breaks(
    breaks: InnerBreaks, frame: tuple[str, ...], before: Interrupts, after: Interrupts
) -> tuple[Interrupts, Interrupts]:
    """``before``/``after`` of a subgraph run at ``frame`` plus its inner breakpoints."""
    more_before, more_after = breaks.nodes_in(frame)
    return _merged(before, more_before), _merged(after, more_after)


def every_node(frame: tuple[str, ...]) -> str:
    """The path naming every node of the subgraph at ``frame`` (``research/*``)."""
    return PATH_SEP.join((*frame, EVERY_NODE))


def _merged(given: Interrupts, more: tuple[str, ...]) -> Interrupts:
    if isinstance(given, str) or not more:
        return given
    if EVERY_NODE in more:
        return EVERY_NODE
    return (*given, *(n for n in more if n not in given))
