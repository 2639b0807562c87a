"""A command of the command language: its words, arguments, help, key and behaviour."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sgdebug.debugger.parsing import Arg, usage_of
from sgdebug.debugger.results import Outcome

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = ["CommandKind", "CommandSpec", "Completer", "Needs", "Runner", "Takes"]

Runner = Callable[["Session", Mapping[str, Any]], Outcome]
"""Runs a parsed command on a session."""
Completer = Callable[["Session", Sequence[str]], list[str]]
"""Candidates for the next argument, given the arguments typed so far."""


CommandKind = Literal["motion", "edit", "query", "breakpoints", "history", "session"]
"""What a command does: ``motion`` moves the run (a front end shows it running), ``edit``
changes the state, ``query`` and ``history`` look, ``breakpoints`` manage breakpoints,
``session`` runs or ends the session. Help and the palette group commands by it."""
Needs = Literal["nothing", "idle", "run"]
"""What the session must be for the command to run: ``nothing`` (it runs even while another
command runs), ``idle`` (no command running), ``run`` (idle, and a run to work on)."""
Takes = Literal["nothing", "node", "channel"]
"""What a TUI key for the command takes from the screen: the selected node or channel."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandSpec:
    """One command, defined once for the REPL, the TUI (keys, footer, palette, help) and
    scripts. Every field is given by keyword."""

    name: str
    summary: str
    """One line, for lists and the command palette."""
    help: str
    """The full help text."""
    run: Runner
    kind: CommandKind
    needs: Needs = "run"
    args: tuple[Arg, ...] = ()
    aliases: tuple[str, ...] = ()
    key: str | None = None
    """The TUI key binding (Textual key name), if the command has one."""
    takes: Takes = "nothing"
    """What the key takes from the screen (the command line takes it as an argument)."""
    label: str = ""
    """The key's label in the footer (default: the name, capitalised)."""
    footer: bool = False
    """Whether the footer shows the key."""
    key_help: str = ""
    """What the key does, for the help screen (default: the summary)."""
    pane: str | None = None
    """The TUI pane that shows its answer (its key shows that pane instead of running it)."""
    completer: Completer | None = None
    """Overrides the completion derived from ``args``."""

    @property
    def key_label(self) -> str:
        """The footer's label for its key."""
        return self.label or self.name.capitalize()

    @property
    def usage(self) -> str:
        """``break before|after NODE [if EXPR]``."""
        return usage_of(self.name, self.args)

    @property
    def words(self) -> tuple[str, ...]:
        """Its name and aliases."""
        return (self.name, *self.aliases)

    def unavailable_reason(self, session: Session) -> str | None:
        """Why it cannot run now (``None`` when it can)."""
        return session.why_not(self.name)

    def available(self, session: Session) -> bool:
        """Whether it can run now (a TUI hides or greys it out when not)."""
        return self.unavailable_reason(session) is None

    def complete(self, session: Session, typed: Sequence[str] = ()) -> list[str]:
        """Candidates for the next argument after the words ``typed``."""
        if self.completer is not None:
            return self.completer(session, typed)
        index = 0
        for position, arg in enumerate(self.args):
            if arg.kind == "flag":  # offered last (before it, Python completes an EXPR)
                if index < len(typed) and typed[index] == arg.keyword:
                    index += 1
                elif index >= len(typed) and position == len(self.args) - 1:
                    return [str(arg.keyword)]
                continue
            if arg.keyword is not None:
                if index >= len(typed):
                    return [arg.keyword]
                if typed[index] != arg.keyword:
                    if arg.optional:
                        continue
                    return []
                index += 1
            if index >= len(typed):
                return candidates(session, arg)
            if arg.kind == "expr":
                later = [a.keyword for a in self.args[position + 1 :] if a.keyword]
                found = [i for i in range(index, len(typed)) if typed[i] in later]
                if not found:
                    return later[:1]
                index = found[0]
                continue
            index += 1
        return []


def candidates(session: Session, arg: Arg) -> list[str]:
    """What may be typed for ``arg`` now."""
    kind = arg.kind
    found: list[str]
    if kind == "node":
        found = list(session.node_paths)
    elif kind == "channel":
        found = list(session.channel_names)
        if arg.paths:
            from sgdebug.debugger.subgraphs import channel_paths

            found += channel_paths(session.core)
    elif kind == "snapshot":
        found = snapshot_numbers(session)
    elif kind == "breakpoint":
        found = [str(b.number) for b in session.breakpoints]
    else:  # a choice: its choices, below; a command's name: its command's own completer
        found = []
    return [*found, *arg.choices]


def snapshot_numbers(session: Session) -> list[str]:
    """The numbers ``history`` shows, newest first."""
    outcome = session.history() if session.started else None
    if outcome is None or not outcome.ok:
        return []
    return [str(e.index) for e in reversed(outcome.value)]
