"""The debugger's own screen: the first one, holding the panes."""

from __future__ import annotations

from textual import events
from textual.screen import Screen

__all__ = ["MainScreen"]


class MainScreen(Screen[None]):
    """Textual's default screen, but its first resume does not style every widget again.

    The app's widgets are styled as each mounts, after the app's CSS was read; Textual then
    resumes its first screen and styles the whole screen a second time (every widget and
    every component class of each), which cost the first screen about a tenth of its time.
    Later resumes (back from a modal screen) style it again as Textual does.
    """

    def __init__(self) -> None:
        super().__init__(id="_default")
        self._resumed = False

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
