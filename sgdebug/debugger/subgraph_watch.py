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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.breakpoints import Breakpoint, BreakpointTable
from sgdebug.debugger.evaluation import (
    ExpressionError,
    compile_expression,
    unknown_names,
    value_classes,
)
from sgdebug.debugger.results import Hit
from sgdebug.debugger.subframes import breadcrumb, frame_chain, subgraph_of
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
    "standing_stop",
    "stop_in_frame",
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
    if keys is None and hasattr(getattr(graph, "builder", None), "channels"):
        keys = tuple(graph.builder.channels)  # a LangGraph subgraph: its state keys
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


def stop_in_frame(
    graph: Any, frame: tuple[str, ...], snap: Any, table: BreakpointTable
) -> InnerStop:
    """The stop of the subgraph at ``frame`` (of the root ``graph``), standing at ``snap``,
    and the path breakpoints of ``table`` that may fire there: ``before`` ones on the nodes
    it runs next, ``after`` ones on those of the step it just committed, watches on the
    channels that step changed."""
    previous = graph.get_state(snap.parent_config) if snap.parent_config is not None else None
    ran = tuple(previous.next) if previous is not None else ()
    hits = [*table.matching_nodes("before", sorted(_paths(frame, snap.next)))]
    hits += table.matching_nodes("after", sorted(_paths(frame, ran)))
    nodes = tuple((bp, matched) for bp, matched in hits if PATH_SEP in bp.target)
    changes: tuple[WatchHit, ...] = ()
    if previous is not None:
        saver = graph.checkpointer
        versions = (_versions(saver, snap.parent_config), _versions(saver, snap.config))
        changes = watch_changes(table, frame, versions, (previous.values, snap.values))
    compiled = compiled_here(frame_graph(graph, frame), snap.next, ran)
    return InnerStop(frame, snap.values, snap, nodes, changes, compiled)


def _versions(saver: Any, config: Any) -> Mapping[str, Any]:
    found = saver.get_tuple(config)
    return found.checkpoint["channel_versions"] if found is not None else {}


def _paths(frame: tuple[str, ...], names: Iterable[str]) -> set[str]:
    return {join_path((*frame, name)) for name in names}


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


def standing_stop(core: SessionCore) -> tuple[Hit, ...] | None:
    """The breakpoints the stored position stands stopped at inside a subgraph (a session
    file reopened there, or ``goto`` its latest snapshot), as hits; ``None`` when it does
    not stand inside one at a breakpoint of the session's (an interrupt() there is told as
    such; the frame is shown either way).

    Conditions are not evaluated again (the run stopped there, so they held; a held one
    from the file is still named): a breakpoint is named when its place matches."""
    chain = frame_chain(core.engine.model, core.engine.tasks())
    if not chain or chain[-1].snapshot.interrupts:
        return None
    inner = chain[-1]
    named = BreakpointTable(
        replace(bp, enabled=True) for bp in core.table.all if bp.enabled or bp.held
    )
    stop = stop_in_frame(core.engine.graph, inner.path, inner.snapshot, named)
    numbered = {bp.number: bp for bp in core.table.all}
    hits = [Hit(numbered[bp.number], nodes) for bp, nodes in stop.nodes]
    hits += [Hit(numbered[bp.number], old=old, new=new) for bp, old, new in stop.changes]
    return tuple(hits) or None
