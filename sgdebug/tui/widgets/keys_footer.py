"""The footer: Textual's, with its keys in the first screen.

Textual's footer fills in its keys only after the screen has been drawn (it recomposes once
the bindings are known, after a refresh), so the first screen had an empty footer and the
keys came with a second layout and paint. This one shows the keys the first time the
bindings are known at once, so in the first paint; later changes it follows as Textual's
footer does (after a refresh, when a burst of changes has settled). Each key comes with the
footer's ``-compact`` class already set, so it is styled once as it mounts, not a second
time when its ``compact`` (bound to the footer's) sets the class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen

__all__ = ["KeysFooter"]


class KeysFooter(Footer):
    """The key bindings of what has focus, shown from the first screen on."""

    def __init__(self, *, id: str | None = None, compact: bool = False) -> None:
        super().__init__(id=id, compact=compact)
        self._keys_shown = False

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._keys_shown:
            super().bindings_changed(screen)
            return
        self._bindings_ready = True  # Footer's flag: its compose shows the keys from now on
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._keys_shown = True
            self.call_next(self.recompose)
