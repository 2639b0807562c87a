"""``sgdebug run``: debugger commands from a script or stdin, run headless, printed with rich.

Ctrl-C (SIGINT) ends the script with status 130: it interrupts the command that runs (a
node in an endless loop included) and nothing after it runs.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from sgdebug.cli._setup import (
    EXIT_GRAPH_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_STOPPED,
    LaunchOptions,
    Opened,
    Prepared,
    fail,
    open_session,
    prepare,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from sgdebug.debugger import Outcome, ParsedCommand, SessionView

__all__ = [
    "ctrl_c_listener",
    "execute_script",
    "parse_script",
    "read_script",
    "run_headless",
    "run_script",
]

_BOM = "\ufeff"


class CtrlC:
    """SIGINT while a script runs: remembered, and raised to stop what runs."""

    def __init__(self) -> None:
        self.pressed = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.pressed = True
        raise KeyboardInterrupt


@contextmanager
def ctrl_c_listener() -> Iterator[CtrlC]:
    """Listen for Ctrl-C while the block runs (signals reach the main thread only)."""
    ctrl_c = CtrlC()
    if threading.current_thread() is not threading.main_thread():
        yield ctrl_c
        return
    previous = signal.signal(signal.SIGINT, ctrl_c)
    try:
        yield ctrl_c
    finally:
        signal.signal(signal.SIGINT, previous)


def run_headless(options: LaunchOptions, lines: list[str]) -> int:
    """Load the target and run the script (:func:`run_script`); 130 after Ctrl-C."""
    with ctrl_c_listener() as ctrl_c:
        try:
            status = run_script(prepare(options), lines, ctrl_c)
        except KeyboardInterrupt:
            ctrl_c.pressed = True
    if not ctrl_c.pressed:
        return status
    return _interrupted()


def _interrupted() -> int:
    """Say the script was interrupted; leave now if a node still runs in another thread."""
    import os
    import sys

    print("Interrupted (Ctrl-C): the script stopped there.", file=sys.stderr)
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if any(t.is_alive() and not t.daemon for t in others):  # Python would wait for them
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    return EXIT_INTERRUPTED


def read_script(script: str | None) -> list[str]:
    """The script's lines (from a file, or stdin for ``-`` or when no file is given)."""
    import sys

    if script is None and sys.stdin.isatty():
        fail("give the commands with --script FILE, or pipe them in (--script -)")
    if script is None or script == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(script).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"--script: cannot read {script}: {getattr(exc, 'strerror', None) or exc}")
    return text.removeprefix(_BOM).splitlines()  # editors on Windows start files with one


def run_script(prepared: Prepared, lines: list[str], ctrl_c: CtrlC | None = None) -> int:
    """Run the script's commands on a started session; print each outcome; the exit status.

    Every line is parsed first: a malformed one stops everything before anything runs. A
    command the session refuses (not available now, a bad expression) ends the script.
    After ``ctrl_c`` was pressed, nothing more runs (the caller says so).
    """
    commands = parse_script(lines)
    opened = open_session(prepared)
    try:
        return execute_script(opened, commands, ctrl_c or CtrlC())
    finally:
        if opened.store is not None:
            opened.store.close()


def parse_script(lines: list[str]) -> list[ParsedCommand]:
    """The script's commands; a malformed line stops everything (:func:`fail`)."""
    from sgdebug.debugger import ParseError, parse

    commands, errors = [], []
    for number, line in enumerate(lines, 1):
        if line.strip() and not line.strip().startswith("#"):
            try:
                commands.append(parse(line))
            except ParseError as exc:
                errors.append(f"line {number}: {line.strip()}\n  {exc}")
    if errors:
        fail("the script has errors; nothing was run:\n" + "\n".join(errors))
    return commands


def execute_script(opened: Opened, commands: list[ParsedCommand], ctrl_c: CtrlC) -> int:
    from sgdebug.debugger import execute, start_notes

    show = _printer()
    outcome = opened.started
    show(None, outcome)
    if not outcome.ok:
        fail(f"cannot start the run: {outcome.message}")
    for note in start_notes(opened.session.view()):
        print(note)
    status = outcome.status
    before_quit: SessionView | None = None
    for command in commands:
        if command.spec.name == "quit":
            before_quit = opened.session.view()
        outcome = execute(opened.session, command)
        show(command.line, outcome)
        if ctrl_c.pressed:  # the session caught it inside the node: the script ends anyway
            return EXIT_INTERRUPTED
        if command.spec.name == "quit":
            break
        if outcome.status != "aborted" or status not in _GRAPH_RAISED:
            status = outcome.status  # aborting a run that raised still counts as raised
        if not outcome.ok:
            if status in _GRAPH_RAISED:
                return EXIT_GRAPH_ERROR
            fail(f"`{command.line}` was refused; the script stopped there")
    if status in _GRAPH_RAISED:
        return EXIT_GRAPH_ERROR
    return EXIT_STOPPED if _stopped(before_quit or opened.session.view()) else EXIT_OK


_GRAPH_RAISED = frozenset({"error", "failed"})


def _stopped(view: SessionView) -> bool:
    """The run stands at a breakpoint, or at an ``interrupt()`` waiting for its answer."""
    if view.status == "interrupted":
        return True
    return view.status == "paused" and view.stop is not None and view.stop.kind == "breakpoint"


def _printer() -> Callable[[str | None, Outcome], None]:
    """Prints a command and its outcome: with rich on a terminal, plain text otherwise."""
    from rich.console import Console
    from rich.text import Text

    from sgdebug.debugger import format_outcome

    console = Console(highlight=False)

    def show(line: str | None, outcome: Outcome) -> None:
        if line is not None:
            console.print(Text(f"(sgdebug) {line}", style="bold cyan"), soft_wrap=True)
        stop = outcome.stop.kind if outcome.stop is not None else None
        style = "red" if not outcome.ok or stop in ("exception", "failed") else ""
        style = "yellow" if stop in ("breakpoint", "interrupt") else style
        text = format_outcome(outcome)
        if text:
            console.print(Text(text, style=style), soft_wrap=True)

    return show
