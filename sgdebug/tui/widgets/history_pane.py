"""The history pane: the snapshot tree with its branches; Enter goes to a snapshot."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from sgdebug.debugger import HistoryEntry
from sgdebug.inspect import HistoryNode, HistoryTree

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

    def show_tree(self, tree: HistoryTree | None, entries: Sequence[HistoryEntry] = ()) -> None:
        """Show ``tree`` (``entries`` say what ran), highlighting the cursor's snapshot."""
        self.history = tree
        with self.prevent(OptionList.OptionHighlighted):
            self.clear_options()
            if tree is None:
                self.add_option(Option(Text("(no run yet)", style="dim"), disabled=True))
                return
            cursor_style = self.get_component_rich_style("history-pane--cursor")
            here = None
            ran = {e.index: e.ran for e in entries}
            for position, (row, node) in enumerate(tree.display()):
                line = _line(row.prefix, node, ran.get(node.index, node.ran), cursor_style)
                self.add_option(Option(line, id=str(node.index)))
                if node.is_cursor:
                    here = position
            if here is not None:
                self.highlighted = here

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
            self.post_message(self.SnapshotHighlighted(int(event.option.id)))

    @on(OptionList.OptionSelected)
    def _report_choice(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.SnapshotChosen(int(event.option.id)))


def _line(prefix: str, node: HistoryNode, ran: Sequence[str], cursor_style: Style) -> Text:
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(prefix, style="dim")
    text.append(f"#{node.index}", style="bold")
    text.append(f" step {node.step} {node.source}")
    if ran:
        text.append(f"  ran {', '.join(ran)}", style="dim")
    if node.interrupted:
        text.append("  ⚑ interrupt")
    if node.is_cursor:
        text.append(f"  {CURSOR_MARK}", style=cursor_style)
    return text
