"""The log pane: each command run and what it answered."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from sgdebug.debugger import Outcome, format_outcome

__all__ = ["LogPane"]


class LogPane(RichLog):
    """Commands (``: step``) and their outcomes, newest at the bottom."""

    COMPONENT_CLASSES = {"log-pane--command", "log-pane--refused", "log-pane--stop"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, max_lines=2000)
        self.lines_written: list[str] = []
        """Plain text of everything written (what tests read)."""

    def write_command(self, line: str) -> None:
        """Echo a command as typed."""
        self._write(f": {line}", "log-pane--command")

    def write_outcome(self, outcome: Outcome) -> None:
        """What a command did (refusals stand out)."""
        error = outcome.stop.error if outcome.stop is not None else None
        if error is not None and outcome.ok:  # the traceback is in its own pane
            text = "\n".join((outcome.message, *outcome.notes))
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

    def _write(self, text: str, component: str, *, dim: bool = False) -> None:
        self.lines_written.append(text)
        style = self.get_component_rich_style(component) if component else None
        rich = Text(text, style=style or ("dim" if dim else ""))
        self.write(rich)
