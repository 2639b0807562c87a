"""Screenshots of the TUI (pytest-textual-snapshot), at 120x40 and 80x24, one class per feature.

Run ``pytest tests/tui/test_snapshots.py --snapshot-update`` after a deliberate change and look
at every SVG it rewrites (``snapshot_report.html`` shows a failed run's differences).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import pytest
from textual.pilot import Pilot

from sgdebug.debugger import Session, run_line
from sgdebug.tui import make_app
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.log_pane import LogPane

from .graphs import snapshot_flaky_graph
from .harness import SMALL, WIDE, graph_session, sample_session, settle

SIZES = pytest.mark.parametrize("size", [WIDE, SMALL], ids=["120x40", "80x24"])
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def _fixed_step_times(monkeypatch: pytest.MonkeyPatch) -> None:
    """The history shows how long each step took on this machine: the screenshots show
    one fixed time in its place (tests/tui/test_timing.py checks the real ones)."""
    monkeypatch.setattr("sgdebug.tui.widgets.history_pane.timing_text", lambda seconds: "1.0 ms")


def prepare(
    *lines: str, keys: Sequence[str] = (), pane: str | None = None
) -> Callable[[Pilot[int]], Awaitable[None]]:
    """A ``run_before``: wait for the first frame, run ``lines``, press ``keys``, show ``pane``."""

    async def run_before(pilot: Pilot[int]) -> None:
        app = pilot.app
        assert isinstance(app, DebuggerApp)
        await settle(app)
        for line in lines:
            app.run_lines([line])
            await settle(app)
        for key in keys:
            await pilot.press(key)
            await settle(app)
        if pane is not None:
            app.focus_pane(pane)
        await pilot.pause()

    return run_before


def snap(
    snap_compare: SnapCompare,
    session: Session,
    size: tuple[int, int],
    run_before: Callable[[Pilot[int]], Awaitable[None]],
) -> bool:
    return snap_compare(make_app(session), terminal_size=size, run_before=run_before)


@SIZES
class TestStart:
    def test_start(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap(snap_compare, sample_session("loop"), size, prepare())


@SIZES
class TestStep:
    def test_after_a_step(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap(snap_compare, sample_session("loop"), size, prepare(keys=["s"]))


@SIZES
class TestReducerDiff:
    def test_the_diff_of_a_reducer_step(
        self, snap_compare: SnapCompare, size: tuple[int, int]
    ) -> None:
        run_before = prepare("step 2", pane="diff")
        assert snap(snap_compare, sample_session("fanout"), size, run_before)


@SIZES
class TestBreakpoint:
    def test_paused_at_a_breakpoint(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        session = sample_session("fanout")
        assert run_line(session, "break before d")
        assert snap(snap_compare, session, size, prepare(keys=["c"]))


@SIZES
class TestException:
    def test_a_node_exception(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        session = graph_session(snapshot_flaky_graph(), "flaky", {"divisor": 0})
        assert snap(snap_compare, session, size, prepare(keys=["c"]))


@SIZES
class TestHistoryFork:
    def test_the_history_tree_with_a_fork(
        self, snap_compare: SnapCompare, size: tuple[int, int]
    ) -> None:
        run_before = prepare("step 3", "goto 2", "set count = 5", "step", pane="history")
        assert snap(snap_compare, sample_session("loop"), size, run_before)


@SIZES
class TestHelp:
    def test_the_help_screen(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        run_before = prepare(keys=["question_mark"])
        assert snap(snap_compare, sample_session("loop"), size, run_before)


LONG_LINES = ("break before attempt if len(mesages) > 6", 'print "a long answer " * 40')
"""A refusal over two lines, then an answer taller than the log pane."""


def _open_log(pilot: Pilot[int]) -> Awaitable[None]:
    async def run_before(pilot: Pilot[int]) -> None:
        await prepare(*LONG_LINES)(pilot)
        app = pilot.app
        assert isinstance(app, DebuggerApp)
        app.query_one(LogPane).focus()
        await pilot.pause()
        await pilot.press("enter")
        for _ in range(50):  # the screen is pushed by a message: wait for it
            await pilot.pause()
            if app.screen.id == "log-screen":
                break
        await pilot.pause()

    return run_before(pilot)


@SIZES
class TestLog:
    def test_the_newest_message_shows_from_its_first_line(
        self, snap_compare: SnapCompare, size: tuple[int, int]
    ) -> None:
        assert snap(snap_compare, sample_session("loop"), size, prepare(*LONG_LINES))

    def test_the_whole_log_in_its_own_screen(
        self, snap_compare: SnapCompare, size: tuple[int, int]
    ) -> None:
        assert snap(snap_compare, sample_session("loop"), size, _open_log)

    def test_help_on_one_command_in_the_help_screen(
        self, snap_compare: SnapCompare, size: tuple[int, int]
    ) -> None:
        assert snap(snap_compare, sample_session("loop"), size, prepare("help resume"))


@SIZES
class TestLangGraphEngine:
    def test_a_langgraph_graph_after_a_step_and_an_unavailable_key(
        self, snap_compare: SnapCompare, size: tuple[int, int]
    ) -> None:
        # The same fan-out program built with LangGraph: LangGraph's step numbers, the
        # engine in the status line, `t` dimmed in the footer and its reason in the log.
        run_before = prepare("step 2", keys=["t"], pane="diff")
        session = sample_session("fanout", engine="langgraph")
        assert snap(snap_compare, session, size, run_before)


@pytest.mark.parametrize("size", [(79, 24), (60, 20)], ids=["79x24", "60x20"])
class TestTooSmall:
    def test_the_too_small_message(self, snap_compare: SnapCompare, size: tuple[int, int]) -> None:
        assert snap(snap_compare, sample_session("loop"), size, prepare())
