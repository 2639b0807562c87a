"""Pure functions from runtime objects to plain frozen data for the views.

Topology and layout, channel rows, task rows, reducer diffs, snapshot diffs, the
history tree and value previews. No state, no I/O, no UI library: it imports only
``sgdebug.runtime`` and the standard library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# -- values, channels, tasks, diffs, history ------------------------------------------------
from sgdebug.inspect.channels import (
    ChannelRow,
    LastChange,
    changes_from_history,
    channel_rows,
    fold_changes,
    fold_edit,
    snapshot_changes,
    snapshot_channel_rows,
)
from sgdebug.inspect.drawing import Box, Drawing, DrawnEdge, DrawnNode, draw, draw_list
from sgdebug.inspect.graph_model import GraphModel
from sgdebug.inspect.history import (
    HistoryNode,
    HistoryRow,
    HistoryTree,
    SnapshotLink,
    history_tree,
    link_tree,
)
from sgdebug.inspect.tasks import TaskRow, snapshot_task_rows, task_rows
from sgdebug.inspect.topology import (
    Topology,
    TopologyBranch,
    TopologyEdge,
    TopologyJoin,
    TopologyNode,
    mermaid,
)
from sgdebug.inspect.values import ValueNode, value_tree

if TYPE_CHECKING:
    from sgdebug.inspect.diff import Diff, DiffLine, apply, diff_lines, summary
    from sgdebug.inspect.step_diff import (
        ChannelDiff,
        SnapshotDiff,
        StepDiff,
        WriteRow,
        reducer_diff,
        snapshot_diff,
        snapshot_diff_lines,
        stored_commit,
    )

__all__ = [
    # graph: topology, layout, drawing. The functions topology, diff and preview stay in
    # their modules (sgdebug.inspect.diff.diff, ...): exported here under their own names
    # they would hide the modules of those names.
    "Box",
    "Drawing",
    "DrawnEdge",
    "DrawnNode",
    "Topology",
    "TopologyBranch",
    "TopologyEdge",
    "TopologyJoin",
    "TopologyNode",
    "draw",
    "draw_list",
    "mermaid",
    # values, channels, tasks, diffs, history
    "ChannelDiff",
    "ChannelRow",
    "Diff",
    "DiffLine",
    "GraphModel",
    "HistoryNode",
    "HistoryRow",
    "HistoryTree",
    "SnapshotLink",
    "LastChange",
    "SnapshotDiff",
    "StepDiff",
    "TaskRow",
    "ValueNode",
    "WriteRow",
    "apply",
    "changes_from_history",
    "channel_rows",
    "diff_lines",
    "fold_changes",
    "fold_edit",
    "history_tree",
    "link_tree",
    "reducer_diff",
    "snapshot_changes",
    "snapshot_channel_rows",
    "snapshot_diff",
    "snapshot_diff_lines",
    "snapshot_task_rows",
    "stored_commit",
    "summary",
    "task_rows",
    "value_tree",
]

_DIFF_NAMES = ("Diff", "DiffLine", "apply", "diff_lines", "summary")
_STEP_DIFF_NAMES = ("ChannelDiff", "SnapshotDiff", "StepDiff", "WriteRow", "reducer_diff",
                    "snapshot_diff", "snapshot_diff_lines", "stored_commit")  # fmt: skip
_LAZY: dict[str, str] = {
    **dict.fromkeys(_DIFF_NAMES, "diff"),
    **dict.fromkeys(_STEP_DIFF_NAMES, "step_diff"),
    "diff": "diff",
    "step_diff": "step_diff",
}
"""The diffs' names and modules, imported when first asked for: the first screen shows no
diff yet, and their 13 frozen dataclasses cost it ~1 ms each."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    loaded = importlib.import_module(f"{__name__}.{module}")
    return loaded if name == module else getattr(loaded, name)
