"""The Tasks pane: a long input wraps onto a second line (an ellipsis where it is cut), a
task that ran shows what it wrote, and the highlighted task's input and writes fill the
Value pane."""

from __future__ import annotations

from textual.pilot import Pilot

from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.inspector_pane import InspectorPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

from .harness import drive, press, sample_session

LONG = "request-" + "x" * 90


def _cells(pane: TasksPane, row: int) -> list[str]:
    return [str(cell) for cell in pane.get_row_at(row)]


def test_a_long_input_wraps_onto_a_second_line_and_says_where_it_is_cut() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s")  # node_1 pending, its input holds the long id
        pane = app.query_one(TasksPane)
        width = pane.columns[pane.ordered_columns[3].key].width
        first, second = _cells(pane, 0)[3].splitlines()

        assert first == "{'cur_id':"  # wrapped at a word: the id starts the next line
        assert second.startswith("'request-xxx") and second.endswith("…")
        assert len(second) == width  # the id fills the line, and the ellipsis ends it
        assert pane.ordered_rows[0].height == 2

    drive(sample_session("linear", input={"cur_id": LONG, "logs": []}), scenario, size=(160, 48))


def test_an_input_that_needs_more_than_two_lines_ends_in_an_ellipsis() -> None:
    from rich.console import Console

    from sgdebug.tui.widgets.tasks_pane import _cut

    words = "{'count': 6, 'status': 'attempting again', 'notes': ['first try']}"
    shown = _cut(words, 20, Console()).plain.splitlines()

    assert shown == ["{'count': 6,", "'status': 'attempti…"]  # (the rest, as much as fits)
    assert all(len(line) <= 20 for line in shown)
    assert _cut("{'count': 6}", 20, Console()).plain == "{'count': 6}"  # (fits: as it is)


def test_after_t_the_task_shows_what_it_wrote_and_where_it_routes() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "t")  # step 1 runs b and c: t runs b only
        pane = app.query_one(TasksPane)

        ran, waiting = _cells(pane, 0), _cells(pane, 1)
        assert ran[:2] == ["✓", "b"] and ran[3] == "wrote trail=['b'] → b_2"
        assert waiting[:2] == ["»", "c"] and waiting[3] == "{'trail': ['a']}"

    drive(sample_session("fanout"), scenario, size=(160, 48))


def test_highlighting_a_task_shows_its_input_and_writes_in_the_value_pane() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "s", "t")
        pane = app.query_one(TasksPane)
        pane.focus()
        await pilot.pause()
        inspector = app.query_one(InspectorPane)
        assert inspector.subject.startswith("task b · done")  # the cursor's row: b

        labels = [str(node.label).split()[0].strip("'") for node in inspector.root.children]
        assert labels == ["input", "triggers", "writes", "routes"]
        writes = inspector.root.children[2]
        assert writes.data is not None and writes.data.preview == "{'trail': ['b']}"

        await press(app, pilot, "down")
        assert inspector.subject == "task c · pending"

    drive(sample_session("fanout"), scenario, size=(160, 48))
