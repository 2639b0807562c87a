"""What the TUI shows about one node, and a value as editable text."""

from __future__ import annotations

import inspect
import pprint
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from sgdebug.debugger import Breakpoint, TaskInfo
from sgdebug.debugger.frame import END_NODE, START_NODE, Frame
from sgdebug.debugger.render import hit_count
from sgdebug.inspect import GraphModel
from sgdebug.inspect.called_graphs import node_action
from sgdebug.inspect.topology import Topology
from sgdebug.tui.graph_paint import STATUS_WORD

if TYPE_CHECKING:
    from sgdebug.tui.screens.node_screen import NodeDetails

__all__ = ["MAX_EDIT_CHARS", "editable_text", "node_details", "task_details", "timing_text"]

MAX_EDIT_CHARS: Final = 200_000
"""Longer values are edited with ``set KEY = EXPR`` on the command line instead."""
_SHOWN: Final = {START_NODE: "START", END_NODE: "END"}


def _name(node: str) -> str:
    return _SHOWN.get(node, node)


def node_details(
    name: str, topology: Topology, frame: Frame | None, graph: GraphModel
) -> NodeDetails:
    """The details screen's content for node ``name``."""
    from sgdebug.tui.screens.node_screen import NodeDetails  # not on the first screen

    state = frame.node(name) if frame is not None else None
    incoming = tuple(
        f"{_name(e.source)} {'┄┄▶' if e.kind == 'conditional' else '──▶'} {_name(name)}"
        + (f"  (branch {e.branch})" if e.branch else "")
        for e in topology.edges
        if e.target == name
    )
    outgoing = tuple(
        f"{_name(name)} {'┄┄▶' if e.kind == 'conditional' else '──▶'} {_name(e.target)}"
        + (f"  (branch {e.branch})" if e.branch else "")
        for e in topology.edges
        if e.source == name
    )
    breakpoints = frame.view.breakpoints if frame is not None else ()
    return NodeDetails(
        name=_name(name),
        status=STATUS_WORD[state.status] if state is not None else "",
        source=_source(graph, name),
        incoming=incoming,
        outgoing=outgoing,
        breakpoints=_breakpoints(name, breakpoints),
        timing=_node_timing(name, frame),
        runs=_runs(name, topology),
    )


def _runs(name: str, topology: Topology) -> str:
    """The graph node ``name`` runs, in words (empty when it runs none)."""
    node = topology.node(name) if name in topology.names else None
    if node is None:
        return ""
    if node.kind == "subgraph":
        return f"a subgraph, added as the node (its nodes are paths: {name}/NODE)"
    if not node.calls:
        return ""
    named = ", ".join(repr(n) for n in node.calls if n)
    graphs = "a compiled graph" if len(node.calls) == 1 else f"{len(node.calls)} compiled graphs"
    return (
        f"{graphs}{f' ({named})' if named else ''} its function invokes, inside its one task "
        "(the run stops in its frame at an interrupt() there)"
    )


def _node_timing(name: str, frame: Frame | None) -> str:
    """``last 1.2 ms, total 3.5 ms over 3 tasks`` (empty when it was never timed)."""
    if frame is None or name not in frame.durations:
        return ""
    last = timing_text(frame.durations[name])
    total, count = frame.totals.get(name, (frame.durations[name], 1))
    if count <= 1:
        return last
    return f"{last}; all {count} runs this session: {timing_text(total)}"


def task_details(task: TaskInfo) -> tuple[str, dict[str, Any]]:
    """The Value pane's title and value for a pending (or run) task: its input, and once it
    ran, its writes, where it routes and how long it took."""
    value: dict[str, Any] = {"input": task.input, "triggers": list(task.triggers)}
    if task.done:
        value["writes"] = {k: v for k, v in task.writes if not k.startswith(("branch:", "__"))}
        value["routes"] = [k for k, _ in task.writes if k.startswith(("branch:", "__"))]
    if task.error is not None:
        value["error"] = task.error
    if task.interrupts:
        value["interrupts"] = [i.value for i in task.interrupts]
    took = f", {timing_text(task.duration)}" if task.duration is not None else ""
    kind = "Send task" if task.send else "task"
    return f"{kind} {task.name} · {task.state}{took}", value


def timing_text(seconds: float | None) -> str:
    """``42 µs``, ``12.3 ms``, ``4.10 s`` (empty when unknown): a quick node reads as
    the microseconds it took, not as ``0.0 ms``."""
    if seconds is None:
        return ""
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _breakpoints(name: str, breakpoints: Sequence[Breakpoint]) -> tuple[str, ...]:
    lines = []
    for bp in breakpoints:
        if bp.kind in ("before", "after") and bp.target in (name, "*"):
            state = "" if bp.enabled else " (disabled)"
            origin = " (from compile())" if bp.origin == "compile" else ""
            lines.append(f"#{bp.number} {bp.describe()}{state}{origin}, {hit_count(bp.hits)}")
    return tuple(lines)


def _source(graph: GraphModel, name: str) -> str:
    """``path/file.py:12 (qualified.name)`` for the node's function."""
    if name in (START_NODE, END_NODE):
        return "(a virtual node of the graph)"
    action: Any = node_action(graph, name)  # (LangGraph's node specs call it "runnable")
    if action is None:
        return "(unknown)"
    target = getattr(action, "func", None) or getattr(action, "afunc", None) or action
    try:
        target = inspect.unwrap(target)
        path = inspect.getsourcefile(target) or "?"
        line = inspect.getsourcelines(target)[1]
    except (TypeError, OSError):
        return f"({type(action).__name__}: source not available)"
    qualified = getattr(target, "__qualname__", type(target).__name__)
    return f"{path}:{line} ({qualified})"


def editable_text(value: Any) -> str | None:
    """``value`` as a Python literal to edit, ``None`` when it is too big to edit here."""
    text = pprint.pformat(value, width=72, sort_dicts=False)
    return text if len(text) <= MAX_EDIT_CHARS else None
