"""``RunView``: what a pause hook, the stream emitter, persistence and task calling may
read of a run, without importing (or being able to drive) the concrete ``Run``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from sgdebug.runtime.channels import BaseChannel
    from sgdebug.runtime.engine._journal import Mutation
    from sgdebug.runtime.engine._records import CommitRecord
    from sgdebug.runtime.engine._step_failure import StepFailure
    from sgdebug.runtime.engine._stream import Emitter
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.graph._plan import GraphPlan
    from sgdebug.runtime.types import Interrupt

__all__ = ["Phase", "RunView", "Status"]

Phase = Literal["plan", "execute", "commit", "done"]
"""Where a run stands in its superstep."""
Status = Literal["running", "paused", "done", "interrupted", "error"]
"""Why a run's ``advance`` returned."""


class RunView(Protocol):
    """A run, read-only."""

    @property
    def graph(self) -> GraphPlan:
        """The plan of the graph being run."""
        ...

    @property
    def config(self) -> Mapping[str, Any]:
        """The run's config (``invoke(input, config)``)."""
        ...

    @property
    def namespace(self) -> tuple[str, ...]:
        """The run's checkpoint namespace: ``()`` for a root graph, one ``"node:task_id"``
        part per level for a subgraph's run (see ``_nesting``)."""
        ...

    @property
    def context(self) -> Any:
        """The run's context object (``invoke(..., context=)``)."""
        ...

    @property
    def store(self) -> Any:
        """The store the run's nodes get: its graph's (``compile(store=)``) or, for a
        subgraph's run, its parent run's (``None`` without one)."""
        ...

    @property
    def emit(self) -> Emitter | None:
        """Collects the run's stream events (``None`` when nobody streams it)."""
        ...

    @property
    def step(self) -> int:
        """The superstep being planned, run or committed."""
        ...

    @property
    def stop(self) -> int:
        """The last step the recursion limit allows."""
        ...

    @property
    def phase(self) -> Phase: ...

    @property
    def status(self) -> Status: ...

    @property
    def tasks(self) -> Sequence[Task]:
        """The tasks of the planned step."""
        ...

    @property
    def channels(self) -> Mapping[str, BaseChannel]:
        """Channel name → its live channel (read them, do not update them)."""
        ...

    @property
    def versions(self) -> Mapping[str, int]: ...

    @property
    def versions_seen(self) -> Mapping[str, Mapping[str, int]]:
        """Node → the channel versions it last ran on."""
        ...

    @property
    def updated(self) -> AbstractSet[str] | None:
        """Channels the last commit made available (``None``: unknown, consider all)."""
        ...

    @property
    def moved(self) -> AbstractSet[str]:
        """Channels whose version the last application of writes moved."""
        ...

    @property
    def applies(self) -> int:
        """How many times writes were applied."""
        ...

    @property
    def max_version(self) -> int: ...

    @property
    def dirty(self) -> AbstractSet[str]: ...

    @property
    def interrupts(self) -> tuple[Interrupt, ...]: ...

    @property
    def last_commit(self) -> CommitRecord | None:
        """What the last commit did (only kept for a watched run)."""
        ...

    @property
    def failure(self) -> StepFailure | None: ...

    @property
    def checkpoint_id(self) -> str | None: ...

    @property
    def mutations(self) -> tuple[Mutation, ...]: ...

    def read_values(self, keys: Sequence[str] | str) -> Any:
        """The current values of ``keys`` (a single key gives the bare value)."""
        ...
