"""A table of commands by word: lookup by name or alias, and the help text over it.

:mod:`~.command_table` builds the session's one index over its :data:`COMMANDS` (its
``help`` command answers from it) and :mod:`~.commands` serves it to front ends.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from sgdebug.debugger.command_spec import CommandSpec
from sgdebug.debugger.parsing import ParseError

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = ["CommandIndex"]


class CommandIndex:
    """Commands in help order, found by any of their words (name and aliases)."""

    def __init__(self, commands: Iterable[CommandSpec]) -> None:
        self.commands: tuple[CommandSpec, ...] = tuple(commands)
        self._by_word: dict[str, CommandSpec] = {}
        for spec in self.commands:
            for word in spec.words:
                if word in self._by_word:
                    raise RuntimeError(f"command word {word!r} is defined twice")
                self._by_word[word] = spec

    def __iter__(self) -> Iterator[CommandSpec]:
        return iter(self.commands)

    @property
    def words(self) -> list[str]:
        """Every name and alias."""
        return list(self._by_word)

    def get(self, word: str) -> CommandSpec | None:
        """The command ``word`` names (``None`` when none does)."""
        return self._by_word.get(word)

    def lookup(self, word: str) -> CommandSpec:
        """The command ``word`` names; :class:`ParseError` (with a suggestion) if none."""
        spec = self._by_word.get(word)
        if spec is not None:
            return spec
        close = difflib.get_close_matches(word, self.words, n=1)
        hint = f"; did you mean {self._by_word[close[0]].name!r}?" if close else ""
        raise ParseError(f"unknown command {word!r}{hint} (type `help` for the list)")

    def help_text(self, name: str | None = None, session: Session | None = None) -> str:
        """Every command's usage and summary, or one command's full help; with
        ``session``, what its engine cannot run is marked, with the reason."""
        caps = session.engine.capabilities if session is not None else None

        def missing(spec: CommandSpec) -> str | None:
            return caps.why_not(spec.name) if caps is not None else None

        if name is None:
            width = max(len(s.usage) for s in self.commands)
            lines = []
            for spec in self.commands:
                off = " (unavailable on this engine)" if missing(spec) else ""
                lines.append(f"  {spec.usage:<{width}}  {spec.summary}{off}")
            return "Commands:\n" + "\n".join(lines) + "\nType `help COMMAND` for details."
        spec = self.lookup(name)
        lines = [f"usage: {spec.usage}", spec.summary]
        if spec.aliases:
            lines.append("aliases: " + ", ".join(spec.aliases))
        if spec.key:
            lines.append(f"key: {spec.key}")
        if (reason := missing(spec)) is not None and caps is not None:
            lines.append(f"unavailable on the {caps.engine} engine: {reason}")
        lines.extend(["", spec.help])
        return "\n".join(lines)
