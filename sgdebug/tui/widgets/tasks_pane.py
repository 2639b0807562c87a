"""The tasks pane: the pending superstep's tasks with their triggers and Send arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text
from textual import events
from textual.widgets import DataTable

from sgdebug.inspect import TaskRow

__all__ = ["TASK_GLYPH", "TasksPane"]

TASK_GLYPH: Final = {"pending": "»", "done": "✓", "error": "✗", "interrupted": "⚑"}
"""Each task state's symbol."""


class TasksPane(DataTable[Text]):
    """State, node, what triggered it, and its input (a Send's argument)."""

    COMPONENT_CLASSES = {f"tasks-pane--{state}" for state in TASK_GLYPH}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row")
        self.rows_shown: tuple[TaskRow, ...] = ()

    def on_resize(self, event: events.Resize) -> None:
        self.show_rows(self.rows_shown)

    def show_rows(self, rows: Sequence[TaskRow]) -> None:
        """Show the tasks (an empty table says the run has nothing left to run)."""
        self.rows_shown = tuple(rows)
        node_width = max([4, *(len(r.name) for r in rows)])
        trigger_width = max([12, *(len(_trigger(r)) for r in rows)])
        input_width = max(8, self.size.width - node_width - trigger_width - 10)
        self.clear(columns=True)
        self.add_column(" ", width=1)
        self.add_column("node", width=node_width)
        self.add_column("triggered by", width=trigger_width)
        self.add_column("input", width=input_width)
        for row in rows:
            style = self.get_component_rich_style(f"tasks-pane--{row.status}")
            what = f"Send {row.arg_preview}" if row.send else row.input_preview
            if row.error:
                what = row.error
            elif row.interrupts:
                what = f"interrupt({'; '.join(row.interrupts)})"
            self.add_row(
                Text(TASK_GLYPH.get(row.status, " "), style=style),
                Text(row.name, style=style),
                Text(_trigger(row)),
                _cut(what, input_width),
                key=row.id,
            )
        if not rows:
            self.add_row(Text(""), Text(""), Text(""), Text("(nothing pending)", style="dim"))


def _cut(text: str, width: int) -> Text:
    out = Text(text, no_wrap=True)
    out.truncate(width, overflow="ellipsis")
    return out


def _trigger(row: TaskRow) -> str:
    return ", ".join(row.sources) or ", ".join(row.triggers)
