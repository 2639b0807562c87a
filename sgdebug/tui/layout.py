"""Which layout fits the terminal, the panes' titles and classes, and the order Tab visits
the panes in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, TypeVar

from sgdebug.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH

if TYPE_CHECKING:
    from textual.widget import Widget

__all__ = ["DETAIL_PANES", "PANE_ORDER", "PANE_TITLES", "Layout", "as_pane", "layout_for",
           "next_pane"]  # fmt: skip

W = TypeVar("W", bound="Widget")

Layout = Literal["too-small", "compact", "wide"]
WIDE_WIDTH: Final = 120
WIDE_HEIGHT: Final = 32
PANE_ORDER: Final = ("graph", "channels", "tasks", "inspector", "history", "diff", "log")
"""Tab's order (``diff`` stands for the traceback while the run is on an exception)."""
DETAIL_PANES: Final = frozenset({"tasks", "inspector", "diff", "traceback", "history"})
"""Panes that share one place in the compact layout (the one in use is shown)."""
PANE_TITLES: Final = {
    "graph": "Graph",
    "channels": "Channels",
    "tasks": "Tasks (next step)",
    "inspector": "Value",
    "diff": "Diff (last step)",
    "traceback": "Exception",
    "history": "History",
    "log": "Log",
}


def as_pane(widget: W, detail: str) -> W:
    """``widget`` titled and classed as its pane (a detail pane is ``-shown`` when it is
    ``detail``), before it mounts."""
    name = str(widget.id)
    widget.border_title = PANE_TITLES[name]
    widget.add_class("pane", update=False)
    if name in DETAIL_PANES:
        widget.add_class("detail", *(("-shown",) if name == detail else ()), update=False)
    return widget


def layout_for(width: int, height: int) -> Layout:
    """``wide`` shows every pane; ``compact`` the graph, channels and one detail pane."""
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        return "too-small"
    if width >= WIDE_WIDTH and height >= WIDE_HEIGHT:
        return "wide"
    return "compact"


def next_pane(current: str | None, delta: int) -> str:
    """The pane after (``delta`` 1) or before (-1) ``current`` in Tab order."""
    key = "diff" if current == "traceback" else current
    if key not in PANE_ORDER:
        return PANE_ORDER[0] if delta > 0 else PANE_ORDER[-1]
    return PANE_ORDER[(PANE_ORDER.index(key) + delta) % len(PANE_ORDER)]
