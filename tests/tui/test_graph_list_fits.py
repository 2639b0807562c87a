"""At 80x24 the graph pane lists the graph: every line fits the pane (a line one glyph
column too long used to wrap, breaking a join's "(waits for …)" onto a line of its own)."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.graph_pane import GraphPane

from .harness import SMALL, drive, sample_session


@pytest.mark.parametrize("name", ["chatbot", "fanout", "map_reduce"])
def test_the_graph_list_fits_the_narrow_pane(name: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await pilot.pause()  # the canvas laid out with what was drawn
        pane = app.query_one(GraphPane)
        canvas = pane.query_one("#graph-canvas", Static)
        assert pane.drawing is not None
        lines = str(canvas.render()).splitlines()
        assert lines and max(len(line) for line in lines) <= canvas.size.width
        assert canvas.size.height == len(lines)  # no line wrapped onto another
        if name == "fanout":
            assert any(line.strip().startswith("c ") and "d (waits…" in line for line in lines)

    drive(sample_session(name), scenario, size=SMALL)


def test_an_opened_subgraph_lists_its_edge_targets_whole_in_the_narrow_pane() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        pane = app.query_one(GraphPane)
        pane.selected = "research"
        await pilot.press("o")
        await pilot.pause()
        await pilot.pause()  # laid out again for the scrollbar the longer list brings
        canvas = pane.query_one("#graph-canvas", Static)
        lines = [line.rstrip() for line in str(canvas.render()).splitlines()]
        assert pane.show_vertical_scrollbar
        assert max(len(line) for line in lines) <= canvas.size.width
        assert canvas.size.height == len(lines)  # no line wrapped onto another
        arrows = [line.strip() for line in lines if "──▶" in line]
        assert arrows == [
            "──▶ plan", "──▶ …/gather", "──▶ …/summarize", "──▶ write", "──▶ END"
        ]  # fmt: skip

    drive(sample_session("nested"), scenario, size=SMALL)
