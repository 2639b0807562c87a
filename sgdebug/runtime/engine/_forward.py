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

Streaming subgraphs, or the ``custom`` or ``messages`` mode, the caller gets each event
as it settles, while the step that made it still runs (:func:`live_events`: a subgraph's
updates, custom chunks as a node writes them, a graph's own parallel tasks as they finish,
see :mod:`._finish_order`). So does every ``astream`` of a root graph, as LangGraph's
(a parallel task's update comes while the others still run; a reader closing the stream
then cancels them). Other streams get a step's events when the step ends (in the same
order).
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from sgdebug.runtime.engine._stream import Emitter

if TYPE_CHECKING:
    from sgdebug.runtime.engine._nesting import Parent
    from sgdebug.runtime.engine._state import RunState

__all__ = [
    "Forward", "LiveSink", "Sink", "astream_events", "nested_emitter", "passes_on_only",
    "stream_events",
]  # fmt: skip

Event = tuple[Any, ...]
log = logging.getLogger("sgdebug.runtime")
POLL_S = 0.01
CLOSED = "sgdebug: the stream was closed"
"""The message of the cancellation of a step whose stream its reader closed."""
"""How often ``astream`` looks for a running step's events (seconds)."""


class Sink(Protocol):
    """Where an emitter passes its settled events on (:meth:`Emitter.flush`)."""

    @property
    def modes(self) -> frozenset[str]:
        """The modes the root stream asked for."""
        ...

    def pass_on(self, events: Sequence[Event]) -> list[Event]:
        """Take ``events``; return those the emitter's own caller keeps."""
        ...


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
        self.target.flush()  # the parent runs the task that runs us: its events stand
        return kept


class LiveSink:
    """The end of a stream of subgraphs: settled events wait here for the caller's thread,
    which yields them while the step that made them still runs."""

    def __init__(self, modes: frozenset[str]) -> None:
        self.modes = modes
        self.queue: deque[Event] = deque()
        self.ready = threading.Event()
        """Set when events (or a step's end) arrive."""

    def pass_on(self, events: Sequence[Event]) -> list[Event]:
        """Queue ``events`` for the caller (it keeps none in the emitter)."""
        self.queue.extend(events)
        self.ready.set()
        return []

    def take(self) -> Iterator[Event]:
        """The events queued so far."""
        items = self.queue
        while items:
            yield items.popleft()


LIVE_MODES = frozenset({"custom", "messages", "tools"})
"""Modes whose events a node makes while it runs: streamed as they are made, as in LangGraph."""


def _live(emit: Emitter) -> bool:
    """Whether a stream yields events as they settle: streaming subgraphs, or a mode whose
    events nodes make while they run (a custom chunk, a model's token)."""
    return emit.forward is None and (emit.subgraphs or not LIVE_MODES.isdisjoint(emit.modes))


def stream_events(step: Callable[[], str], emit: Emitter) -> Iterator[Event]:
    """The events of a stream, ``step`` (one superstep, returning the run's status) after
    step: drained as each step ends, or, streaming subgraphs or custom chunks or messages,
    as they settle (:func:`live_events`)."""
    if _live(emit):
        sink = emit.forward = LiveSink(emit.modes)
        yield from live_events(step, sink)
        return
    while True:
        try:
            status = step()
        finally:
            yield from emit.drain()
        if status != "running":
            return


async def astream_events(
    step: Callable[[], Awaitable[str]], emit: Emitter
) -> AsyncGenerator[Event, None]:
    """:func:`stream_events` for ``astream``: a root run's events always as they settle
    (as LangGraph, a parallel task's update comes while the others still run)."""
    if emit.forward is None:
        sink = emit.forward = LiveSink(emit.modes)
        async with aclosing(alive_events(step, sink)) as events:  # (closed with this one)
            async for event in events:
                yield event
        return
    while True:
        try:
            status = await step()
        finally:
            for event in emit.drain():
                yield event
        if status != "running":
            return


def live_events(step: Callable[[], str], sink: LiveSink) -> Iterator[Event]:
    """Run ``step`` (one superstep, returning the run's status) until the run stops, each
    in a worker thread, yielding events as they settle. The caller's thread only yields:
    so a stream shows a subgraph's events while the step that runs it still runs."""
    stepper = _Stepper(step, sink)
    stepper.start()
    try:
        while True:
            stepper.requests.put(True)
            result = None
            while result is None:
                sink.ready.wait()
                sink.ready.clear()
                yield from sink.take()
                result = stepper.result()
            yield from sink.take()
            if isinstance(result, BaseException):
                raise result
            if result != "running":
                return
    finally:
        stepper.requests.put(False)
        stepper.join()  # a stream closed mid-step lets the step finish first


class _Stepper(threading.Thread):
    """Runs one step per request, in the context the stream was started in."""

    def __init__(self, step: Callable[[], str], sink: LiveSink) -> None:
        super().__init__(name="sgdebug-stream", daemon=True)
        self.step, self.sink = step, sink
        self.context = contextvars.copy_context()
        self.requests: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self.results: queue.SimpleQueue[str | BaseException] = queue.SimpleQueue()

    def run(self) -> None:
        while self.requests.get():
            try:
                outcome: str | BaseException = self.context.run(self.step)
            except BaseException as exc:
                outcome = exc
            self.results.put(outcome)
            self.sink.ready.set()

    def result(self) -> str | BaseException | None:
        """The outcome of the step asked for, once it is over."""
        try:
            return self.results.get_nowait()
        except queue.Empty:
            return None


async def alive_events(
    step: Callable[[], Awaitable[str]], sink: LiveSink
) -> AsyncGenerator[Event, None]:
    """:func:`live_events` for ``astream``: each step is a task on the running loop. As
    LangGraph, a stream its reader closes mid-step (or whose reader is cancelled) cancels
    the step's tasks (:data:`CLOSED` tells the step which of the two it was)."""
    import asyncio  # (not at import: only an async run gets here)

    while True:
        task = asyncio.ensure_future(step())
        why = None
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=POLL_S)
                for event in sink.take():
                    yield event
        except GeneratorExit:
            why = CLOSED
            raise
        finally:
            if not task.done():
                task.cancel(why)
                await asyncio.wait({task})
                if not task.cancelled() and (error := task.exception()) is not None:
                    # (what failed as it stopped, e.g. its exit save: LangGraph lets the
                    # stream close without raising it; it is logged, not lost)
                    log.warning("the closed stream's run failed as it stopped", exc_info=error)
        for event in sink.take():
            yield event
        if task.result() != "running":
            return


def nested_emitter(
    local: Emitter | None, parent: Parent | None, values_keys: str | Sequence[str]
) -> Emitter | None:
    """The emitter of a run: ``local`` (its caller's stream, if any), joined to the
    parent's stream when the run is a subgraph of a run streamed with ``subgraphs=True``
    (or to the parent's ``RunOptions.inner_emit`` when it is not)."""
    if parent is None:
        return local
    target = parent.run.emit
    if target is None or not target.subgraphs:
        target = cast("RunState", parent.run).options.inner_emit
        if target is None:
            return local
    modes = target.modes if target.forward is None else target.forward.modes
    emit = local if local is not None else Emitter(modes, values_keys)
    own = local.modes if local is not None else frozenset()
    emit.modes = own | modes
    emit.subgraphs = True
    emit.forward = Forward(target, parent.namespace, modes, own)
    if emit.messages is not None and target.messages is not None:
        # A message streamed under the subgraph's namespace is not streamed again when
        # the parent's task returns it (LangGraph).
        emit.messages.seen, emit.messages.lock = target.messages.seen, target.messages.lock
    return emit


def passes_on_only(emit: Emitter) -> bool:
    """Whether ``emit`` is a subgraph's run's that only passes its events on to its
    parent's stream (the run's own caller streams nothing)."""
    forward = emit.forward
    return isinstance(forward, Forward) and not forward.local
