"""A yes/no question (quitting a session that is not saved)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["ConfirmScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """``question``: y answers yes; n or Escape answers no."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm_yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm_no"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__(id="confirm")
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body"):
            yield Static(self.question, markup=False)
            yield Static("y: yes    n / Esc: no", id="confirm-keys", markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
