"""Painting the graph: every status and breakpoint has a glyph, whatever the drawing mode."""

from __future__ import annotations

import pytest

from sgdebug.debugger.frame import NodeState
from sgdebug.inspect import draw
from sgdebug.inspect.topology import topology
from sgdebug.sample_graphs import load
from sgdebug.tui.graph_paint import BREAK_GLYPH, STATUS_GLYPH, edge_legend, paint
from sgdebug.tui.layout import layout_for, next_pane

STATES = {
    "__start__": NodeState("__start__", "ran"),
    "attempt": NodeState("attempt", "pending", before=True, after=True),
    "report": NodeState("report", "error"),
}


@pytest.mark.parametrize(("width", "height", "mode"), [(40, 40, "boxes"), (22, 12, "compact"),
                                                       (20, 6, "list")])  # fmt: skip
def test_each_mode_marks_status_and_breakpoints(width: int, height: int, mode: str) -> None:
    drawing = draw(topology(load("loop").graph), width, height)
    assert drawing.mode == mode

    text = paint(drawing, STATES, selected="attempt").plain
    lines = text.splitlines()

    row = lines[drawing.node("attempt").box.y]
    if mode == "boxes":  # the glyphs sit in the box's top border, the after mark below
        assert STATUS_GLYPH["pending"] in row and BREAK_GLYPH in row
        assert BREAK_GLYPH in lines[drawing.node("attempt").box.y + 2]
    else:
        assert STATUS_GLYPH["pending"] in row and BREAK_GLYPH in row
    assert STATUS_GLYPH["error"] in text and STATUS_GLYPH["ran"] in text


def test_compact_boxes_keep_their_brackets_beside_the_marks() -> None:
    drawing = draw(topology(load("loop").graph), 22, 12)
    assert drawing.mode == "compact"

    lines = paint(drawing, STATES).plain.splitlines()

    def row(name: str) -> str:
        return lines[drawing.node(name).box.y].strip()

    assert row("__start__") == "(✓START )"
    assert row("attempt") == "[»attempt●]┄↻"  # status, breakpoints, the self-loop mark
    assert row("report") == "[✗report ]"
    assert row("__end__") == "( END )"  # idle: no mark


def test_the_selected_node_is_styled() -> None:
    drawing = draw(topology(load("linear").graph), 40, 40)
    text = paint(drawing, {}, selected="node_1")
    box = drawing.node("node_1").box
    styled = [span for span in text.spans if str(span.style) == "reverse"]
    assert len(styled) == box.h


@pytest.mark.parametrize(
    ("size", "expected"),
    [((79, 40), "too-small"), ((120, 23), "too-small"), ((80, 24), "compact"),
     ((119, 50), "compact"), ((120, 31), "compact"), ((120, 40), "wide"), ((200, 60), "wide")],
)  # fmt: skip
def test_layout_for_size(size: tuple[int, int], expected: str) -> None:
    assert layout_for(*size) == expected


def test_tab_order_wraps_around() -> None:
    assert next_pane(None, 1) == "graph"
    assert next_pane("log", 1) == "graph"
    assert next_pane("graph", -1) == "log"
    assert next_pane("traceback", 1) == "log"


@pytest.mark.parametrize(
    ("sample", "width", "height", "expected"),
    [
        ("linear", 40, 30, ""),  # plain edges need no words
        ("loop", 28, 30, "┄ branch"),  # boxes: the loop is a dotted edge
        ("loop", 22, 12, "┄ branch ↻ self"),  # one-row boxes: the loop is a mark
        ("loop", 8, 3, ""),  # a list: no edges drawn
        ("approval", 28, 30, "┄ branch ▲ back"),  # only vertical dotted runs, and a back edge
    ],
)
def test_the_edge_legend_names_the_marks_the_drawing_uses(
    sample: str, width: int, height: int, expected: str
) -> None:
    drawing = draw(topology(load(sample).graph), width=width, height=height)
    assert edge_legend(drawing) == expected
