"""How a run is driven: its config, limit, hooks, stream and breakpoints."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgdebug.runtime._control import RunControl
from sgdebug.runtime.engine._hooks import PauseHook
from sgdebug.runtime.engine._inner_breaks import InnerBreaks
from sgdebug.runtime.engine._nesting import Parent
from sgdebug.runtime.engine._stream import Emitter

__all__ = ["RunOptions"]


@dataclass(slots=True)
class RunOptions:
    """How a run is driven."""

    config: dict[str, Any]
    recursion_limit: int
    hooks: Sequence[PauseHook] = ()
    context: Any = None
    emit: Emitter | None = None
    """Collects stream events; ``None`` when nobody listens."""
    interrupt_before: tuple[str, ...] | str = ()
    """Nodes to stop before (``"*"`` for all)."""
    interrupt_after: tuple[str, ...] | str = ()
    """Nodes to stop after (``"*"`` for all)."""
    watch: frozenset[str] = frozenset()
    """Channels whose change sets :attr:`Run.watched_changed` (``invoke``'s output keys)."""
    durability: str | None = None
    """``"exit"``: only the checkpoint the run ends at is stored (``None``/``"sync"``/
    ``"async"``: every step's, before the next step starts)."""
    parent: Parent | None = None
    """The run and task this run is a subgraph of (``None`` for a root graph)."""
    control: RunControl | None = None
    """Asks the run to stop before its next step (``invoke(..., control=)``)."""
    inner_breaks: InnerBreaks | None = None
    """Breakpoints on subgraphs' nodes by path, inherited by every subgraph run
    (:mod:`~sgdebug.runtime.engine._inner_breaks`; a debugger's)."""
    store: Any = None
    """The store the run's nodes get: its graph's, or a subgraph's parent run's."""
    inner_emit: Emitter | None = None
    """Where the runs of subgraphs started inside this run's tasks send their events when
    the run is not streamed with ``subgraphs=True`` (its own events are not collected; a
    debugger's, to report the tasks of subgraphs no lookup of the graph finds)."""
