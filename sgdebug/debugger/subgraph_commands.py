"""The commands of subgraphs: ``open`` (a subgraph node's inner nodes; the TUI's graph draws
it open) and those that move between the frames of a run stopped inside a subgraph."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.command_spec import CommandSpec
from sgdebug.debugger.parsing import Arg
from sgdebug.debugger.results import Outcome

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = ["FRAME_COMMANDS", "open_subgraph"]


def open_subgraph(session: Session, path: str) -> Outcome:
    """The inner nodes of the subgraph node ``path`` runs (``value``: their paths), or a
    refusal naming what is wrong with ``path``."""
    from sgdebug.inspect.node_paths import check_path, join_path, split_path, subgraph_at
    from sgdebug.inspect.topology import END, START

    core = session.core
    topo = core.topology
    wrong = check_path(topo, path)
    inner = subgraph_at(topo, split_path(path)) if wrong is None else None
    if wrong is not None:
        return core.refuse("open", wrong)
    if inner is None:
        subs = [p for p in core.node_paths if subgraph_at(topo, split_path(p)) is not None]
        known = ", ".join(subs) or "none in this graph"
        return core.refuse("open", f"{path!r} runs no subgraph (subgraphs: {known})")
    names = [n.name for n in inner.nodes if n.name not in (START, END)]
    paths = tuple(join_path((path, name)) for name in names)
    return core.answer("open", paths, f"{path} runs a subgraph of {len(names)} node(s): "
                       f"{', '.join(names)} (break on them as {paths[0]}, ...)")  # fmt: skip


def _open(session: Session, args: Mapping[str, Any]) -> Outcome:
    return open_subgraph(session, str(args["node"]))


def _where(session: Session, args: Mapping[str, Any]) -> Outcome:
    from sgdebug.debugger.where import where

    return where(session)


FRAME_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        name="open",
        kind="query",
        needs="nothing",
        summary="List the nodes of the subgraph a node runs (as paths break and watch take).",
        help="`open NODE` lists the nodes of the subgraph NODE runs, as paths "
        "(research/summarize) that break, until and watch take. In the TUI it also draws "
        "NODE open in the graph, its inner nodes in place, as the `o` key does for the "
        "selected subgraph node (`o` on an inner node closes it again).",
        run=_open,
        args=(Arg("node", "node"),),
        key="o",
        takes="node",
        label="Open subgraph",
        key_help="Draw the selected subgraph node open in the graph (again: close it)",
    ),
    CommandSpec(
        name="up",
        kind="query",
        summary="Show the parent graph's frame (the run is inside a subgraph).",
        help="When the run stands inside a subgraph (stopped at an interrupt() there), the "
        "channel table, the pending tasks and the diff show the subgraph's state, under a "
        "breadcrumb (parent > research). `up` shows the frame of the graph that runs it; "
        "`down` goes back. Moving the run shows the innermost frame again.",
        run=lambda s, a: s.up(),
        key="less_than_sign",
        label="Up frame",
        key_help="Show the parent graph's frame (inside a subgraph)",
    ),
    CommandSpec(
        name="down",
        kind="query",
        summary="Show the frame of the subgraph the current frame runs.",
        help="Goes back down after `up`: the frame of the subgraph the shown frame's "
        "pending task runs. When several run beside each other (Sends to a subgraph "
        "node: the breadcrumb says `review 1/3`), `down N` shows the N-th; `up` then "
        "`down 2` goes from the first to the second.",
        run=lambda s, a: s.down(a.get("instance")),
        args=(Arg("instance", "int", optional=True),),
        key="greater_than_sign",
        label="Down frame",
        key_help="Show the subgraph's frame again",
    ),
    CommandSpec(
        name="where",
        kind="query",
        summary="Show where the run stands: each frame's step and tasks, the stop, the snapshot.",
        help="Like pdb's `where`: one line per graph the run stands in, the root graph "
        "first, then each subgraph it stopped inside, with the step each is about to run and "
        "its pending tasks (✓ ran, ⚑ asked through interrupt(), ✗ raised); `>` marks the "
        "frame `state` and `tasks` show (`up`/`down` move it). Then why the run stopped and "
        "which snapshot of which thread the session stands at.",
        run=_where,
        aliases=("bt",),
    ),
)
