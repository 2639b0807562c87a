"""The log pane: each command run and what it answered, wrapped to the pane's width.

Lines are wrapped again whenever the pane's width changes. A message taller than the pane
is shown from its first line (the interrupt's question, a long note), never only its tail;
Enter (or z) opens the whole log in its own screen.

The messages are wrapped when the pane is drawn at a width it has not wrapped them at: so
the messages written before the pane has a size (the welcome) are in the first screen,
instead of waiting for the pane's first resize event and a second paint (as a ``RichLog``
makes them).
"""

from __future__ import annotations

from collections import deque
from typing import Final

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sgdebug.debugger import Outcome, format_outcome

__all__ = ["MAX_ENTRIES", "LogPane"]

MAX_ENTRIES: Final = 1000
"""Messages kept (the oldest go first); the pane and the log screen show these."""
_MAX_LINES: Final = 5000
"""Wrapped lines held before the pane is drawn again from the kept messages."""


class LogPane(ScrollView, can_focus=True):
    """Commands (``: step``) and their outcomes, newest at the bottom."""

    BINDINGS = [Binding("enter,z", "open_log", "Full log", id="log_open")]
    COMPONENT_CLASSES = {"log-pane--command", "log-pane--refused", "log-pane--stop"}
    DEFAULT_CSS = """
    LogPane {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    class Opened(Message):
        """The user asked to read the whole log."""

        def __init__(self, entries: tuple[Text, ...]) -> None:
            super().__init__()
            self.entries = entries
            """Every kept message, oldest first."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines_written: list[str] = []
        """Plain text of everything written (what tests read)."""
        self.entries: deque[Text] = deque(maxlen=MAX_ENTRIES)
        """The kept messages, styled, as written (wrapped again on resize)."""
        self.lines: list[Strip] = []
        """The kept messages wrapped to the pane's width: what is drawn."""
        self._wrapped_at = 0
        """The width :attr:`lines` are wrapped at (0: not wrapped yet)."""

    def on_resize(self, event: events.Resize) -> None:
        if self._wrap_width() != self._wrapped_at:  # the first paint may have wrapped them
            self._wrap_all()

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
        width = self._wrap_width()
        if width and width == self._wrapped_at and len(self.lines) <= _MAX_LINES:
            self.lines.extend(self._wrapped(rich, width))
            self.virtual_size = Size(width, len(self.lines))
            self.refresh()
            self.call_after_refresh(self._reveal_last)
        else:  # a new width, or too many lines; without a width yet, when first drawn
            self._wrap_all()

    def _wrap_all(self) -> None:
        """Wrap the kept messages again, at the width the pane has now (none yet: later)."""
        width = self._wrap_width()
        self._wrapped_at = width
        if not width:  # hidden, or not laid out yet: wrapped when drawn
            return
        self.lines = [line for entry in self.entries for line in self._wrapped(entry, width)]
        self.virtual_size = Size(width, len(self.lines))
        self.refresh()
        self.call_after_refresh(self._reveal_last)

    def _wrapped(self, entry: Text, width: int) -> list[Strip]:
        """``entry``'s lines at ``width``."""
        console = self.app.console
        segments = console.render(entry, console.options.update_width(width))
        return Strip.from_lines(list(Segment.split_lines(segments))) or [Strip.blank(width)]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._wrapped_at:  # the first paint, or a new width before its resize event
            self._wrap_all()
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        if index >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        line = self.lines[index].crop_extend(scroll_x, scroll_x + width, self.rich_style)
        return line.apply_style(self.rich_style)

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

    def _wrap_width(self) -> int:
        """The width lines wrap at: the pane's (0 until it is known)."""
        return self.scrollable_content_region.width
