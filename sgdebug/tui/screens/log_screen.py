"""The whole log in its own screen (Enter on the log pane): every kept message, wrapped to
the screen's width (again on resize), newest at the bottom."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["LogScreen"]


class LogScreen(ModalScreen[None]):
    """Every kept message of the log; Escape, q or Enter closes it."""

    BINDINGS = [Binding("escape,q,enter,z", "dismiss", "Close", id="close_log")]

    def __init__(self, entries: Iterable[Text]) -> None:
        super().__init__(id="log-screen")
        self.entries = tuple(entries)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="log-body") as body:
            body.border_title = "Log"
            body.border_subtitle = "Esc closes"
            yield Static(Text("\n").join(self.entries), id="log-text", markup=False)

    def on_mount(self) -> None:
        body = self.query_one("#log-body", VerticalScroll)
        body.focus()
        self.call_after_refresh(body.scroll_end, animate=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
