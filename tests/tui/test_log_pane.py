"""The log pane wraps its messages when it is drawn at a width it has not wrapped them at:
so what is written before it has a size, or while it is hidden, is shown once it is drawn."""

from __future__ import annotations

from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.log_pane import LogPane

from .harness import drive, sample_session


def _shown(log: LogPane) -> list[str]:
    return [line.text.rstrip() for line in log.lines]


def test_a_message_written_while_the_terminal_is_too_small_is_shown_when_it_grows() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        log = app.query_one(LogPane)
        await pilot.resize_terminal(60, 20)  # the panes give way to "too small"
        await pilot.pause()
        log.write_note("written while the log was hidden")
        await pilot.resize_terminal(160, 48)  # back to the width it had
        await pilot.pause()
        assert _shown(log)[-1] == "written while the log was hidden"

    drive(sample_session("linear"), scenario, size=(160, 48))


def test_a_message_longer_than_the_pane_is_wrapped_to_its_width_in_order() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        log = app.query_one(LogPane)
        log.write_note("first")
        log.write_note("word " * 40)
        log.write_note("last")
        await pilot.pause()
        width = log.scrollable_content_region.width
        shown = _shown(log)
        assert shown[-1] == "last"
        assert shown[-3].startswith("word") and shown[-2].startswith("word")
        assert shown[-4] == "first"
        assert all(line.cell_length <= width for line in log.lines)

    drive(sample_session("linear"), scenario, size=(120, 40))
