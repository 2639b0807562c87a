"""The TUI's keys, built from the command registry: one binding per keyed command.

Each :class:`KeyCommand` runs a command of :data:`sgdebug.debugger.COMMANDS`, filling in
what the key stands for from the screen (the selected node or channel). Binding ids are
the command names, so Textual's keymap remaps them (``app.set_keymap({"step": "n"})``).

The issue's keys take precedence over the registry where they differ: ``B`` is a breakpoint
after the selected node, so ``breaks`` (which the registry binds to ``B``) is left to the
command line and the palette in the TUI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from textual.binding import Binding

from sgdebug.debugger import COMMANDS, CommandSpec

__all__ = [
    "KEY_COMMANDS",
    "TUI_BINDINGS",
    "KeyCommand",
    "command_bindings",
    "help_rows",
    "key_command",
]

Needs = Literal["nothing", "node", "channel"]


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
    needs: Needs = "nothing"
    """What the command takes from the screen: the selected node or channel."""
    help: str = ""
    """What the key does, for the help screen."""


_LABELS: Final[dict[str, str]] = {
    "resume": "Answer",
    "continue": "Continue",
    "retry": "Retry",
    "restart": "Restart",
    "break": "Break",
    "history": "History",
}
_FOOTER: Final = frozenset({"step", "task", "continue", "break", "help", "quit", "retry", "resume"})
_NEEDS: Final[dict[str, Needs]] = {"until": "node", "break": "node", "watch": "channel"}
_HELP: Final[dict[str, str]] = {
    "step": "Run one superstep (`step N` on the command line runs N)",
    "task": "Run one pending task of this superstep (the first one)",
    "restart": "Start a new run with the same input (`restart INPUT` for another)",
    "resume": "Answer the pending interrupt() (starts `resume ANSWER` on the command line)",
    "until": "Run until the selected node is about to run",
    "break": "Toggle a breakpoint before the selected node",
    "watch": "Watch the selected channel (break when a step changes it)",
    "tasks": "Show the tasks pane",
    "history": "Show the history pane (Enter there goes to a snapshot)",
    "graph": "Show the graph pane",
    "diff": "Diff the current snapshot with its parent (in the log)",
    "help": "This help",
    "quit": "Quit (asks first when the session is not saved)",
}
_EXTRA: Final = (
    KeyCommand(
        "break_after", "B", "break", "Break after", False, "node",
        "Toggle a breakpoint after the selected node",
    ),
    KeyCommand(
        "set", "e", "set", "Edit", True, "channel",
        "Edit the selected channel's value (a Python literal; Ctrl+S saves)",
    ),
)  # fmt: skip
"""Keys of the issue that the registry does not define (they need the screen's selection)."""


def _from_spec(spec: CommandSpec, taken: set[str]) -> KeyCommand | None:
    if spec.key is None or spec.key in taken:
        return None
    label = _LABELS.get(spec.name, spec.name.capitalize())
    return KeyCommand(
        spec.name,
        spec.key,
        spec.name,
        label,
        spec.name in _FOOTER,
        _NEEDS.get(spec.name, "nothing"),
        _HELP.get(spec.name, spec.summary.rstrip(".")),
    )


def _build() -> tuple[KeyCommand, ...]:
    taken = {k.key for k in _EXTRA}
    found = [k for k in (_from_spec(s, taken) for s in COMMANDS) if k is not None]
    return (*found, *_EXTRA)


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
    """(binding id, what it does) for every key, in the order the help lists them."""
    rows = [(item.id, item.help or item.description) for item in KEY_COMMANDS]
    rows += [(b.id or b.action, b.tooltip or b.description) for b in TUI_BINDINGS]
    return rows
