"""Screenshot of the TUI stopped inside a subgraph a node's function invokes, on the native
engine, when two compiled graphs the function names both fit the subgraph's snapshot: the
breadcrumb says the graph is not known, the channel table shows the snapshot's values and
the diff pane says why. Update with ``--snapshot-update`` and read the SVG you accept."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sgdebug.tui import make_app

from .harness import WIDE, graph_session
from .test_inner_calls import _calling, _review
from .test_snapshots import prepare

SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def _fixed_step_times(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sgdebug.tui.widgets.history_pane.timing_text", lambda seconds: "1.0 ms")


class TestInsideACalledSubgraph:
    def test_stopped_where_its_graph_is_not_known(self, snap_compare: SnapCompare) -> None:
        graph = _calling(_review("first"), _review("second"))
        app = make_app(graph_session(graph, "twins", {"topic": "t"}))
        # < and > go up and back: their log lines scroll the interrupt's id (made from the
        # run's checkpoint id) out of the log's view, and the status line says the frame
        keys = ["less_than_sign", "greater_than_sign"]
        assert snap_compare(app, terminal_size=WIDE, run_before=prepare("continue", keys=keys))
