"""The command language: one registry shared by the REPL, the TUI's command line and scripts.

:data:`COMMANDS` defines every command once (:class:`~.command_spec.CommandSpec`: name,
aliases, arguments, help, TUI key, availability, completion, behaviour). :func:`parse` reads
a line (a :class:`~.parsing.ParseError` says what was expected), :func:`execute` runs it
(refusing, with the reason, a command that is not available now), :func:`run_line` does
both; :func:`complete`, :func:`available` and :func:`help_text` serve front ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.command_spec import CommandSpec
from sgdebug.debugger.command_table import COMMANDS, INDEX
from sgdebug.debugger.parsing import ParseError, parse_args, split_words
from sgdebug.debugger.results import Outcome

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = [
    "COMMANDS",
    "CommandSpec",
    "ParseError",
    "ParsedCommand",
    "available",
    "complete",
    "execute",
    "help_text",
    "lookup",
    "parse",
    "run_line",
    "spec_of",
]


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """A command line read against the registry."""

    spec: CommandSpec
    args: Mapping[str, Any]
    line: str


def spec_of(name: str) -> CommandSpec | None:
    """The command called ``name`` or one of its aliases (``None`` when none is)."""
    return INDEX.get(name)


def lookup(word: str) -> CommandSpec:
    """The command a name or alias names; :class:`ParseError` (with a suggestion) if none."""
    return INDEX.lookup(word)


def parse(line: str) -> ParsedCommand:
    """Read one command line; :class:`ParseError` says what was expected.

    A leading ``:`` is dropped (``:restart``): it is how the TUI's command line is opened,
    and a hand used to vim types it again there.
    """
    text = line.strip().removeprefix(":").lstrip()
    if not text or text.startswith("#"):
        raise ParseError("expected a command (type `help` for the list)")
    word, _, rest = text.partition(" ")
    spec = lookup(word)
    return ParsedCommand(spec, parse_args(spec.name, spec.args, rest), text)


def execute(session: Session, parsed: ParsedCommand) -> Outcome:
    """Run a parsed command; one not available now is refused with the reason."""
    spec = parsed.spec
    if reason := spec.unavailable_reason(session):
        return Outcome(spec.name, False, session.status, f"{spec.name}: {reason}")
    return spec.run(session, parsed.args)


def run_line(session: Session, line: str) -> Outcome | None:
    """Parse and execute a line; ``None`` for a blank line or a ``#`` comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    try:
        parsed = parse(text)
    except ParseError as exc:
        return Outcome("parse", False, session.status, str(exc))
    return execute(session, parsed)


def available(session: Session) -> tuple[CommandSpec, ...]:
    """The commands that can run now."""
    return tuple(spec for spec in COMMANDS if spec.available(session))


def complete(session: Session, line: str) -> list[str]:
    """Candidates for the word being typed at the end of ``line``."""
    words = split_words(line)
    current = "" if not line or line[-1].isspace() else (words.pop() if words else "")
    if not words:
        return sorted(w for w in INDEX.words if w.startswith(current))
    spec = INDEX.get(words[0])
    if spec is None:
        return []
    return [c for c in spec.complete(session, words[1:]) if c.startswith(current)]


def help_text(name: str | None = None, session: Session | None = None) -> str:
    """Every command's usage and summary, or one command's full help; with ``session``,
    what its engine cannot run is marked, with the reason."""
    return INDEX.help_text(name, session)
