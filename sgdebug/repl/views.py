"""Rich renderables for what the session shows: state, tasks, history, diffs, breakpoints.

Each function turns debugger results and ``sgdebug.inspect`` rows into a rich object; the
printer (:mod:`~sgdebug.repl.render`) prints them on a terminal. Nothing here runs a verb
that moves the run: views only read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.pretty import Pretty
from rich.table import Table
from rich.text import Text

from sgdebug.debugger import (
    Breakpoint,
    GraphSummary,
    HistoryEntry,
    Session,
    TaskInfo,
)
from sgdebug.debugger.history import entry_tree
from sgdebug.inspect import SnapshotDiff, reducer_diff, snapshot_diff_lines
from sgdebug.inspect.channels import channel_kind
from sgdebug.inspect.preview import preview
from sgdebug.runtime import CommitRecord, StateSnapshot
from sgdebug.runtime.channels import MISSING

__all__ = [
    "breakpoints_table",
    "changes_view",
    "diff_view",
    "graph_view",
    "history_view",
    "pretty",
    "snapshot_view",
    "state_table",
    "tasks_table",
]

_STATUS_STYLE = {
    "pending": "yellow",
    "done": "green",
    "error": "bold red",
    "interrupted": "magenta",
}
_SIGN_STYLE = {"-": "red", "+": "green", "…": "dim"}


def pretty(value: Any, *, whole: bool = False) -> RenderableType:
    """A value pretty-printed: long containers and strings cut, unless ``whole``."""
    if whole:
        return Pretty(value, expand_all=False)
    return Pretty(value, max_length=50, max_string=2000, expand_all=False)


def state_table(
    session: Session,
    values: Any,
    changed: Iterable[str] = (),
    *,
    in_place: Mapping[str, tuple[int, tuple[str, ...]]] | None = None,
    whole: bool = False,
) -> RenderableType:
    """The state: one row per key with its channel kind; the keys in ``changed`` bold, those
    in ``in_place`` (key -> step, nodes) marked as changed in place (``whole``: long values
    are not cut)."""
    if not isinstance(values, Mapping):
        return pretty(values, whole=whole)
    fields = session.model.user_fields
    fresh = set(changed)
    marks = in_place or {}
    table = Table(box=None, show_header=True, header_style="dim", pad_edge=False)
    table.add_column("key", style="cyan", no_wrap=True)
    table.add_column("kind", style="dim", no_wrap=True)
    table.add_column("value", overflow="fold")
    names = [*[k for k in fields if k in values], *[k for k in values if k not in fields]]
    for name in names:
        kind: RenderableType = channel_kind(fields[name])[0] if name in fields else ""
        label = Text(name, style="bold yellow" if name in fresh else "cyan")
        found = marks.get(name)
        if found is not None:
            step, nodes = found[0], ", ".join(found[1]) or "?"
            kind = Text(f"{kind} ! in place: {nodes} @{step}".strip(), style="bold red")
        value = values[name]
        shown: RenderableType = (
            Text("(empty)", style="dim") if value is MISSING else pretty(value, whole=whole)
        )
        table.add_row(label, kind, shown)
    if not names:
        return Text("(empty state)", style="dim")
    return table


def tasks_table(tasks: Sequence[TaskInfo], step: int) -> RenderableType:
    """The pending superstep's tasks: state, node, triggers, input (and writes once run)."""
    if not tasks:
        return Text(f"step {step}: no pending tasks", style="dim")
    table = Table(box=None, pad_edge=False, header_style="dim")
    for column in ("", "node", "triggers", "input", "writes"):
        table.add_column(column, overflow="fold")
    for task in tasks:
        writes = ", ".join(f"{k}={preview(v, 30)}" for k, v in task.writes if ":" not in k)
        name = task.name + (" (Send)" if task.send else "")
        table.add_row(
            Text(task.state, style=_STATUS_STYLE.get(task.state, "")),
            Text(name, style="bold"),
            Text(", ".join(task.triggers)),  # (Text: a value's "[a, b]" is not markup)
            Text(preview(task.input, 60)),
            Text(writes),
        )
    return table


def breakpoints_table(breakpoints: Sequence[Breakpoint]) -> RenderableType:
    """Number, enabled, hits and what, like pdb's ``break`` listing."""
    table = Table(box=None, pad_edge=False, header_style="dim")
    for column in ("num", "on", "hits", "what"):
        table.add_column(column)
    for bp in breakpoints:
        what = bp.describe() + (" (temporary)" if bp.temporary else "")
        what += " (from compile())" if bp.origin == "compile" else ""
        enabled = Text("yes", style="green") if bp.enabled else Text("no", style="dim")
        table.add_row(str(bp.number), enabled, str(bp.hits), Text(what))
    return table


def history_view(session: Session, entries: Sequence[HistoryEntry]) -> RenderableType:
    """The snapshots as a tree (forks and edits branch), numbered as ``goto`` takes them.

    Drawn from the entries alone, as the TUI's history is: no snapshot is loaded, however
    long the history. What ran next from a snapshot is what its supersteps ran; for the
    current one, the pending tasks."""
    if session.thread_id is None or not entries:
        return Text("(no snapshots)", style="dim")
    current = next((e for e in entries if e.current), None)
    tree = entry_tree(entries, current.checkpoint_id if current is not None else None)
    number = {e.checkpoint_id: e for e in entries}
    following = _next_nodes(entries)
    view = session.view()
    lines = []
    for row, node in tree.display():
        entry = number[node.id]
        after = following.get(entry.index, ())
        if entry.current and not after:
            after = tuple(dict.fromkeys(t.name for t in view.tasks))
        line = Text()
        line.append("* " if entry.current else "  ", style="bold green")
        line.append(f"{entry.index:>3}  ", style="bold" if entry.current else "")
        line.append(row.prefix, style="dim")
        line.append(f"step {node.step} ", style="cyan")
        line.append(node.source, style="magenta" if node.source != "loop" else "")
        if node.ran:
            line.append(f"  ran {', '.join(node.ran)}")
        if after:
            line.append(f"  next {', '.join(after)}", style="dim")
        if entry.current and view.status == "interrupted":
            line.append("  interrupted", style="magenta")
        lines.append(line)
    return Group(*lines)


def _next_nodes(entries: Sequence[HistoryEntry]) -> dict[int, tuple[str, ...]]:
    """Snapshot number -> the nodes the supersteps that followed it ran."""
    following: dict[int, tuple[str, ...]] = {}
    for entry in entries:
        if entry.source == "loop" and entry.parent_index is not None:
            ran = following.get(entry.parent_index, ())
            following[entry.parent_index] = tuple(dict.fromkeys((*ran, *entry.ran)))
    return following


def diff_view(result: SnapshotDiff) -> RenderableType:
    """What changed between two snapshots (under the outcome's ``diff A -> B``), key by key,
    old in red and new in green."""
    if not result.channels:
        return Text("  no change", style="dim")
    lines = [_signed(line.sign, line.path, line.text) for line in snapshot_diff_lines(result)]
    return Group(*lines)


def _signed(sign: str, path: str, text: str) -> Text:
    style = _SIGN_STYLE.get(sign, "")
    line = Text(f"  {sign} ", style=style)
    line.append(f"{path}: ", style="bold " + style)
    line.append(text, style=style)
    return line


def changes_view(session: Session, commits: Sequence[CommitRecord]) -> RenderableType | None:
    """What the last committed superstep changed (channel: old -> new, by whom)."""
    if not commits:
        return None
    record = commits[-1]
    step = reducer_diff(session.model, record, width=60)
    ran = ", ".join(t for t in step.tasks if not t.startswith("__"))
    head = f"step {step.step} ran {ran}" if ran else f"step {step.step} took the input"
    if len(commits) > 1:
        head = f"{len(commits)} supersteps; last: {head}"
    lines: list[RenderableType] = [Text(head, style="dim")]
    for channel in step.channels:
        line = Text(f"  {channel.channel}: ", style="cyan")
        line.append(channel.old_preview, style="red")
        line.append(" -> ")
        line.append(channel.new_preview, style="green")
        if channel.reducer is not None:
            line.append(f"  ({channel.applied})", style="dim")
        lines.append(line)
    return Group(*lines)


def graph_view(session: Session, summary: GraphSummary, width: int) -> RenderableType:
    """The graph drawn with boxes and arrows, then breakpoint and pending marks."""
    from sgdebug.inspect.drawing import draw
    from sgdebug.inspect.topology import topology

    drawing = draw(topology(session.model), width=max(40, width), height=10_000)
    marks = []
    for label, names in (
        ("break before", [n.name for n in summary.nodes if n.before]),
        ("break after", [n.name for n in summary.nodes if n.after]),
        ("pending", [n.name for n in summary.nodes if n.pending]),
    ):
        if names:
            marks.append(Text(f"{label}: {', '.join(names)}", style="yellow"))
    return Group(Text(drawing.text), *marks)


def snapshot_view(session: Session, snapshot: StateSnapshot, title: str) -> RenderableType:
    """One stored snapshot: its step, source, what runs next, and its values."""
    meta = snapshot.metadata or {}
    nxt = ", ".join(snapshot.next) or "nothing (the run ends here)"
    head = Text(f"{title}: step {meta.get('step')} ({meta.get('source')}), next: {nxt}")
    return Group(head, state_table(session, snapshot.values))
