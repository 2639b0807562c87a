"""One run on the server: where it must stop, and what its debug stream tells.

A run always executes the step pending where it starts, then goes on until the server stops
it before (``interrupt_before``) or after (``interrupt_after``) a node named for the run, an
``interrupt()``, an error, or the end. :func:`run_stops` names those nodes so that the run
stops wherever the session's driver could stop: with ``interrupt_before="*"`` (every step:
``step N``, a pause at the first plan, a breakpoint on any node, a watch on a channel) the
run is one superstep; for ``continue`` and ``until`` with breakpoints on named nodes, the
server runs every superstep between them in one run (a run costs a round trip and the
server's queue), stopping before each node with a breakpoint (after the node too for an
``after`` breakpoint), so the driver sees the plan of every step it might stop at.

:class:`RunReader` reads the run's ``debug`` stream: each task that finished goes to the
observer (inside subgraphs too), and each superstep that committed becomes a
``CommitRecord`` (old value, writes by task, new value) from the stream's checkpoints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sgdebug.debugger.engine import Observer
from sgdebug.debugger.engines import _lg_subgraphs as subgraphs
from sgdebug.debugger.engines._lg_convert import commit_record

__all__ = ["EVERY_STEP", "RunReader", "Unobserved", "as_list", "pause_requested", "run_stops"]

EVERY_STEP: tuple[str, list[str]] = ("*", [])
"""Stop before every step (a run is one superstep)."""
_ANY_NODE = "*"


def run_stops(observer: Observer) -> tuple[str | list[str], list[str]]:
    """``(interrupt_before, interrupt_after)`` for a run the ``observer`` drives: every step
    unless the observer is the session's driver going to a breakpoint (``continue``,
    ``until``) whose breakpoints all name nodes."""
    goal, table = getattr(observer, "goal", None), getattr(observer, "table", None)
    kind = getattr(goal, "kind", None)
    if table is None or kind not in ("continue", "until"):
        return EVERY_STEP
    before: set[str] = {goal.node} if kind == "until" and goal.node else set()  # type: ignore[union-attr]
    after: set[str] = set()
    for bp in table.all:
        if not bp.enabled or bp.kind == "exception":
            continue  # (an error ends the run wherever it happens)
        if bp.kind not in ("before", "after") or bp.target == _ANY_NODE:
            return EVERY_STEP  # a watch or a breakpoint on every node: any step may stop
        (before if bp.kind == "before" else after).add(bp.target)
    # Stop before a node with an ``after`` breakpoint too: its step is then the first of the
    # next run, planned by the driver (which matches ``after`` breakpoints on that plan).
    return sorted(before | after), sorted(after)


class RunReader:
    """Reads one run's debug stream for the observer (``names``: the root tasks' nodes)."""

    def __init__(
        self,
        observer: Observer,
        start: str | None,
        values: Any,
        moved: Callable[[str], None] | None = None,
    ) -> None:
        self.names: dict[str, str] = {}
        self.commits = 0
        """How many supersteps committed in the run."""
        self.error: str | None = None
        """The error the run ended with (a node raised), as the server tells it."""
        self.observer = observer
        self._tasks = subgraphs.StepEvents(observer, self.names)
        self._at, self._values = start, values
        self._writes: list[tuple[str, str, Any]] = []
        self._moved = moved
        """Told each checkpoint a step made, before the observer hears of the step (so that
        the state the observer reads, for a breakpoint's condition, is the new one)."""

    def see(self, event: str, data: Any) -> None:
        """One part of the stream (``debug|ns...``, ``error``, ``metadata``, ...)."""
        kind, _, rest = event.partition("|")
        if kind == "error":
            self.error = _error_text(data)
        if kind != "debug" or not isinstance(data, Mapping):
            return
        namespace = tuple(rest.split("|")) if rest else ()
        self._tasks.see(namespace, data)
        if namespace:
            return
        payload = data.get("payload") or {}
        if data.get("type") == "task_result" and isinstance(payload.get("result"), Mapping):
            self._writes += [(str(payload["id"]), k, v) for k, v in payload["result"].items()]
        elif data.get("type") == "checkpoint":
            self._checkpoint(payload)

    def _checkpoint(self, payload: Mapping[str, Any]) -> None:
        configurable = (payload.get("config") or {}).get("configurable") or {}
        checkpoint = str(configurable.get("checkpoint_id") or "")
        metadata = payload.get("metadata") or {}
        values = payload.get("values")
        if checkpoint != self._at and metadata.get("source") == "loop":
            step = int(metadata.get("step", 0))
            before = self._values if isinstance(self._values, Mapping) else {}
            after = values if isinstance(values, Mapping) else {}
            record = commit_record(step, before, after, self._writes, self.names, {})
            self.commits += 1
            if self._moved is not None:
                self._moved(checkpoint)
            self.observer.committed(record, checkpoint)
        self._at, self._values, self._writes = checkpoint, values, []


class Unobserved:
    """The observer of a run nobody watches (the input step of a new run)."""

    def planned(self, step: int, tasks: Sequence[Any]) -> bool:
        return False

    def task_ran(self, task: Any) -> None:
        pass

    def committed(self, record: Any, checkpoint_id: str | None) -> None:
        pass

    def errored(self, error: Any) -> bool:
        return False


def pause_requested(observer: Observer) -> bool:
    """Whether the user asked the observer (the session's driver) to pause."""
    flag: Any = getattr(observer, "pause_requested", None)
    return bool(flag is not None and flag.is_set())


def _error_text(data: Any) -> str:
    if isinstance(data, Mapping):
        kind, text = data.get("error"), data.get("message")
        return f"{kind}: {text}" if kind and text else str(text or kind or data)
    return str(data)


def as_list(nodes: str | Sequence[str]) -> str | list[str] | None:
    """``interrupt_before``/``after`` as the server takes it (``None`` for none)."""
    if isinstance(nodes, str):
        return nodes
    return list(nodes) or None
