"""The channels pane: one row per state channel; rows the last step changed stand out."""

from __future__ import annotations

from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.message import Message
from textual.widgets import DataTable

from sgdebug.inspect import ChannelRow
from sgdebug.inspect.preview import preview
from sgdebug.runtime.channels import MISSING

__all__ = ["CHANGED_MARK", "IN_PLACE_MARK", "ChannelsPane"]

CHANGED_MARK = "✱"
"""Marks a row the last superstep (or edit) changed, besides its colour."""
IN_PLACE_MARK = "!"
"""Marks a row whose latest change was a node changing the value in place."""
_HEADERS = ("channel", "kind", "ver", "last write")
_DROP_ORDER = ("kind", "ver", "last write")
"""Columns that give way, in order, when the pane is too narrow for the value."""
_MIN_VALUE = 24
_PADDING = 2
"""Cells a column adds around its content (``cell_padding`` on both sides)."""


class ChannelsPane(DataTable[Text]):
    """Channel, kind or reducer, version, last writer and a preview of the value."""

    COMPONENT_CLASSES = {
        "channels-pane--changed",
        "channels-pane--empty",
        "channels-pane--in-place",
    }

    class ChannelHighlighted(Message):
        """The cursor moved to channel ``name``."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.rows_shown: tuple[ChannelRow, ...] = ()

    def on_resize(self, event: events.Resize) -> None:
        if self.rows_shown:
            self.show_rows(self.rows_shown)

    @property
    def selected(self) -> str | None:
        """The channel under the cursor."""
        if not self.rows_shown or not 0 <= self.cursor_row < len(self.rows_shown):
            return None
        return self.rows_shown[self.cursor_row].name

    def show_rows(self, rows: Sequence[ChannelRow]) -> None:
        """Show ``rows``, keeping the cursor on the same channel.

        When the pane is narrow, the kind, version and last-write columns give way (in
        that order) so the value keeps at least :data:`_MIN_VALUE` cells.
        """
        keep = self.selected
        self.rows_shown = tuple(rows)
        changed = self.get_component_rich_style("channels-pane--changed")
        empty = self.get_component_rich_style("channels-pane--empty")
        warn = self.get_component_rich_style("channels-pane--in-place")
        cells = [
            self._cells(row, changed if row.changed else (empty if row.empty else Style()), warn)
            for row in rows
        ]
        columns = {
            header: max([len(header), *(c[header].cell_len for c in cells)]) for header in _HEADERS
        }
        room = self.size.width - 1 - (1 + _PADDING) - _PADDING
        for header in _DROP_ORDER:
            if room - sum(w + _PADDING for w in columns.values()) >= _MIN_VALUE:
                break
            del columns[header]
        value_width = max(_MIN_VALUE // 2, room - sum(w + _PADDING for w in columns.values()))
        with self.prevent(DataTable.RowHighlighted):
            self.clear(columns=True)
            self.add_column(Text(" "), width=1)  # headers as text: no markup to parse
            for header, width in columns.items():
                self.add_column(Text(header), width=width)
            self.add_column(Text("value"), width=value_width)
            for row, row_cells in zip(rows, cells, strict=True):
                value = row_cells["value"]
                if value.cell_len > value_width and row.value is not MISSING:
                    # Summarise again for the room there is ("… 5 more]"), not cut the text.
                    value = Text(preview(row.value, value_width), style=value.style, no_wrap=True)
                value.truncate(value_width, overflow="ellipsis")
                shown = [row_cells[h] for h in columns]
                self.add_row(row_cells["mark"], *shown, value, key=row.name)
            names = [r.name for r in rows]
            if keep in names:
                self.move_cursor(row=names.index(keep), animate=False)

    def _cells(self, row: ChannelRow, style: Style, warn: Style) -> dict[str, Text]:
        writer = ", ".join(row.writers) if row.writers else ""
        when = f"{writer} @{row.last_step}" if row.last_step is not None else writer
        mark = Text(CHANGED_MARK if row.changed else " ", style=style)
        last = Text(when, style=style)
        if row.in_place is not None:
            step, nodes = row.in_place
            mark = Text(IN_PLACE_MARK, style=warn)
            last = Text(f"in place: {', '.join(nodes) or '?'} @{step}", style=warn)
        return {
            "mark": mark,
            "channel": Text(row.name, style=style),
            "kind": Text(row.kind, style=style),
            "ver": Text("" if row.version is None else str(row.version), style=style),
            "last write": last,
            "value": Text(row.preview, style=style, no_wrap=True),
        }

    @on(DataTable.RowHighlighted)
    def _report_channel(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        name = self.selected
        if name is not None:
            self.post_message(self.ChannelHighlighted(name))
