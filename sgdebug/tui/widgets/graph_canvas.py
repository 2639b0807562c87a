"""The graph pane's drawing, made for the room the first layout gives it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.widgets import Static

if TYPE_CHECKING:
    from textual.geometry import Size

__all__ = ["GraphCanvas"]


class GraphCanvas(Static):
    """Static text the graph pane paints the drawing into.

    Textual asks for its height when it lays the screen out, with the room it has: the pane
    draws the graph for that room then (``fit``), so the first paint already shows the
    graph, where waiting for the pane's resize drew it one layout and paint later.
    """

    def __init__(self, fit: Callable[[int, int], object], *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._fit = fit

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._fit(width, container.height)
        return super().get_content_height(container, viewport, width)
