"""What a session debugs and how it is set up: the target, options, and the store protocol."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sgdebug.debugger.results import EngineName
from sgdebug.runtime import CompiledStateGraph

__all__ = ["LoadedTargetLike", "SessionOptions", "SessionStore", "Target", "as_target"]


@dataclass(frozen=True, slots=True)
class Target:
    """The graph being debugged, the names its expressions see, and how to call it."""

    graph: Any
    """The user's compiled graph (``sgdebug.runtime`` or LangGraph); the engine compiles its
    builder again with the session's checkpointer."""
    namespace: Mapping[str, Any] = field(default_factory=dict)
    """The user's module globals, visible in expressions (read live, never written)."""
    label: str = "graph"
    """How to name the target to the user (``pkg.mod:graph``)."""


class LoadedTargetLike(Protocol):
    """What the loader returns (``sgdebug.debugger.loading.LoadedTarget``)."""

    @property
    def graph(self) -> Any: ...
    @property
    def namespace(self) -> Mapping[str, Any]: ...
    @property
    def label(self) -> str: ...


def as_target(target: Target | LoadedTargetLike | Any) -> Target:
    """A :class:`Target` from a target, a loaded target, or a bare compiled graph."""
    if isinstance(target, Target):
        return target
    if isinstance(target, CompiledStateGraph) or not hasattr(target, "namespace"):
        return Target(target, {}, getattr(target, "name", "graph") or "graph")
    return Target(target.graph, target.namespace, target.label)


class SessionStore(Protocol):
    """Where a session saves what the checkpointer does not hold (the session file is one).

    The session calls ``save_input`` and ``save_thread`` when a run starts (and
    ``save_channels(layout)`` too, if the store has it: the graph's channel layout, see
    :mod:`~sgdebug.debugger.channel_layout`), and ``save_breakpoints``
    (``Breakpoint.to_dict()`` objects) after the table changed. To
    reopen, build the session with ``breakpoints=[Breakpoint.from_dict(d) ...]`` and call
    :meth:`Session.attach` with the saved thread and input.
    """

    def save_input(self, value: Any) -> None:
        """The run's input (on start and restart)."""
        ...

    def save_breakpoints(self, breakpoints: Sequence[Mapping[str, Any]]) -> None:
        """The whole breakpoint table, as JSON objects."""
        ...

    def save_thread(self, thread_id: str) -> None:
        """The thread of the current run (when a run starts)."""
        ...


def _new_thread_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class SessionOptions:
    """How a session runs its graph."""

    recursion_limit: int | None = None
    """Passed as the run's ``recursion_limit`` (LangGraph's default when ``None``)."""
    thread_ids: Callable[[], str] = _new_thread_id
    """Makes the thread id of each run (inject a counter for deterministic tests)."""
    engine: EngineName | None = None
    """The engine to run the graph on; ``None`` picks the one the graph was built for."""
    saved_channels: Mapping[str, str] | None = None
    """The channel layout a reopened session was saved with (``SessionRecord.channels``):
    ``attach`` notes what differs in the graph now (``SessionView.notes``)."""
