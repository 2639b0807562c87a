"""``RunControl``: asking a running graph, from any thread, to stop between two steps."""

from __future__ import annotations

__all__ = ["RunControl"]


class RunControl:
    """Passed as ``invoke(..., control=)`` (and reachable as ``runtime.control`` in a node):
    after :meth:`request_drain`, the run finishes the step it is in and, before the next
    one, raises ``GraphDrained`` (a run with nothing left to do ends normally; a breakpoint
    before the next step still stops there). One per run: a drained control stays drained.

    Thread-safe: the request is one attribute write.
    """

    __slots__ = ("_reason",)

    def __init__(self) -> None:
        self._reason: str | None = None

    def request_drain(self, reason: str = "shutdown") -> None:
        """Ask the run to stop before its next step; ``reason`` is ``GraphDrained.reason``."""
        self._reason = reason

    @property
    def drain_requested(self) -> bool:
        """Whether a drain was requested."""
        return self._reason is not None

    @property
    def drain_reason(self) -> str | None:
        """The reason given to :meth:`request_drain`, if it was called."""
        return self._reason

    def __repr__(self) -> str:
        return f"RunControl(drain_reason={self._reason!r})"
