"""Events a session reports to its observers while verbs run.

Front ends ``session.subscribe(callback)``; callbacks run synchronously in the thread that
runs the verb (the TUI's engine worker), so a TUI posts them on as messages. An observer
that raises is logged and skipped: it never breaks the session.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sgdebug.debugger.breakpoints import Breakpoint
from sgdebug.debugger.results import ErrorInfo, SessionView, TaskInfo
from sgdebug.runtime import CommitRecord, Interrupt

__all__ = [
    "BreakpointsChanged",
    "Closed",
    "Edited",
    "Errored",
    "Event",
    "EventBus",
    "HistoryChanged",
    "Interrupted",
    "Observer",
    "Paused",
    "Started",
    "Stepped",
    "TaskRan",
]

log = logging.getLogger("sgdebug.debugger")


@dataclass(frozen=True, slots=True)
class Started:
    """A run began on a new thread."""

    thread_id: str
    input: Any


@dataclass(frozen=True, slots=True)
class Stepped:
    """A superstep committed (sent for every step, also during a long ``continue``)."""

    record: CommitRecord
    checkpoint_id: str | None


@dataclass(frozen=True, slots=True)
class Planned:
    """The next superstep's tasks are known and about to run (also during a ``continue``)."""

    step: int
    tasks: tuple[str, ...]
    """Node names of the planned tasks."""


@dataclass(frozen=True, slots=True)
class TaskRan:
    """One task finished (its writes are known, not yet committed)."""

    task: TaskInfo


@dataclass(frozen=True, slots=True)
class Errored:
    """A node raised (the run is paused on it, or failed)."""

    error: ErrorInfo


@dataclass(frozen=True, slots=True)
class Interrupted:
    """``interrupt()`` in a node is waiting for an answer."""

    interrupts: tuple[Interrupt, ...]


@dataclass(frozen=True, slots=True)
class Paused:
    """A verb finished moving the run or the cursor: redraw from ``view``."""

    view: SessionView


@dataclass(frozen=True, slots=True)
class Edited:
    """State was edited; ``checkpoint_id`` is the new snapshot."""

    keys: tuple[str, ...]
    as_node: str | None
    checkpoint_id: str | None


@dataclass(frozen=True, slots=True)
class HistoryChanged:
    """Snapshots were added or the session moved to another one."""

    thread_id: str
    checkpoint_id: str | None


@dataclass(frozen=True, slots=True)
class BreakpointsChanged:
    """A breakpoint was added, removed, enabled, disabled or hit."""

    breakpoints: tuple[Breakpoint, ...]


@dataclass(frozen=True, slots=True)
class Closed:
    """``quit`` was called."""


Event = (
    Started
    | Stepped
    | Planned
    | TaskRan
    | Errored
    | Interrupted
    | Paused
    | Edited
    | HistoryChanged
    | BreakpointsChanged
    | Closed
)
Observer = Callable[[Event], None]


class EventBus:
    """Delivers events to subscribers, in subscription order."""

    def __init__(self) -> None:
        self._observers: list[Observer] = []
        self._lock = threading.Lock()

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Add ``observer``; returns a function that removes it."""
        with self._lock:
            self._observers.append(observer)

        def unsubscribe() -> None:
            with self._lock:
                if observer in self._observers:
                    self._observers.remove(observer)

        return unsubscribe

    def emit(self, event: Event) -> None:
        """Call every observer with ``event``; an observer's exception is logged, not raised."""
        with self._lock:
            observers = list(self._observers)
        for observer in observers:
            try:
                observer(event)
            except Exception:
                log.exception("session observer %r failed on %r", observer, type(event).__name__)
