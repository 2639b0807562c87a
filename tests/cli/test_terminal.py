"""The TUI in a real terminal (a pty): SIGTERM and SIGHUP give the terminal back."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from .conftest import SPINNING, Write

HANG_GUARD_S = 30.0
"""Waiting longer than this means the test is broken (it stops a hung test, it times nothing)."""
LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"
MOUSE_OFF = b"\x1b[?1000l"


class Terminal:
    """``sgdebug`` running on a pseudo-terminal of 120x40; everything it wrote is kept."""

    def __init__(self, project: Path, *args: str) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sgdebug", *args],
            cwd=project,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, "TERM": "xterm-256color"},
            start_new_session=True,
        )
        os.close(slave)
        self.output = b""

    def read_until(self, done: bytes | Path) -> None:
        """Read what it writes until ``done`` appears (bytes) or exists (a path)."""
        deadline = time.monotonic() + HANG_GUARD_S
        while not self._seen(done):
            assert time.monotonic() < deadline, f"waited for {done!r}; got {self.output[-500:]!r}"
            if not self._read(0.1):
                assert self.process.poll() is None, self.output[-2000:]

    def press_until(self, key: bytes, done: Path) -> None:
        """Press ``key`` until ``done`` exists (keys are ignored until the app is ready)."""
        deadline = time.monotonic() + HANG_GUARD_S
        while not done.exists():
            assert time.monotonic() < deadline, f"{done} never appeared: {self.output[-500:]!r}"
            os.write(self.master, key)
            self._read(0.2)

    def read_to_the_end(self) -> int:
        """Read until the program exits and closes the terminal; its exit status."""
        deadline = time.monotonic() + HANG_GUARD_S
        while self._read(0.1) is not False or self.process.poll() is None:
            assert time.monotonic() < deadline, self.output[-2000:]
        return self.process.wait(HANG_GUARD_S)

    def _seen(self, done: bytes | Path) -> bool:
        return done in self.output if isinstance(done, bytes) else done.exists()

    def _read(self, timeout: float) -> bool | None:
        """Read what is there: ``True``; nothing yet: ``None``; the terminal closed: ``False``."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return None
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: every process on the terminal has gone
            return False
        self.output += chunk
        return bool(chunk)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(HANG_GUARD_S)
        os.close(self.master)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_while_a_node_loops_restores_the_terminal(
    project: Path, write: Write, signum: int
) -> None:
    write("spin.py", SPINNING)
    terminal = Terminal(project, "spin.py:graph", "--input", '{"n": 0}')
    try:
        terminal.read_until(b"Debugging spin.py:graph")
        terminal.press_until(b"c", project / "spinning")  # continue, into the endless loop
        drawn = len(terminal.output)
        terminal.process.send_signal(signum)

        status = terminal.read_to_the_end()
    finally:
        terminal.close()

    assert status == 128 + signum
    after = terminal.output[drawn:]
    assert LEAVE_ALTERNATE_SCREEN in after
    assert MOUSE_OFF in after
