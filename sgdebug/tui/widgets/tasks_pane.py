"""The tasks pane: the pending superstep's tasks with their triggers and input (a Send's
argument), and once a task ran, what it wrote; a long input wraps onto a second line.
Highlighting a task posts :class:`TasksPane.TaskHighlighted` (the Value pane shows it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.console import Console
from rich.text import Text
from textual import events, on
from textual.message import Message
from textual.widgets import DataTable

from sgdebug.inspect import TaskRow

__all__ = ["TASK_GLYPH", "TasksPane"]

TASK_GLYPH: Final = {"pending": "»", "done": "✓", "error": "✗", "interrupted": "⚑"}
"""Each task state's symbol."""


class TasksPane(DataTable[Text]):
    """State, node, what triggered it, and its input (a Send's argument)."""

    COMPONENT_CLASSES = {f"tasks-pane--{state}" for state in TASK_GLYPH}

    class TaskHighlighted(Message):
        """The cursor is on the task with id ``task_id``."""

        def __init__(self, task_id: str) -> None:
            super().__init__()
            self.task_id = task_id

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
        self.add_column(Text(" "), width=1)  # headers as text: no markup to parse
        self.add_column(Text("node"), width=node_width)
        self.add_column(Text("triggered by"), width=trigger_width)
        self.add_column(Text("input / wrote"), width=input_width)
        for row in rows:
            style = self.get_component_rich_style(f"tasks-pane--{row.status}")
            what = _cut(_what(row), input_width, self.app.console)
            self.add_row(
                Text(TASK_GLYPH.get(row.status, " "), style=style),
                Text(row.name, style=style),
                Text(_trigger(row)),
                what,
                key=row.id,
                height=len(what.plain.splitlines()) or 1,
            )
        if not rows:
            self.add_row(Text(""), Text(""), Text(""), Text("(nothing pending)", style="dim"))

    @on(DataTable.RowHighlighted)
    def _tell_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        key = event.row_key.value
        if self.has_focus and key is not None and any(r.id == key for r in self.rows_shown):
            self.post_message(self.TaskHighlighted(key))  # (not when a new frame fills it)

    def on_focus(self, event: events.Focus) -> None:
        """Focusing the pane shows the task under the cursor in the Value pane."""
        if 0 <= self.cursor_row < len(self.rows_shown):
            self.post_message(self.TaskHighlighted(self.rows_shown[self.cursor_row].id))


def _what(row: TaskRow) -> str:
    """The row's last column: its error, its question, what it wrote, or its input."""
    if row.error:
        return row.error
    if row.interrupts:
        return f"interrupt({'; '.join(row.interrupts)})"
    if row.status == "done":
        wrote = ", ".join(f"{key}={value}" for key, value in row.writes) or "nothing"
        routes = f" → {', '.join(row.routes)}" if row.routes else ""
        return f"wrote {wrote}{routes}"
    return f"Send {row.arg_preview}" if row.send else row.input_preview


def _cut(text: str, width: int, console: Console, lines: int = 2) -> Text:
    """``text`` wrapped at words (a word longer than a line folded) into at most ``lines``
    lines of ``width`` cells; when it needs more, the last line holds as much of the rest
    as fits, and an ellipsis ends it."""
    shown = list(Text(text).wrap(console, width, overflow="fold"))
    for line in shown:
        line.rstrip()
    if len(shown) > lines:
        del shown[lines - 1 :]
        end = 0
        for line in shown:  # (wrapping drops only the spaces it breaks at)
            end = text.index(line.plain, end) + len(line.plain)
        last = Text(text[end:].lstrip())
        last.truncate(width - 1)
        shown.append(last + "…")
    return Text("\n", no_wrap=True).join(shown)


def _trigger(row: TaskRow) -> str:
    return ", ".join(row.sources) or ", ".join(row.triggers)
