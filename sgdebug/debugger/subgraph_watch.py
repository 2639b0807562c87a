"""Conditions and watches inside a subgraph: ``break before research/summarize if ...`` and
``watch research/notes``.

Both read the SUBGRAPH's frame, as the root graph's read the root's: a condition sees the
subgraph's channels by bare name (``len(notes) > 1``) and ``state`` is the subgraph's values;
a watch names a channel of the subgraph by path from the root (``research/notes``). Names are
checked when the breakpoint is set, against the channels of that subgraph
(:func:`frame_channels`).

At run time the engine stops the subgraph where one of them might fire (a path breakpoint's
node; for a watch, after every superstep of its frame: :func:`armed_frames`) and hands the
driver an :class:`InnerStop`: the frame's values, the path breakpoints placed there and the
watches whose channel that superstep changed (by channel version, as a root watch sees a
commit). The driver evaluates their conditions in the frame; when none fires (and the
subgraph was not compiled with a breakpoint there) the run re-enters past the stop, which
stores nothing LangGraph would not have stored anyway.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.breakpoints import Breakpoint, BreakpointTable
from sgdebug.debugger.evaluation import (
    ExpressionError,
    compile_expression,
    unknown_names,
    value_classes,
)
from sgdebug.debugger.subframes import breadcrumb, subgraph_of
from sgdebug.inspect.node_paths import PATH_SEP, join_path, split_path
from sgdebug.runtime.channels import MISSING

if TYPE_CHECKING:
    from sgdebug.debugger.core import SessionCore

__all__ = [
    "InnerStop",
    "NodeHit",
    "WatchHit",
    "armed_frames",
    "compiled_here",
    "condition_refusal",
    "frame_channels",
    "frame_graph",
    "watch_changes",
]

NodeHit = tuple[Breakpoint, tuple[str, ...]]
"""A path breakpoint placed where the subgraph stopped, with the node paths it matched."""
WatchHit = tuple[Breakpoint, Any, Any]
"""A watch whose channel the subgraph's last superstep changed, with the old and new value."""


@dataclass(frozen=True, slots=True)
class InnerStop:
    """Where a subgraph's run stopped, and the breakpoints that may fire there."""

    frame: tuple[str, ...]
    """The nodes from the root down to the one running the subgraph (``("research",)``)."""
    values: Mapping[str, Any]
    """The subgraph's state there (what its conditions call ``state``)."""
    snapshot: Any
    """The subgraph's ``StateSnapshot`` there (what its conditions call ``snapshot``)."""
    nodes: tuple[NodeHit, ...] = ()
    """``before`` breakpoints on the nodes it runs next, ``after`` ones on those it just ran."""
    changes: tuple[WatchHit, ...] = ()
    """Watches on its channels that its last superstep changed."""
    compiled: bool = True
    """The subgraph was compiled with a breakpoint there (or where it stopped is unknown):
    the run stops even when none of the debugger's breakpoints fires."""


def frame_graph(root: Any, frame: Sequence[str]) -> Any:
    """The compiled graph the nodes of ``frame`` run (``root`` for ``()``; ``None``: none)."""
    graph = root
    for name in frame:
        if graph is None:
            return None
        graph = subgraph_of(graph, name)
    return graph


def frame_channels(root: Any, frame: Sequence[str]) -> tuple[str, ...] | None:
    """The channels (state keys) of the subgraph at ``frame`` (``None``: it cannot be found)."""
    graph = frame_graph(root, frame)
    keys = getattr(graph, "stream_keys", None)
    if keys is None:
        return None
    return (keys,) if isinstance(keys, str) else tuple(keys)


def condition_refusal(
    core: SessionCore, frame: Sequence[str], condition: str, extra: Sequence[str] = ()
) -> str | None:
    """Why ``condition`` cannot be a condition in the subgraph frame ``frame`` (``None``: it
    can): it does not compile, or reads a name neither the subgraph's channels, ``extra``,
    the session's names nor the module define."""
    try:
        compile_expression(condition)
    except ExpressionError as exc:
        return f"bad condition: {exc}"
    channels = frame_channels(core.engine.graph, frame) or ()
    providers = core.providers()
    known = core.evaluator.known_names(providers, {}) | {*channels, *extra}
    if core.started:
        known |= value_classes(core.engine.values()).keys()
    unknown = unknown_names(condition, known)
    if not unknown:
        return None
    names = ", ".join(map(repr, unknown))
    others = ", ".join((*extra, *providers))
    return (
        f"bad condition: {names} is not defined in {breadcrumb(frame)} (its channels: "
        f"{', '.join(channels) or '(none)'}; also: {others} and the module's names)"
    )


def armed_frames(table: BreakpointTable) -> frozenset[str]:
    """The frames (``research``) that enabled watches on a subgraph's channel stop after
    every superstep of."""
    return frozenset(
        PATH_SEP.join(split_path(bp.target)[:-1])
        for bp in table.all
        if bp.kind == "watch" and bp.enabled and PATH_SEP in bp.target
    )


def watch_changes(
    table: BreakpointTable, frame: tuple[str, ...], versions: _Versions, values: _Values
) -> tuple[WatchHit, ...]:
    """The enabled watches on channels of ``frame`` that changed between two of the
    subgraph's checkpoints: ``versions`` and ``values`` are (before, after) pairs."""
    before, after = versions
    changed = {
        join_path((*frame, key)): key
        for key in {*before, *after}
        if before.get(key) != after.get(key)
    }
    old, new = values
    return tuple(
        (bp, old.get(changed[bp.target], MISSING), new.get(changed[bp.target], MISSING))
        for bp in table.watches(changed)
    )


_Versions = tuple[Mapping[str, Any], Mapping[str, Any]]
_Values = tuple[Mapping[str, Any], Mapping[str, Any]]


def compiled_here(graph: Any, upcoming: Iterable[str], ran: Iterable[str]) -> bool:
    """Whether ``graph`` was compiled to stop before one of ``upcoming`` or after one of
    ``ran`` (``interrupt_before``/``interrupt_after``)."""
    return _names_in(getattr(graph, "interrupt_before_nodes", ()), upcoming) or _names_in(
        getattr(graph, "interrupt_after_nodes", ()), ran
    )


def _names_in(compiled: Sequence[str] | str, names: Iterable[str]) -> bool:
    if not compiled:
        return False
    listed = list(names)
    return bool(listed) if compiled == "*" else any(n in compiled for n in listed)
