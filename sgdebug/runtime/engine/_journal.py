"""What a run asks of the persistence that records it (:class:`Journal`), and what it reports.

The engine does not import ``sgdebug.runtime.persist``: persistence sits above it (it makes
and restores runs), so a run talks to its recorder through this protocol only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from sgdebug.runtime.checkpoint.base import CheckpointId, CheckpointRecord, Source

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task

RunT = TypeVar("RunT", contravariant=True)
"""The run a journal records (``persist`` records the concrete ``Run``)."""

__all__ = ["Journal", "Mutation"]


@dataclass(frozen=True, slots=True)
class Mutation:
    """A channel whose value a node changed in place during a step."""

    step: int
    """The superstep in which it happened."""
    channel: str
    """The channel whose value was mutated."""
    tasks: tuple[str, ...]
    """The nodes of that step that received the value (one of them did it)."""
    written: bool = False
    """Whether the channel was also written in that step: an ``operator.add`` list changed
    in place and then appended to (``state["log"].append(x); return {"log": [x]}`` stores
    ``x`` twice). Without a write, the change is all the channel got."""


class Journal(Protocol[RunT]):
    """Records a run's checkpoints and task writes as it goes (``persist.Persistence``)."""

    head: CheckpointId | None
    """The checkpoint the run is at (``None`` before the first save)."""
    astore: Callable[[], Awaitable[None]] | None
    """For an async run whose saver stores through its own ``aput``/``aput_writes``: awaits
    the stores made since (the run calls it between phases and when it ends); else ``None``."""

    @property
    def mutations(self) -> Sequence[Mutation]:
        """In-place changes found so far."""
        ...

    @property
    def record(self) -> CheckpointRecord | None:
        """The checkpoint the run is at."""
        ...

    def save(
        self,
        run: RunT,
        source: Source,
        step: int | None = None,
        moved: Iterable[str] | None = None,
        lone: Task | None = None,
        *,
        parent: str | None = "",
    ) -> CheckpointRecord | None:
        """Store the run's channels as a new checkpoint."""
        ...

    def load(self, record: CheckpointRecord) -> dict[str, Any]:
        """The channel values stored with ``record``."""
        ...

    def task_done(self, task: Task, *, defer: bool = False) -> None:
        """``task`` finished (ran, failed or was interrupted): store or buffer its writes."""
        ...

    def flush(self, lone: Task | None = None) -> None:
        """Store the buffered task writes now (and those of ``lone``, left for the save)."""
        ...

    def finish(self, *, store: bool = True) -> None:
        """The run ended: store what ``durability="exit"`` kept back (else nothing to do);
        without ``store``, drop it."""
        ...

    def check_mutations(self, run: RunT, tasks: Sequence[Task], *, committed: bool = True) -> None:
        """Compare the channels ``tasks`` read with what was stored; record in-place changes."""
        ...

    def mark_interrupt(self, run: RunT) -> None:
        """A static breakpoint stopped the run: remember the versions it stopped at."""
        ...
