"""The history pane: the snapshot tree with its branches and how long each step run in this
session took (the highlighted one's tasks in the subtitle); Enter goes to a snapshot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.style import Style
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from sgdebug.debugger import HistoryEntry
from sgdebug.debugger.frame import StepTiming
from sgdebug.inspect import HistoryNode, HistoryTree
from sgdebug.tui.details import timing_text

__all__ = ["CURSOR_MARK", "HistoryPane"]

CURSOR_MARK = "◀ here"
"""Marks the snapshot the session stands at."""


class HistoryPane(OptionList):
    """One line per snapshot: ``#3 step 2 loop  ran attempt``; forks and edits branch."""

    BINDINGS = [Binding("enter", "select", "Go to snapshot", show=False)]
    COMPONENT_CLASSES = {"history-pane--cursor"}

    class SnapshotHighlighted(Message):
        """The user moved to snapshot ``index`` (show its state)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class SnapshotChosen(Message):
        """The user chose snapshot ``index`` (go to it)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False)
        self.history: HistoryTree | None = None
        self.times: dict[str, StepTiming] = {}
        """How long each step's tasks ran, by the checkpoint the step made."""

    def show_tree(
        self,
        tree: HistoryTree | None,
        entries: Sequence[HistoryEntry] = (),
        times: Mapping[str, StepTiming] | None = None,
    ) -> None:
        """Show ``tree`` (``entries`` say what ran, ``times`` how long each step's tasks
        took, by checkpoint id), highlighting the cursor's snapshot."""
        self.history = tree
        self.times = dict(times or {})
        with self.prevent(OptionList.OptionHighlighted):
            if tree is None:
                self.border_subtitle = ""
                self.set_options([Option(Text("(no run yet)", style="dim"), disabled=True)])
                return
            cursor_style = Style.from_rich_style(
                self.get_component_rich_style("history-pane--cursor")
            )
            here = None
            ran = {e.index: e.ran for e in entries}
            inner = {e.index: e.subgraph_steps for e in entries if e.subgraph_steps}
            options: list[Option] = []
            for row, node in tree.display():
                took = self.times.get(node.id)
                line = _line(row.prefix, node, ran.get(node.index, node.ran), cursor_style, took)
                if node.is_cursor:
                    here = len(options)
                options.append(Option(line, id=str(node.index)))
                options.extend(_inner_line(row.prefix, text) for text in inner.get(node.index, ()))
            self.set_options(options)  # one layout pass, however long the history
            if here is not None:
                self.highlighted = here
            cursor = next((n.index for n in tree.nodes if n.is_cursor), None)
            self.border_subtitle = self._timing_of(cursor) if cursor is not None else ""

    @property
    def selected_index(self) -> int | None:
        """The snapshot number under the highlight."""
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return int(option.id) if option.id is not None else None

    @on(OptionList.OptionHighlighted)
    def _report_highlight(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id is not None:
            self.border_subtitle = self._timing_of(int(event.option.id))
            self.post_message(self.SnapshotHighlighted(int(event.option.id)))

    def _timing_of(self, index: int) -> str:
        """Each task's time in the step that made snapshot ``index`` (when it was timed)."""
        if self.history is None or not 0 <= index < len(self.history.nodes):
            return ""
        took = self.times.get(self.history.nodes[index].id)
        if took is None:
            return ""
        return f"#{index}: " + ", ".join(f"{n} {timing_text(t)}" for n, t in took.tasks)

    @on(OptionList.OptionSelected)
    def _report_choice(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.SnapshotChosen(int(event.option.id)))


def _line(
    prefix: str,
    node: HistoryNode,
    ran: Sequence[str],
    cursor_style: Style,
    took: StepTiming | None = None,
) -> Content:
    # Content, not rich Text: the option list would convert each of thousands of lines.
    parts: list[str | tuple[str, str | Style]] = [
        (prefix, "dim"), (f"#{node.index}", "bold"), f" step {node.step} {node.source}"
    ]  # fmt: skip
    if ran:
        parts.append((f"  ran {', '.join(ran)}", "dim"))
    if node.interrupted:
        parts.append("  ⚑ interrupt")
    if node.is_cursor:
        parts.append((f"  {CURSOR_MARK}", cursor_style))
    if took is not None:  # last: where the pane is narrow, the cursor mark is what counts
        parts.append((f"  {timing_text(took.total)}", "dim italic"))
    return Content.assemble(*parts)


def _inner_line(prefix: str, text: str) -> Option:
    """A checkpoint a subgraph stored during the step after the snapshot above (not a place
    to go to: disabled)."""
    indent = " " * len(prefix)
    return Option(Content.assemble((f"{indent}   \u2514 {text}", "dim italic")), disabled=True)
