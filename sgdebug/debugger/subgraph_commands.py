"""The commands that move between the frames of a run stopped inside a subgraph."""

from __future__ import annotations

from sgdebug.debugger.command_spec import CommandSpec

__all__ = ["FRAME_COMMANDS"]

FRAME_COMMANDS: tuple[CommandSpec, ...] = (
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
        "pending task runs.",
        run=lambda s, a: s.down(),
        key="greater_than_sign",
        label="Down frame",
        key_help="Show the subgraph's frame again",
    ),
)
