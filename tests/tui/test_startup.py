"""The first screen: drawn with the session's frame at once, without a trip through the
engine thread (which cost a paint, with every key disabled until it came back)."""

from __future__ import annotations

import asyncio

from sgdebug.tui import make_app
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.log_pane import LogPane
from tests.tui.harness import WIDE, sample_session, status_text


def test_the_first_screen_shows_the_session_and_its_keys_without_the_engine() -> None:
    app = make_app(sample_session("chatbot"))
    seen: dict[str, object] = {}

    async def main() -> None:
        async with app.run_test(size=WIDE):  # no wait for the engine: nothing was sent to it
            seen["engine workers"] = [w for w in app.workers if w.group == "engine"]
            seen["busy"] = app.busy
            seen["frames"] = app.frames_shown
            seen["status"] = status_text(app)
            seen["channels"] = [r.name for r in app.query_one(ChannelsPane).rows_shown]
            seen["step key"] = app.check_action("command", ("step",))

    asyncio.run(main())

    assert seen["engine workers"] == []
    assert seen["busy"] is False
    assert seen["frames"] == 1
    assert "PAUSED" in str(seen["status"])
    assert seen["channels"] == ["messages"]
    assert seen["step key"] is True


def test_the_first_screen_hook_runs_once_the_first_screen_is_drawn() -> None:
    app = make_app(sample_session("chatbot"))
    calls: list[int] = []
    app.first_screen_hook = lambda: calls.append(app.frames_shown)

    async def main() -> None:
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("s")
            await app.wait_idle()

    asyncio.run(main())

    assert calls == [1]  # once, after the first frame was drawn, not at each frame


def test_the_first_screen_drawn_has_the_footers_keys_and_the_logs_welcome() -> None:
    # Textual's footer and log fill in after the first paint (a second layout and paint
    # before the screen is whole); here they are in it.
    app = make_app(sample_session("chatbot"))
    seen: dict[str, list[str]] = {}

    def first_screen() -> None:
        seen["keys"] = [str(getattr(key, "description", "")) for key in app.query("FooterKey")]
        seen["log"] = [line.text for line in app.query_one(LogPane).lines]

    app.first_screen_hook = first_screen

    async def main() -> None:
        async with app.run_test(size=WIDE):
            await app.wait_idle()

    asyncio.run(main())

    assert "palette" in seen["keys"]
    assert "Step" in seen["keys"]
    assert seen["log"][0].startswith("Debugging chatbot: s steps")
