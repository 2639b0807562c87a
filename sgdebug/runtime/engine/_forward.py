"""A subgraph's stream events passed on to its parent's stream (``stream(subgraphs=True)``).

When a graph runs inside a task of a run whose stream asked for ``subgraphs=True``, its
run gets an emitter (its own, if its caller streams it too) whose events go on to the
parent's emitter, tagged with the subgraph's namespace: ``(mode, payload, namespace)``.
They go on as the run settles them (each planned step, each return of an advance), so
they reach the parent's stream in the order they happened, before the parent's own
report of the task that ran the subgraph. A grandchild's events pass through its parent's
emitter, keeping their place among that run's events. A stream without ``subgraphs=True``
makes no forwarding emitter: its subgraphs' runs stream nothing (as in LangGraph, not
even their ``custom`` chunks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.runtime.engine._stream import Emitter

if TYPE_CHECKING:
    from sgdebug.runtime.engine._nesting import Parent

__all__ = ["Forward", "nested_emitter"]


@dataclass(frozen=True, slots=True)
class Forward:
    """Where a subgraph's run sends its stream events."""

    target: Emitter
    """The parent run's emitter."""
    namespace: tuple[str, ...]
    """The subgraph run's namespace, the tag of its events."""
    modes: frozenset[str]
    """The modes the root stream asked for: the events passed on."""
    local: frozenset[str]
    """The modes the run's own caller streams (empty when it invokes the graph)."""

    def pass_on(self, events: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Append ``events`` to the parent's; return those the run's own caller keeps."""
        out = self.target.events
        kept: list[tuple[Any, ...]] = []
        namespace, modes, local = self.namespace, self.modes, self.local
        for event in events:
            if len(event) == 3:  # a deeper subgraph's, already tagged
                out.append(event)
                continue
            mode = event[0]
            if mode in modes:
                out.append((mode, event[1], namespace))
            if mode in local:
                kept.append(event)
        return kept


def nested_emitter(
    local: Emitter | None, parent: Parent | None, values_keys: str | Sequence[str]
) -> Emitter | None:
    """The emitter of a run: ``local`` (its caller's stream, if any), joined to the
    parent's stream when the run is a subgraph of a run streamed with ``subgraphs=True``."""
    if parent is None:
        return local
    target = parent.run.emit
    if target is None or not target.subgraphs:
        return local
    modes = target.modes if target.forward is None else target.forward.modes
    emit = local if local is not None else Emitter(modes, values_keys)
    own = local.modes if local is not None else frozenset()
    emit.modes = own | modes
    emit.subgraphs = True
    emit.forward = Forward(target, parent.namespace, modes, own)
    return emit
