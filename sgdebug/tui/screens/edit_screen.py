"""The value editor (``e``): a channel's value as a Python literal, checked by ``set``.

The screen returns nothing itself: it hands the text to a ``submit`` callback that runs
``set KEY = TEXT`` and answers ``None`` (accepted: the screen closes) or the reason it was
refused (shown under the editor; the state did not change).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static, TextArea

__all__ = ["EditScreen", "Submit"]

Submit = Callable[[str], Awaitable[str | None]]
"""Runs the edit with the text; ``None`` when accepted, else why it was refused."""


class EditScreen(ModalScreen[bool]):
    """Edit ``key``'s value; Ctrl+S saves, Escape cancels. Dismisses with whether it saved."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit_save", priority=True),
        Binding("escape", "cancel", "Cancel", id="edit_cancel", priority=True),
    ]

    def __init__(self, key: str, text: str, submit: Submit) -> None:
        super().__init__(id="edit")
        self.key = key
        self.text = text
        self.submit = submit

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-body") as body:
            body.border_title = f"set {self.key} = …"
            body.border_subtitle = "Ctrl+S saves · Esc cancels"
            yield TextArea(self.text, id="edit-text", soft_wrap=True, tab_behavior="indent")
            yield Static("A Python expression; the state changes only if it is accepted.",
                         id="edit-message", markup=False)  # fmt: skip

    def on_mount(self) -> None:
        self.query_one(TextArea).cursor_blink = False
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self._save()

    @work(exclusive=True, group="edit")
    async def _save(self) -> None:
        reason = await self.submit(self.query_one(TextArea).text)
        if reason is None:
            self.dismiss(True)
        else:
            message = self.query_one("#edit-message", Static)
            message.update(_refusal(reason))
            message.add_class("-error")

    def action_cancel(self) -> None:
        self.dismiss(False)


def _refusal(reason: str) -> str:
    """``Not changed: why``, said once (the session's reasons often say it already)."""
    head, _, rest = reason.partition(": ")
    return f"Not changed: {rest if rest and head.endswith('not changed') else reason}"
