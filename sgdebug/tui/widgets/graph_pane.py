"""The graph pane: the graph drawn with each node's status; arrows or the mouse select a node."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from sgdebug.debugger.frame import END_NODE, START_NODE, NodeState, NodeStatus
from sgdebug.inspect import Drawing, DrawnNode, draw
from sgdebug.inspect.expand import expand_all, expandable
from sgdebug.inspect.node_paths import PATH_SEP
from sgdebug.inspect.topology import Topology
from sgdebug.tui.graph_paint import (
    LEGEND,
    LIST_GUTTER,
    STATUS_WORD,
    Palette,
    edge_legend,
    paint,
)
from sgdebug.tui.widgets.graph_canvas import GraphCanvas

__all__ = ["GraphPane"]

_STATUSES: tuple[NodeStatus, ...] = ("pending", "running", "done", "ran", "error", "finished")
_FOOTER_ROWS = 4
"""Rows under the drawing: a blank one, the selected node's line and two rows of legend.
A row of edge marks is added when the drawing leaves room for it."""


class GraphPane(VerticalScroll, can_focus=True):
    """The graph with node status marks; Enter or a click opens the selected node."""

    BINDINGS = [
        Binding("up", "move(0, -1)", "Node above", show=False),
        Binding("down", "move(0, 1)", "Node below", show=False),
        Binding("left", "move(-1, 0)", "Node left", show=False),
        Binding("right", "move(1, 0)", "Node right", show=False),
        Binding("enter", "open", "Details", show=False),
    ]
    COMPONENT_CLASSES = {
        *(f"graph-pane--{status}" for status in _STATUSES),
        "graph-pane--selected",
        "graph-pane--break",
    }

    selected: reactive[str | None] = reactive(None)
    """The selected node (arrows and clicks move it)."""

    class NodeSelected(Message):
        """The selection moved to ``node``."""

        def __init__(self, node: str) -> None:
            super().__init__()
            self.node = node

    class NodeOpened(Message):
        """The user asked for ``node``'s details (Enter or a click)."""

        def __init__(self, node: str) -> None:
            super().__init__()
            self.node = node

    def __init__(self, topology: Topology, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.base = topology
        """The graph as the session knows it, every subgraph closed."""
        self.topology = topology
        """What is drawn: :attr:`base` with the subgraphs of :attr:`opened` drawn open."""
        self.opened: frozenset[str] = frozenset()
        """The subgraph nodes drawn with their inner nodes (``o``, or the run entering one)."""
        self._entered: frozenset[str] = frozenset()
        """The subgraphs the run is inside, as last shown (opened once when entered)."""
        self.states: Mapping[str, NodeState] = {}
        self.drawing: Drawing | None = None
        self._fitted: tuple[Topology, int, int] | None = None
        """What :attr:`drawing` was made for: the topology and the room (columns, rows)."""
        self._canvas = GraphCanvas(self._fit, id="graph-canvas")
        self._caption = Static("", id="graph-caption", markup=False)
        names = [n.name for n in topology.nodes if n.name not in (START_NODE, END_NODE)]
        self.set_reactive(GraphPane.selected, names[0] if names else None)

    def compose(self) -> ComposeResult:
        yield self._canvas
        yield self._caption

    def watch_selected(self, old: str | None, new: str | None) -> None:
        self._repaint()
        if new is not None and new != old:
            self.post_message(self.NodeSelected(new))

    def on_resize(self, event: events.Resize) -> None:
        self._layout()

    def watch_show_vertical_scrollbar(self) -> None:
        """Lay out again for the narrower room a scrollbar leaves (a list made for the
        pane without one wrapped its lines when the scrollbar came)."""
        self._layout()

    def show_states(self, states: Mapping[str, NodeState]) -> None:
        """Mark each node with its state; a subgraph the run just entered is drawn open."""
        self.states = states
        inside = frozenset(name.rsplit(PATH_SEP, 1)[0] for name in states if PATH_SEP in name)
        entered = inside - self._entered
        self._entered = inside
        if entered - self.opened:
            self.open_subgraphs(self.opened | entered)
        else:
            self._repaint()

    def open_subgraphs(self, paths: frozenset[str]) -> None:
        """Draw the subgraphs of ``paths`` open (their inner nodes in place), the rest closed."""
        self.opened = paths
        self.topology = expand_all(self.base, paths)
        names = self.topology.names
        chosen = self.selected
        if chosen is not None and chosen not in names:  # opened: its first inner node
            inner = [n for n in names if n.startswith(chosen + PATH_SEP)]
            self.selected = inner[0] if inner else chosen.split(PATH_SEP, 1)[0]
        self._layout()

    def open_path(self, path: str) -> None:
        """Draw the subgraph node ``path`` open, and the subgraphs it is inside
        (``:open research/deeper``), the selection on its first inner node, as ``o`` on it."""
        parts = path.split(PATH_SEP)
        around = {PATH_SEP.join(parts[: i + 1]) for i in range(len(parts))}
        self.set_reactive(GraphPane.selected, path)  # (moved to its first inner node next)
        self.open_subgraphs(self.opened | around)

    def action_toggle_subgraph(self) -> None:
        """Open the selected subgraph node, or close the subgraph the selection is in."""
        name = self.selected
        if name is None:
            return
        if PATH_SEP in name:
            frame = name.rsplit(PATH_SEP, 1)[0]
            self.open_subgraphs(
                frozenset(
                    p for p in self.opened if p != frame and not p.startswith(frame + PATH_SEP)
                )
            )
            self.selected = frame
        elif name in expandable(self.topology):
            self.open_subgraphs(self.opened | {name})
        else:
            self.notify(f"{name} runs no subgraph", severity="warning")

    # -- drawing ---------------------------------------------------------------------------

    def _layout(self) -> None:
        if not self.is_mounted:
            return
        region = self.scrollable_content_region
        if self._fit(region.width, region.height, layout=True):
            self._repaint()

    def _fit(self, columns: int, rows: int, *, layout: bool = False) -> bool:
        """Draw the graph for a content area of ``columns`` x ``rows`` unless it is drawn
        for it already (whether it drew). Textual's layout calls it with ``layout=False``
        (the canvas's height is being measured: painted without another layout)."""
        fitted = self._fitted
        if fitted is not None and fitted[0] is self.topology and fitted[1:] == (columns, rows):
            return False
        self._fitted = (self.topology, columns, rows)
        width = max(8, columns)
        height = max(3, rows - _FOOTER_ROWS)
        self.drawing = draw(self.topology, width=width, height=height)
        if self.drawing.mode == "list":  # paint puts its marks before the list's lines
            self.drawing = draw(self.topology, width=width - LIST_GUTTER, height=height)
        if not layout:
            self._repaint(layout=False)
        return True

    def _repaint(self, *, layout: bool = True) -> None:
        if self.drawing is None or not self.is_mounted:
            return
        palette = Palette(
            status={s: self.get_component_rich_style(f"graph-pane--{s}") for s in _STATUSES},
            selected=self.get_component_rich_style("graph-pane--selected"),
            breakpoint=self.get_component_rich_style("graph-pane--break"),
        )
        self._caption.update(self._describe(), layout=layout)  # (first: see GraphCanvas)
        self._canvas.update(paint(self.drawing, self.states, self.selected, palette), layout=layout)

    def _describe(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        name = self.selected
        if name is not None:
            state = self.states.get(name, NodeState(name, "idle"))
            shown = {START_NODE: "START", END_NODE: "END"}.get(name, name)
            text.append(f"▸ {shown}", style="bold")
            text.append(f": {STATUS_WORD[state.status]}")
            marks = [w for w, on in (("before", state.before), ("after", state.after)) if on]
            if marks:
                text.append(f" · ● {' & '.join(marks)}")
            if name in expandable(self.topology):
                text.append(" · o opens it", style="dim")
            elif called := _called(self.topology, name):
                text.append(f" · calls {called}", style="dim")
            elif PATH_SEP in name:
                text.append(" · o closes " + name.rsplit(PATH_SEP, 1)[0], style="dim")
            text.append("\n")
        text.append(LEGEND, style="dim")
        drawing = self.drawing
        edges = edge_legend(drawing) if drawing is not None else ""
        # The edge marks take a row under the footer only where the drawing leaves one.
        rows = self._fitted[2] if self._fitted is not None else 0
        spare = rows - _FOOTER_ROWS
        if edges and drawing is not None and drawing.height < spare:
            text.append(f"\n{edges}", style="dim")
        return text

    # -- selection -------------------------------------------------------------------------

    def action_move(self, dx: int, dy: int) -> None:
        """Select the nearest node in direction (dx, dy)."""
        if self.drawing is None:
            return
        nodes = {n.name: n for n in self.drawing.nodes}
        current = nodes.get(self.selected or "")
        if current is None:
            self.selected = next(iter(nodes), None)
            return
        found = _nearest(current, list(nodes.values()), dx, dy)
        if found is not None:
            self.selected = found.name
            self._canvas.scroll_visible()

    def action_open(self) -> None:
        if self.selected is not None:
            self.post_message(self.NodeOpened(self.selected))

    def on_click(self, event: events.Click) -> None:
        if self.drawing is None:
            return
        offset = event.get_content_offset(self._canvas)
        if offset is None:
            return
        x = offset.x - (3 if self.drawing.mode == "list" else 0)
        node = self.drawing.node_at(max(0, x), offset.y)
        if node is not None:
            self.focus()
            self.selected = node.name
            self.post_message(self.NodeOpened(node.name))


def _center(node: DrawnNode) -> tuple[float, float]:
    box = node.box
    return box.x + box.w / 2, box.y + box.h / 2


def _nearest(current: DrawnNode, nodes: list[DrawnNode], dx: int, dy: int) -> DrawnNode | None:
    """The closest node whose centre lies in direction (dx, dy) from ``current``'s."""
    cx, cy = _center(current)
    best: tuple[float, DrawnNode] | None = None
    for node in nodes:
        if node is current:
            continue
        x, y = _center(node)
        along = (x - cx) * dx + (y - cy) * dy
        if along <= 0:
            continue
        across = abs((x - cx) * dy) + abs((y - cy) * dx)
        score = along + 2 * across
        if best is None or score < best[0]:
            best = (score, node)
    return best[1] if best is not None else None


def _called(topology: Topology, name: str) -> str:
    """The compiled graphs node ``name``'s function invokes, in a few words ('' if none)."""
    node = topology.node(name) if name in topology.names else None
    if node is None or not node.calls:
        return ""
    named = [repr(n) for n in node.calls if n]
    if len(named) == len(node.calls):
        return ", ".join(named)
    return "a subgraph" if len(node.calls) == 1 else f"{len(node.calls)} subgraphs"
