"""The command palette (Ctrl+P): every command of the registry, searchable by name and summary.

Choosing a command that needs no argument runs it; one that does opens the command line
with its name typed, ready for the arguments.
"""

from __future__ import annotations

from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from sgdebug.debugger import COMMANDS, CommandSpec

__all__ = ["CommandsProvider", "PaletteHost"]


@runtime_checkable
class PaletteHost(Protocol):
    """What the app does with a chosen command."""

    def choose_command(self, name: str) -> None:
        """Run command ``name``, or start typing it when it needs arguments."""
        ...

    def why_not(self, name: str) -> str | None:
        """Why the command cannot run now (``None``: it can)."""
        ...


def _help(spec: CommandSpec, host: PaletteHost) -> str:
    reason = host.why_not(spec.name)
    usage = f"{spec.usage} — {spec.summary}"
    return f"{usage}  [not now: {reason}]" if reason else usage


class CommandsProvider(Provider):
    """Lists :data:`~sgdebug.debugger.COMMANDS`."""

    @property
    def host(self) -> PaletteHost:
        app = self.app
        if not isinstance(app, PaletteHost):
            raise TypeError(f"{type(app).__name__} cannot run palette commands")
        return app

    async def discover(self) -> Hits:
        host = self.host
        for spec in COMMANDS:
            yield DiscoveryHit(
                spec.name, partial(host.choose_command, spec.name), help=_help(spec, host)
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        host = self.host
        for spec in COMMANDS:
            text = " ".join((spec.name, *spec.aliases))
            score = max(matcher.match(text), matcher.match(spec.summary) * 0.5)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(spec.name),
                    partial(host.choose_command, spec.name),
                    text=spec.name,
                    help=_help(spec, host),
                )
