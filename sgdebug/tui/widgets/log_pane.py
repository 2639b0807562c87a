"""The log pane: each command run and what it answered, wrapped to the pane's width.

Lines are wrapped again whenever the pane's width changes. A message taller than the pane
is shown from its first line (the interrupt's question, a long note), never only its tail;
Enter (or z) opens the whole log in its own screen.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import RichLog

from sgdebug.debugger import Outcome, format_outcome

__all__ = ["MAX_ENTRIES", "LogPane"]

MAX_ENTRIES: Final = 1000
"""Messages kept (the oldest go first); the pane and the log screen show these."""
_MAX_LINES: Final = 5000
"""Wrapped lines held before the pane is drawn again from the kept messages."""


class LogPane(RichLog):
    """Commands (``: step``) and their outcomes, newest at the bottom."""

    BINDINGS = [Binding("enter,z", "open_log", "Full log", id="log_open")]
    COMPONENT_CLASSES = {"log-pane--command", "log-pane--refused", "log-pane--stop"}

    class Opened(Message):
        """The user asked to read the whole log."""

        def __init__(self, entries: tuple[Text, ...]) -> None:
            super().__init__()
            self.entries = entries
            """Every kept message, oldest first."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, min_width=1)
        self.lines_written: list[str] = []
        """Plain text of everything written (what tests read)."""
        self.entries: deque[Text] = deque(maxlen=MAX_ENTRIES)
        """The kept messages, styled, as written (wrapped again on resize)."""
        self._width = 0

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        if width and width != self._width:  # the first time too: wrap to the pane, not 80
            self._width = width
            self.call_after_refresh(self._redraw)

    def write_command(self, line: str) -> None:
        """Echo a command as typed."""
        self._write(f": {line}", "log-pane--command")

    def write_outcome(self, outcome: Outcome) -> None:
        """What a command did (refusals stand out)."""
        error = outcome.stop.error if outcome.stop is not None else None
        if error is not None and outcome.ok:  # the traceback is in its own pane
            text = "\n".join((*outcome.ran, outcome.message, *outcome.notes))
        else:
            text = format_outcome(outcome)
        if not text:
            return
        if not outcome.ok:
            component = "log-pane--refused"
        elif outcome.stop is not None and outcome.stop.kind in ("breakpoint", "exception"):
            component = "log-pane--stop"
        else:
            component = ""
        self._write(text, component)

    def write_note(self, text: str) -> None:
        """A line from the TUI itself (dim)."""
        self._write(text, "", dim=True)

    def action_open_log(self) -> None:
        self.post_message(self.Opened(tuple(self.entries)))

    def _write(self, text: str, component: str, *, dim: bool = False) -> None:
        self.lines_written.append(text)
        style = self.get_component_rich_style(component) if component else None
        rich = Text(text, style=style or ("dim" if dim else ""))
        self.entries.append(rich)
        if len(self.lines) > _MAX_LINES:
            self._redraw()
        else:
            self.write(rich, width=self._wrap_width(), scroll_end=False)
        self.call_after_refresh(self._reveal_last)

    def _redraw(self) -> None:
        """Write the kept messages again, wrapped to the width the pane has now."""
        self.clear()
        width = self._wrap_width()
        for entry in self.entries:
            self.write(entry, width=width, scroll_end=False)
        self.call_after_refresh(self._reveal_last)

    def _reveal_last(self) -> None:
        """Scroll to the newest message: to its first line when it is taller than the pane."""
        if not self.entries:
            return
        height = self.scrollable_content_region.height
        tall = self._height_of(self.entries[-1])
        if height and tall > height:
            self.scroll_to(y=max(0, len(self.lines) - tall), animate=False)
        else:
            self.scroll_end(animate=False, x_axis=False)

    def _height_of(self, entry: Text) -> int:
        width = self._wrap_width()
        return len(entry.wrap(self.app.console, width)) if width else 1

    def _wrap_width(self) -> int | None:
        """The width lines wrap at: the pane's (``None`` until it is known)."""
        return self.scrollable_content_region.width or None
