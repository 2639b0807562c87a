"""The breadcrumb: which graph's frame the panes show, when the run is inside a subgraph."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from sgdebug.debugger.frame import Frame
from sgdebug.debugger.subframes import BREADCRUMB_SEP

__all__ = ["Breadcrumb"]


class Breadcrumb(Static):
    """``Frame: parent`` then the subgraphs, with how to move; hidden outside subgraphs."""

    DEFAULT_CSS = """
    Breadcrumb { height: 1; display: none; background: $boost; }
    Breadcrumb.-inside { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.trail = ""
        """The breadcrumb shown (empty: the run is not inside a subgraph)."""

    def show_frame(self, frame: Frame) -> None:
        """Show where ``frame`` is; hide when the run is not inside a subgraph."""
        self.trail = frame.breadcrumb
        self.set_class(bool(self.trail), "-inside")
        if not self.trail:
            self.update("")
            return
        levels = self.trail.split(BREADCRUMB_SEP)
        text = Text(" Frame: ", style="dim", no_wrap=True, overflow="ellipsis")
        for index, level in enumerate(levels):
            if index:
                text.append(BREADCRUMB_SEP, style="dim")
            shown = index == len(levels) - 1
            text.append(level, style="bold reverse" if shown else "")
        inner = frame.subgraph is not None
        hint = "   < up (parent's frame)" if inner else "   > down (the subgraph's frame)"
        if inner and frame.subgraph is not None and frame.subgraph.instance[1] > 1:
            count = frame.subgraph.instance[1]
            hint = f"   < up (one of {count} running at once: up, then `down N` picks one)"
        text.append(hint, style="dim")
        if inner and frame.subgraph is not None and frame.subgraph.note:
            text.append("   graph not known: see Diff", style="dim")
        self.update(text)
