"""Subgraphs in the session: node paths (``research/summarize``) where a node name goes.

A verb that takes a node (``break``, ``tbreak``, ``until``) or a channel (``watch``) takes a
path into a subgraph too (conditions on those read the subgraph's frame:
:mod:`~sgdebug.debugger.subgraph_watch`). :func:`node_refusal` checks one against the
graph's topology (an unknown path names what exists) and against the engine: stopping
inside a subgraph is the ``subgraph`` feature of
:class:`~sgdebug.debugger.results.Capabilities`, and an engine without it refuses the path
with its reason instead of taking a breakpoint that would never fire.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from sgdebug.debugger.breakpoints import ANY_NODE
from sgdebug.debugger.subgraph_watch import condition_refusal, frame_channels, frame_graph
from sgdebug.inspect.node_paths import PATH_SEP, check_path, join_path, split_path, subgraph_at

if TYPE_CHECKING:
    from sgdebug.debugger.core import SessionCore
    from sgdebug.debugger.results import TaskInfo

__all__ = [
    "LANGGRAPH_SUBGRAPH",
    "SUBGRAPH",
    "break_refusal",
    "channel_paths",
    "channel_refusal",
    "inner_statuses",
    "is_path",
    "node_refusal",
    "unstoppable",
]

SUBGRAPH: Final = "subgraph"
"""The capability of stopping inside a subgraph: breakpoints before/after its nodes
(``break``/``tbreak`` on a node path, with a condition on its frame), watches on its
channels, ``until`` one of its nodes, and ``step``/``next``/``finish`` between its
supersteps (:mod:`~sgdebug.debugger.subgraph_motion`)."""
LANGGRAPH_SUBGRAPH: Final = (
    "a LangGraph server runs a subgraph inside one task of the parent's superstep and its "
    "runs take interrupt_before/after for the root graph only, so the run stops in a "
    "subgraph only at an interrupt() or a breakpoint compiled into it (then the tasks pane "
    "shows the subgraph's state)"
)
"""Why the remote engine cannot stop inside a subgraph (the LangGraph engine sets the
compiled subgraphs' own interrupt_before/after: :mod:`~sgdebug.debugger.engines._lg_breaks`)."""


def is_path(name: str) -> bool:
    """Whether ``name`` goes into a subgraph (``research/summarize``)."""
    return PATH_SEP in name


def node_refusal(core: SessionCore, node: str, *, breakpoint: bool = False) -> str | None:
    """Why ``node`` (a name, a path, or ``*``) cannot be ``until``'s node, or with
    ``breakpoint`` a breakpoint's (``None``: it can; both need the engine to stop inside a
    subgraph, :data:`SUBGRAPH`)."""
    if node == ANY_NODE:
        return None
    if not is_path(node):
        if node in core.node_names:
            return None
        return f"no node named {node!r} (nodes: {', '.join(core.node_names)})"
    if problem := check_path(core.topology, node):
        return problem + _called(core, node)
    return _engine_refusal(core, node, ()) or _no_checkpoint(core, node, split_path(node)[:-1])


def break_refusal(core: SessionCore, node: str, condition: str | None) -> str | None:
    """Why ``break``/``tbreak`` cannot take ``node`` (with ``condition``; ``None``: it can).
    A condition on a node path reads the subgraph's frame, so its names are checked against
    that subgraph's channels (a root node's condition is checked by the caller)."""
    if problem := node_refusal(core, node, breakpoint=True):
        return problem
    if condition and is_path(node):
        return condition_refusal(core, split_path(node)[:-1], condition)
    return None


def channel_refusal(core: SessionCore, channel: str, condition: str | None = None) -> str | None:
    """Why ``channel`` (a state key, or ``SUBGRAPH/key``) cannot be watched, with
    ``condition`` (``None``: it can). A subgraph's channel's condition reads that frame
    (with ``old``/``new``); a root channel's is checked by the caller."""
    if not is_path(channel):
        if channel in core.channel_names:
            return None
        keys = ", ".join(core.channel_names)
        return f"no channel named {channel!r} (channels: {keys})"
    *frame, key = split_path(channel)
    where = PATH_SEP.join(frame)
    if problem := check_path(core.topology, where):
        return problem
    if subgraph_at(core.topology, frame) is None:
        return f"{where!r} runs no subgraph, so {channel!r} names no channel" + _called(core, where)
    if problem := _engine_refusal(core, channel, ()) or _no_checkpoint(core, channel, frame):
        return problem
    channels = frame_channels(core.engine.graph, frame)
    if channels is not None and key not in channels:
        return f"no channel named {key!r} in {where} (its channels: {', '.join(channels)})"
    if condition:
        return condition_refusal(core, frame, condition, ("old", "new"))
    return None


def _called(core: SessionCore, path: str) -> str:
    from sgdebug.debugger.called_graphs import called_note

    return called_note(core.engine.graph, path)


def _engine_refusal(core: SessionCore, name: str, more: tuple[str, ...]) -> str | None:
    capabilities = core.engine.capabilities
    reason = next(filter(None, map(capabilities.why_not, (SUBGRAPH, *more))), None)
    if reason is None:
        return None
    engine = capabilities.engine
    return f"{name!r} is inside a subgraph: not available on the {engine} engine: {reason}"


def unstoppable(root: Any, frame: Sequence[str]) -> str | None:
    """The first frame on the way to ``frame`` (``research``, ``a/b``) whose subgraph was
    compiled with ``checkpointer=False`` (``None``: none was): it keeps no checkpoint, so a
    run cannot stop inside it (nor in the subgraphs it runs) and go on from there."""
    for depth in range(1, len(frame) + 1):
        graph = frame_graph(root, frame[:depth])
        options = getattr(graph, "options", None)  # (sgdebug's runtime keeps it there)
        if graph is not None and False in (
            getattr(graph, "checkpointer", None),
            getattr(options, "checkpointer", None),
        ):
            return join_path(frame[:depth])
    return None


def _no_checkpoint(core: SessionCore, name: str, frame: Sequence[str]) -> str | None:
    where = unstoppable(core.engine.graph, frame)
    if where is None:
        return None
    return (
        f"{name!r} is inside {where}, a subgraph compiled with checkpointer=False: it keeps "
        "no checkpoint, so the run cannot stop inside it (it runs whole)"
    )


InnerStatus = Literal["pending", "error"]


def inner_statuses(tasks: Sequence[TaskInfo]) -> tuple[tuple[str, InnerStatus], ...]:
    """``(path, status)`` of the nodes waiting inside the subgraphs the pending ``tasks``
    stand in (a task's :attr:`~TaskInfo.subgraph` snapshot, at any depth): what the graph
    view marks on the inner nodes while the run is inside."""
    found: dict[str, InnerStatus] = {}
    for task in tasks:
        if task.subgraph is not None:
            found.update(_waiting((task.name,), task.subgraph))
    return tuple(found.items())


def _waiting(frame: tuple[str, ...], snap: Any) -> Iterator[tuple[str, InnerStatus]]:
    for inner in getattr(snap, "tasks", ()) or ():
        path = (*frame, inner.name)
        yield join_path(path), "error" if inner.error else "pending"
        if inner.state is not None and hasattr(inner.state, "tasks"):
            yield from _waiting(path, inner.state)


def channel_paths(core: SessionCore) -> list[str]:
    """The channels of every subgraph, as paths from the root (``research/notes``), for
    completion; none when the engine cannot stop inside a subgraph."""
    if core.engine.capabilities.why_not(SUBGRAPH):
        return []
    found: list[str] = []
    for path in core.node_paths:
        frame = split_path(path)
        for key in frame_channels(core.engine.graph, frame) or ():
            found.append(join_path((*frame, key)))
    return found
