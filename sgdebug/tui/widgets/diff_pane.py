"""The diff pane: what the last superstep's commit did to each channel.

For every changed channel: the old value, each task's write in the order the reducer
applied them, the new value, and the structural diff (``+`` added, ``-`` removed).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.style import StyleType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

if TYPE_CHECKING:  # (a diff comes with its module: the first screen has none)
    from sgdebug.inspect import ChannelDiff, StepDiff

__all__ = ["DiffPane", "render_step_diff"]

_EMPTY = "No superstep committed yet in this run: press s to step."


class DiffPane(VerticalScroll, can_focus=True):
    """The reducer diff of the last committed superstep."""

    COMPONENT_CLASSES = {"diff-pane--added", "diff-pane--removed", "diff-pane--channel"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._body = Static(Text(_EMPTY, style="dim"), markup=False)
        self.step_diff: StepDiff | None = None

    def compose(self) -> ComposeResult:
        yield self._body

    def show_diff(self, step_diff: StepDiff | None, note: str = "") -> None:
        """Show ``step_diff`` (``None``: ``note`` says why there is none)."""
        self.step_diff = step_diff
        if step_diff is None:
            self.border_subtitle = ""
            self._body.update(Text(note or _EMPTY, style="dim"))
            return
        self.border_subtitle = f"step {step_diff.step}"
        styles = {
            "+": self.get_component_rich_style("diff-pane--added"),
            "-": self.get_component_rich_style("diff-pane--removed"),
            "channel": self.get_component_rich_style("diff-pane--channel"),
        }
        self._body.update(render_step_diff(step_diff, styles))


def render_step_diff(step_diff: StepDiff, styles: Mapping[str, StyleType]) -> Text:
    """The diff as text; ``styles`` colour ``+``, ``-`` and channel names."""
    text = Text()
    ran = ", ".join(step_diff.tasks) or "nothing"
    text.append(f"Step {step_diff.step} committed the writes of {ran}\n", style="bold")
    if not step_diff.channels:
        text.append("No state channel changed.", style="dim")
    for change in step_diff.channels:
        _channel(text, change, styles)
    text.rstrip()
    return text


def _channel(text: Text, change: ChannelDiff, styles: Mapping[str, StyleType]) -> None:
    from sgdebug.inspect import diff_lines

    text.append("\n")
    text.append(change.channel, style=styles.get("channel", "bold"))
    text.append(f"  {change.applied}", style="dim")
    if change.summary:
        text.append(f" · {change.summary}", style="dim")
    text.append("\n")
    text.append(f"  old   {change.old_preview}\n")
    for write in change.writes:
        tag = " (Overwrite)" if write.overwrite else ""
        gone = " (superseded)" if write.superseded else ""
        style = "dim strike" if write.superseded else ""
        text.append(f"  {write.task_name} → {write.preview}{tag}{gone}\n", style=style)
    text.append(f"  new   {change.new_preview}\n")
    for line in diff_lines(change.diff):
        sign_style = styles.get(line.sign, "dim")
        path = f"{line.path} " if line.path else ""
        text.append(f"  {line.sign} {path}{line.text}\n", style=sign_style)
