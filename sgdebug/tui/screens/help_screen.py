"""The help screen (``?`` / F1): the keys, then every command of the registry."""

from __future__ import annotations

from collections.abc import Iterable

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sgdebug.debugger import COMMANDS

__all__ = ["HelpScreen", "KeyRow"]

KeyRow = tuple[str, str]
"""(key as shown, what it does)."""


class HelpScreen(ModalScreen[None]):
    """Keys and commands; Escape, q or ? closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close", id="close_help"),
    ]

    def __init__(self, keys: Iterable[KeyRow], *, topic: str | None = None) -> None:
        """Help on every key and command; ``topic``: one command's help (``help step``),
        shown first."""
        super().__init__(id="help")
        self.keys = tuple(keys)
        self.topic = topic

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "sgdebug help"
            body.border_subtitle = "Esc closes"
            if self.topic is not None:
                yield Static(Text(self.topic), id="help-topic")
            yield Static(_keys_table(self.keys), id="help-keys")
            yield Static(_commands_table(), id="help-commands")

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


def _keys_table(keys: Iterable[KeyRow]) -> Table:
    table = Table(title="Keys", title_justify="left", box=None, show_header=False, expand=True)
    table.add_column("key", style="bold", no_wrap=True, ratio=1)
    table.add_column("does", ratio=4)
    for key, does in keys:
        table.add_row(Text(key), Text(does))
    return table


def _commands_table() -> Table:
    table = Table(
        title="Commands (type them after :)",
        title_justify="left",
        box=None,
        show_header=False,
        expand=True,
    )
    table.add_column("usage", style="bold", no_wrap=True, ratio=2)
    table.add_column("summary", ratio=3)
    for spec in COMMANDS:
        aliases = f"  also: {', '.join(spec.aliases)}" if spec.aliases else ""
        table.add_row(Text(spec.usage), Text(spec.summary + aliases))
    return table
