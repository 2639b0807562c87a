"""The TUI's keys, built from the command registry: one binding per keyed command.

Each :class:`KeyCommand` runs a command of :data:`sgdebug.debugger.COMMANDS`, filling in
what the key takes from the screen (the selected node or channel); its key, footer label,
whether the footer shows it and its help line are the command's own fields. Binding ids are
the command names, so Textual's keymap remaps them (``app.set_keymap({"step": "n"})``).
Only ``B`` (a breakpoint after the selected node: a second key for ``break``) is the TUI's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from textual.binding import Binding

from sgdebug.debugger import COMMANDS, CommandSpec
from sgdebug.debugger.command_spec import Takes

__all__ = [
    "KEY_COMMANDS",
    "TUI_BINDINGS",
    "KeyCommand",
    "command_bindings",
    "help_rows",
    "key_command",
]


@dataclass(frozen=True, slots=True)
class KeyCommand:
    """A key that runs a registry command."""

    id: str
    """The binding id (what a keymap names): the command name, or ``break_after``."""
    key: str
    """The default key (Textual key name)."""
    command: str
    """The registry command it runs."""
    description: str
    """The footer's label."""
    show: bool
    """Whether the footer shows it."""
    needs: Takes = "nothing"
    """What the command takes from the screen: the selected node or channel."""
    help: str = ""
    """What the key does, for the help screen."""
    pane: str | None = None
    """The pane the key shows instead of running the command."""


_BREAK_AFTER: Final = KeyCommand(
    "break_after", "B", "break", "Break after", False, "node",
    "Toggle a breakpoint after the selected node",
)  # fmt: skip
"""The one key the registry does not define: ``break`` takes ``b`` (before)."""


def _from_spec(spec: CommandSpec) -> KeyCommand | None:
    if spec.key is None:
        return None
    return KeyCommand(
        spec.name,
        spec.key,
        spec.name,
        spec.key_label,
        spec.footer,
        spec.takes,
        spec.key_help or spec.summary.rstrip("."),
        spec.pane,
    )


def _build() -> tuple[KeyCommand, ...]:
    found = [k for k in (_from_spec(s) for s in COMMANDS) if k is not None]
    keys = [k.key for k in (*found, _BREAK_AFTER)]
    if len(set(keys)) != len(keys):
        raise RuntimeError(f"two commands share a key: {sorted(keys)}")
    return (*found, _BREAK_AFTER)


KEY_COMMANDS: tuple[KeyCommand, ...] = _build()
"""Every key that runs a command, in registry order, then the TUI's own."""


def key_command(binding_id: str) -> KeyCommand:
    """The key command with this binding id (``KeyError`` when none)."""
    for item in KEY_COMMANDS:
        if item.id == binding_id:
            return item
    raise KeyError(binding_id)


def command_bindings() -> list[Binding]:
    """A Textual binding per key command (``f1`` also opens help)."""
    out = []
    for item in KEY_COMMANDS:
        keys = f"{item.key},f1" if item.id == "help" else item.key
        out.append(
            Binding(keys, f"command('{item.id}')", item.description, show=item.show, id=item.id)
        )
    return out


TUI_BINDINGS: Final[tuple[Binding, ...]] = (
    Binding("colon", "command_line", "Command", id="command_line",
            tooltip="Type any command (Enter runs it, Esc leaves)"),
    Binding("exclamation_mark", "repl", "REPL", show=False, id="repl",
            tooltip="Suspend into the REPL on this session; leave it to come back"),
    Binding("ctrl+c", "pause", "Pause", id="pause", priority=True,
            tooltip="Pause a running command at the next superstep; press again to interrupt "
            "the running node"),
    Binding("tab", "pane(1)", "Next pane", show=False, id="next_pane", priority=True,
            tooltip="Focus the next pane"),
    Binding("shift+tab", "pane(-1)", "Previous pane", show=False, id="previous_pane",
            priority=True, tooltip="Focus the previous pane"),
)  # fmt: skip
"""The TUI's own keys: the command line, the REPL, pausing a run, moving between panes."""


def help_rows() -> list[tuple[str, str]]:
    """(binding id, what it does) for every key, in the order the help lists them: the
    registry's, ``B`` next to ``b``, then the TUI's own keys."""
    rows = []
    for item in KEY_COMMANDS:
        if item is not _BREAK_AFTER:
            rows.append((item.id, item.help or item.description))
        if item.id == _BREAK_AFTER.command:
            rows.append((_BREAK_AFTER.id, _BREAK_AFTER.help))
    rows += [(b.id or b.action, b.tooltip or b.description) for b in TUI_BINDINGS]
    return rows
