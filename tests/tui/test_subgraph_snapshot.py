"""Screenshot of the TUI stopped inside a subgraph (sample ``nested`` on LangGraph, at its
``interrupt()`` in ``research/summarize``): the breadcrumb, the subgraph's channels and
tasks, the graph with ``research`` drawn open. Update with ``--snapshot-update`` and read
the SVG you accept."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sgdebug.tui import make_app

from .harness import WIDE, sample_session
from .test_snapshots import prepare

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def _fixed_step_times(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sgdebug.tui.widgets.history_pane.timing_text", lambda seconds: "1.0 ms")


class TestInsideASubgraph:
    def test_stopped_at_the_subgraphs_interrupt(self, snap_compare: SnapCompare) -> None:
        session = sample_session("nested", engine="langgraph")
        app = make_app(session)
        # < and > go up to the parent's frame and back; their two log lines also scroll the
        # interrupt's id (made from LangGraph's time-based task id) out of the log's view.
        keys = ["less_than_sign", "greater_than_sign"]
        assert snap_compare(app, terminal_size=WIDE, run_before=prepare("continue", keys=keys))
