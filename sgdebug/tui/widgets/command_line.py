"""The command line: the full command language, with Tab completion and history."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

__all__ = ["CommandLine"]

Completer = Callable[[str], list[str]]
"""Candidates for the word being typed at the end of a line."""


class CommandLine(Input):
    """``:`` focuses it; Enter runs the line, Escape leaves, Tab completes, ↑↓ recall."""

    BINDINGS = [
        Binding("tab", "complete", "Complete", show=False, priority=True),
        Binding("up", "recall(-1)", "Previous", show=False),
        Binding("down", "recall(1)", "Next", show=False),
        Binding("escape", "leave", "Leave", show=False),
    ]

    class Entered(Message):
        """The user entered ``line``."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Left(Message):
        """The user left without running anything."""

    class Completed(Message):
        """Tab found several ``candidates``."""

        def __init__(self, candidates: list[str]) -> None:
            super().__init__()
            self.candidates = candidates

    def __init__(self, completer: Completer, *, id: str | None = None) -> None:
        super().__init__(
            placeholder=":  command (Tab completes, ↑↓ history, Esc leaves, `help` lists)",
            id=id,
            select_on_focus=False,
        )
        self.completer = completer
        self.history: list[str] = []
        self._recall: int | None = None

    def action_complete(self) -> None:
        """Complete the word at the end of the line (the common prefix of the candidates)."""
        line = self.value
        candidates = self.completer(line)
        if not candidates:
            return
        word_start = 0 if not line or line[-1].isspace() else len(line) - len(line.split()[-1])
        typed = line[word_start:]
        common = _common_prefix(candidates)
        if len(candidates) == 1:
            self.value = line[:word_start] + candidates[0] + " "
        elif len(common) > len(typed):
            self.value = line[:word_start] + common
        else:
            self.post_message(self.Completed(candidates))
        self.cursor_position = len(self.value)

    def action_recall(self, delta: int) -> None:
        """Step through the lines entered before."""
        if not self.history:
            return
        index = len(self.history) if self._recall is None else self._recall
        index = max(0, min(len(self.history), index + delta))
        self._recall = index
        self.value = self.history[index] if index < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_leave(self) -> None:
        self.value = ""
        self._recall = None
        self.post_message(self.Left())

    @on(Input.Submitted)
    def _enter(self, event: Input.Submitted) -> None:
        event.stop()
        line = event.value.strip()
        self.value = ""
        self._recall = None
        if line and (not self.history or self.history[-1] != line):
            self.history.append(line)
        self.post_message(self.Entered(line))


def _common_prefix(words: list[str]) -> str:
    """The longest start every word shares."""
    first, last = min(words), max(words)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return first[:size]
