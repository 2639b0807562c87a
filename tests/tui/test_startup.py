"""The first screen: drawn with the session's frame at once, without a trip through the
engine thread (which cost a paint, with every key disabled until it came back)."""

from __future__ import annotations

import asyncio
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios

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


def _terminal_output_until(argv: list[str], markers: tuple[bytes, ...]) -> bytes:
    """What ``argv`` wrote to a 160x48 pseudo-terminal until its output held ``markers``."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color"}
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env,
                               start_new_session=True)  # fmt: skip
    os.close(slave)
    seen = b""
    try:
        while not all(marker in seen for marker in markers):
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, f"no screen in 60 s: {seen[-2000:]!r}"
            seen += os.read(master, 1 << 16)
    finally:
        process.kill()
        process.wait()
        os.close(master)
    return seen


def test_the_first_screen_a_terminal_shows_has_the_graph_drawn() -> None:
    # The graph pane drew the graph once it learned its size, after the first layout: the
    # first paint (status line, log, footer) had an empty graph pane, drawn a paint later.
    shown = _terminal_output_until([sys.executable, "-m", "sgdebug", "demo", "chatbot"],
                                   (b"PAUSED", b"Debugging", b"palette"))  # fmt: skip

    for drawn in ("START", "agent", "tools", "END", "» next"):
        assert drawn.encode() in shown, drawn
