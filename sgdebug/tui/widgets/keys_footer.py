"""The footer: Textual's, with its keys in the first screen.

Textual's footer fills in its keys only after the screen has been drawn (it recomposes once
the bindings are known, after a refresh), so the first screen had an empty footer and the
keys came with a second layout and paint. This one recomposes as soon as the bindings
change, so before the first paint when they change while the app mounts; changes that come
before a recompose ran are one recompose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen

__all__ = ["KeysFooter"]


class KeysFooter(Footer):
    """The key bindings of what has focus, shown from the first screen on."""

    def __init__(self, *, id: str | None = None, compact: bool = False) -> None:
        super().__init__(id=id, compact=compact)
        self._recompose_due = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True  # Footer's flag: its compose shows the keys from now on
        if self._recompose_due or not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._recompose_due = True
            self.call_next(self._show_keys)

    async def _show_keys(self) -> None:
        self._recompose_due = False
        await self.recompose()
