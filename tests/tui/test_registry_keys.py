"""Keys and the palette come from the one command registry: a key that cannot run says why,
the palette holds our commands (Textual's grouped apart, without its instant quit), and
quitting asks first wherever it comes from."""

from __future__ import annotations

import pytest
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot

from sgdebug.debugger import COMMANDS
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.keys import KEY_COMMANDS, help_rows
from sgdebug.tui.screens.confirm_screen import ConfirmScreen

from .harness import drive, log_of, press, sample_session, select_node


@pytest.mark.parametrize("key", ["s", "c", "t"])
def test_after_the_run_finished_a_motion_key_says_why_it_does_nothing(key: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "c")
        assert app.frame is not None and app.frame.view.status == "done"
        before = len(log_of(app))

        await press(app, pilot, key)

        said = log_of(app)[before:]
        assert len(said) == 1 and "the run finished" in said[0]
        assert said[0].endswith("(keys: r restarts, h browses the history)")
        assert app.frame.view.status == "done"  # nothing ran

    drive(sample_session("linear"), scenario)


def test_a_node_key_without_a_selected_node_says_to_select_one() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await select_node(app, pilot, "__start__")
        before = len(log_of(app))
        await press(app, pilot, "u")  # `until` needs a node of the graph, not START
        assert log_of(app)[before:] == ["until: select a node first"]

    drive(sample_session("linear"), scenario)


def test_every_key_label_and_footer_mark_comes_from_the_registry() -> None:
    keyed = {spec.name: spec for spec in COMMANDS if spec.key}
    for item in KEY_COMMANDS:
        if item.id == "break_after":
            continue
        spec = keyed[item.id]
        assert (item.key, item.description, item.show, item.needs, item.pane) == (
            spec.key, spec.key_label, spec.footer, spec.takes, spec.pane
        )  # fmt: skip


def _palette_titles(palette: CommandPalette) -> list[str]:
    commands = palette.query_one(CommandList)
    return [
        str(commands.get_option_at_index(i).prompt).splitlines()[0]
        for i in range(commands.option_count)
    ]


def test_the_palette_groups_textuals_commands_apart_and_drops_its_instant_quit() -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        await press(app, pilot, "ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.pause(0.2)
        titles = _palette_titles(app.screen)

        ours = [t for t in titles if not t.startswith("Screen: ")]
        assert sorted(ours) == sorted(spec.name for spec in COMMANDS)
        assert "Screen: Theme" in titles and "Screen: Keys" in titles
        assert "Quit" not in titles  # Textual's, which exits at once

    drive(sample_session("linear"), scenario)


@pytest.mark.parametrize("how", ["palette", "ctrl+q"])
def test_quitting_from_the_palette_or_textuals_key_asks_first(how: str) -> None:
    async def scenario(app: DebuggerApp, pilot: Pilot[int]) -> None:
        if how == "palette":
            app.choose_command("quit")
            await pilot.pause()
        else:
            await pilot.press("ctrl+q")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Quit and discard this session?" in app.screen.question
        await press(app, pilot, "n")
        assert not app.quitting

    drive(sample_session("linear"), scenario)


def test_the_help_lists_every_key_once_with_break_after_next_to_break() -> None:
    ids = [binding_id for binding_id, _ in help_rows()]
    assert len(ids) == len(set(ids))
    assert {k.id for k in KEY_COMMANDS} <= set(ids)
    assert ids.index("break_after") == ids.index("break") + 1
