"""Stops inside subgraphs on the LangGraph engine: breakpoints on a subgraph's nodes,
watches on its channels, and ``step``/``next``/``finish``/``until PATH`` inside it.

LangGraph honours a compiled subgraph's own ``interrupt_before``/``interrupt_after`` (its
``interrupt_before_nodes``/``interrupt_after_nodes``: node names or ``"*"``) when the parent
runs it as a node and it inherits the parent's checkpointer: the subgraph stops at its
checkpoint, the parent's ``stream`` ends with its task unfinished (no ``interrupt()``
question), ``get_state(config, subgraphs=True)`` shows the subgraph's snapshot in the
parent task's ``state``, and ``stream(None, config)`` re-enters it past the stop.

So for each move :func:`armed` sets those attributes on the compiled subgraph objects from
the same node paths the native engine hands its run (:func:`~._native_breaks.inner_breaks`:
the path breakpoints, ``FRAME/*`` after each superstep of a watched frame, the verb's
:attr:`~sgdebug.debugger.driver.Goal.inner`), added to the values the user compiled the
subgraph with, and restores the user's values when the move ends, however it ends. After a
stop inside, :func:`report` tells the driver where (the same
:class:`~sgdebug.debugger.subgraph_watch.InnerStop` as on the native engine), read after the
user's values are back, so a stop at one of them is told as the subgraph's own.

A compiled subgraph is one object wherever it is used: a subgraph added as two nodes (or at
two depths) stops at the union of what both frames ask; the driver answers ``False`` at a
frame that asked for nothing and the engine re-enters past it. A subgraph a node function
runs with ``sub.invoke(state)`` is no node of the topology, so no path names it; one compiled
with ``checkpointer=False`` (or inside one) keeps no checkpoint to stop at: it runs whole.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from sgdebug.debugger.engine import Observer
from sgdebug.debugger.engines import _lg_convert as convert
from sgdebug.debugger.engines._lg_async import Driver
from sgdebug.debugger.engines._lg_clock import TaskClock
from sgdebug.debugger.engines._lg_subgraphs import StepEvents
from sgdebug.debugger.engines._native_breaks import Breaking, inner_breaks, started
from sgdebug.debugger.engines._native_breaks import report as native_report
from sgdebug.debugger.results import TaskInfo
from sgdebug.debugger.subgraph_watch import frame_graph
from sgdebug.debugger.subgraphs import unstoppable
from sgdebug.inspect.node_paths import split_path
from sgdebug.runtime import StateSnapshot
from sgdebug.runtime.engine._inner_breaks import EVERY_NODE, InnerBreaks

__all__ = ["answered", "armed", "placements", "report", "stream_step", "unasked"]

_BEFORE = "interrupt_before_nodes"
_AFTER = "interrupt_after_nodes"

Names = set[str]
"""Node names a subgraph stops at (``{"*"}``: every node)."""


def placements(root: Any, breaks: InnerBreaks | None) -> dict[int, tuple[Any, Names, Names]]:
    """``id(subgraph)`` -> (the compiled subgraph, the node names to stop before, after),
    for every path of ``breaks`` whose frame runs a compiled subgraph of ``root``."""
    found: dict[int, tuple[Any, Names, Names]] = {}
    if breaks is None:
        return found
    for paths, side in ((breaks.before, 1), (breaks.after, 2)):
        for path in paths:
            *frame, name = split_path(path)
            graph = _stoppable(root, frame)
            if graph is None:
                continue
            entry = found.setdefault(id(graph), (graph, set(), set()))
            entry[side].add(name)
    return found


def _stoppable(root: Any, frame: list[str]) -> Any:
    """The compiled subgraph at ``frame``, if it can stop at its checkpoint (``None``: it
    is not a compiled subgraph, or it or a graph above it inside the root was compiled with
    ``checkpointer=False``: it keeps no checkpoint to stop at and re-enter from)."""
    graph = frame_graph(root, frame) if frame else None
    if graph is None or unstoppable(root, frame) is not None:
        return None
    return graph if hasattr(graph, _BEFORE) else None


@contextmanager
def armed(root: Any, observer: Any) -> Iterator[None]:
    """Within the block, the subgraphs of ``root`` stop where the session ``observer``
    (the driver: its breakpoint table and goal) asks; the user's values come back after."""
    breaks = inner_breaks(observer.table, observer.goal) if isinstance(observer, Breaking) else None
    chosen = placements(root, breaks)
    saved = [(g, getattr(g, _BEFORE), getattr(g, _AFTER)) for g, _, _ in chosen.values()]
    try:
        for graph, before, after in chosen.values():
            setattr(graph, _BEFORE, _joined(getattr(graph, _BEFORE), before))
            setattr(graph, _AFTER, _joined(getattr(graph, _AFTER), after))
        yield
    finally:
        for graph, before, after in saved:
            setattr(graph, _BEFORE, before)
            setattr(graph, _AFTER, after)


def _joined(own: Any, asked: Names) -> Any:
    """The user's ``interrupt_*`` value with the node names ``asked`` added."""
    if own == EVERY_NODE or EVERY_NODE in asked:
        return EVERY_NODE
    if not asked:
        return own
    return [*(own or ()), *sorted(asked - set(own or ()))]


def report(graph: Any, thread_id: str, step: int, observer: Any) -> bool:
    """Tell ``observer`` where the run stopped inside a subgraph (the innermost one that
    stopped, read from LangGraph's ``get_state(subgraphs=True)``); whether it stays stopped
    (an observer without breakpoints always stops)."""
    return native_report(graph, thread_id, step, observer, convert.snapshot)


def stream_step(
    driver: Driver, answer: Any, config: dict[str, Any], names: dict[str, str], observer: Observer
) -> Exception | None:
    """One superstep of the driver's graph through ``stream`` (``astream`` for an async one),
    its subgraphs :func:`armed`; tells the observer each task that finished (a subgraph's
    too, named ``parent/inner``; ``names`` collects the parent's task names by id). Returns
    the error the step ended with (the recursion limit's is raised)."""
    from langgraph.errors import GraphRecursionError

    clock = TaskClock()
    events = StepEvents(observer, names, clock)
    config = {**config, "callbacks": [clock]}  # (LangGraph adds the graph's own to it)
    try:
        with armed(driver.graph, observer):
            for namespace, _mode, event in driver.stream(
                answer, config, interrupt_before="*", stream_mode=["debug"], subgraphs=True
            ):
                events.see(namespace, event)
    except GraphRecursionError:
        raise
    except Exception as exc:
        return exc
    return None


def answered(snap: StateSnapshot, states: Mapping[str, StateSnapshot]) -> bool:
    """Whether every interrupt ``snap`` (the parent's head) shows was answered already: the
    task that carries it runs a subgraph (``states``: task id -> its snapshot) that stopped
    past the node that asked, at a breakpoint after it. LangGraph keeps showing the answered
    question on the parent until the parent's task finishes."""
    asking = [t for t in snap.tasks if t.interrupts]
    return bool(asking) and not any(_asks(states.get(t.id)) for t in asking)


def unasked(
    tasks: Sequence[TaskInfo], snap: StateSnapshot, states: Mapping[str, StateSnapshot]
) -> tuple[TaskInfo, ...]:
    """``tasks`` (of the parent's head ``snap``) without the interrupts :func:`answered`
    finds answered (the subgraph's own snapshot shows where it stands)."""
    if not snap.interrupts or not answered(snap, states):
        return tuple(tasks)
    return tuple(replace(t, interrupts=()) if t.interrupts else t for t in tasks)


def _asks(sub: StateSnapshot | None) -> bool:
    """Whether an interrupt() waits inside ``sub`` (``None``: the task is no started
    subgraph, so its interrupt is its own)."""
    if sub is None:
        return True
    return any(_asks(started(t.state)) for t in sub.tasks if t.interrupts)
