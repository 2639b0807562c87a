"""The message shown instead of the panes when the terminal is below 80x24."""

from __future__ import annotations

from textual.widgets import Static

__all__ = ["MIN_HEIGHT", "MIN_WIDTH", "TooSmall"]

MIN_WIDTH = 80
MIN_HEIGHT = 24


class TooSmall(Static):
    """``The terminal is too small: 60x20, the debugger needs at least 80x24.``"""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)

    def show_size(self, width: int, height: int) -> None:
        """Say how big the terminal is and how big it must be."""
        self.update(
            f"The terminal is too small: {width}x{height}.\n"
            f"sgdebug needs at least {MIN_WIDTH}x{MIN_HEIGHT}.\n"
            "Enlarge the window, or press q to quit."
        )
