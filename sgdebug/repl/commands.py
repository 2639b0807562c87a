"""Dispatch: what a line is (a command, Python, nothing) and running it.

A line whose first word is a command name or alias is a command of the debugger's registry
(``sgdebug.debugger.COMMANDS``), unless what follows is an assignment (``p = 3`` is
Python). Anything else is Python, and ``!`` forces Python (``!c`` reads the variable
``c``). Commands that move the run listen for Ctrl+C: the first press asks the session to
pause at the next superstep boundary, a second one interrupts the node that is running.
"""

from __future__ import annotations

import codeop
import difflib
import re
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Final, Literal

from sgdebug.debugger import COMMANDS, ParseError, Session, execute, help_text, parse
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer

__all__ = [
    "COMMAND_WORDS",
    "MOVING",
    "Dispatcher",
    "Line",
    "classify",
    "is_complete",
    "pause_on_interrupt",
    "repl_help",
]

COMMAND_WORDS: Final = frozenset(word for spec in COMMANDS for word in spec.words)
"""Every command name and alias."""
MOVING: Final = frozenset({"step", "task", "continue", "until", "retry", "resume", "restart"})
"""Commands that run user code (Ctrl+C pauses them)."""
_ASSIGNMENT = re.compile(r"\s*(?:=(?!=)|(?:\*\*|//|>>|<<|[-+*/%&|^@])=|:[^=])")
_FIRST_WORD = re.compile(r"\S+")
_NESTED_HELP: Final = (
    (re.compile(r"^(  quit +|)Quit the debugger\.$", re.M), r"\1Return to the TUI."),
    (re.compile(r"^Ends the session\.$", re.M), "Opened from the TUI, the REPL returns there "
     "and the session stays open (quit the TUI with q to end it)."),
)  # fmt: skip
"""What the help says of ``quit`` in a REPL opened from the TUI."""

Kind = Literal["empty", "command", "python"]


@dataclass(frozen=True, slots=True)
class Line:
    """A line (or block) read at the prompt, and what it is."""

    kind: Kind
    text: str
    """The command line, or the Python source (without a leading ``!``)."""


def classify(text: str) -> Line:
    """Whether ``text`` is a command, Python or nothing."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return Line("empty", "")
    if stripped.startswith("!"):
        return Line("python", text.lstrip()[1:].strip("\n"))
    match = _FIRST_WORD.match(stripped)
    assert match is not None
    word, rest = match.group(), stripped[match.end() :]
    if word in COMMAND_WORDS and "\n" not in stripped and not _ASSIGNMENT.match(rest):
        return Line("command", stripped)
    return Line("python", text.strip("\n"))


def is_complete(text: str) -> bool:
    """Whether Enter should run ``text`` (a command, complete Python) or add a line."""
    line = classify(text)
    if line.kind != "python":
        return True
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1].strip():
        return True  # an empty line ends a block
    try:
        code = codeop.compile_command(line.text, "<sgdebug>", "single")
    except (SyntaxError, ValueError, OverflowError):
        return True  # run it, so the error shows
    return code is not None


def leave_keys(nested: bool) -> str:
    """How to leave the REPL: quit, or (opened from the TUI) go back to it."""
    return "Ctrl+D or `quit` returns to the TUI" if nested else "Ctrl+D quits"


def repl_help(*, nested: bool = False) -> str:
    """What the REPL adds to the command language (``nested``: opened from the TUI)."""
    return (
        "Python: any line that is not a command runs as Python with state, snapshot, tasks,\n"
        "  graph, store (the graph's compile(store=), if any), interrupts, error, session,\n"
        "  the channels by name and the graph module's globals; `!` forces Python\n"
        "  (`!c = 1`). Assigning to state[KEY] (or changing a value in it) edits the run,\n"
        "  as `set` does. Blocks (`for`, `def`, ...) end with an empty line.\n"
        "Keys: Tab completes, Ctrl+R searches the history, Ctrl+C pauses a running\n"
        f"  command at the next superstep (twice: interrupts the node), {leave_keys(nested)}."
    )


@contextmanager
def pause_on_interrupt(session: Session) -> Iterator[None]:
    """While a command runs: Ctrl+C asks for a pause; a second Ctrl+C interrupts the node.

    Only the main thread receives signals; elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    presses = 0

    def on_interrupt(signum: int, frame: FrameType | None) -> None:
        nonlocal presses
        presses += 1
        if presses > 1:
            raise KeyboardInterrupt
        session.request_pause()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class Dispatcher:
    """Runs lines on a session and prints what happened."""

    def __init__(
        self, session: Session, printer: Printer, python: PythonRunner, *, nested: bool = False
    ) -> None:
        self.session = session
        self.printer = printer
        self.python = python
        self.nested = nested
        """Opened from the TUI: ``quit`` goes back to it (help says so)."""

    def handle(self, text: str) -> bool:
        """Run one line (or block); ``True`` when the user asked to quit."""
        line = classify(text)
        if line.kind == "command":
            return self.command(line.text)
        if line.kind == "python":
            return self.run_python(line.text)
        return False

    def command(self, text: str) -> bool:
        """Run a command line of the registry; ``True`` for ``quit``."""
        try:
            parsed = parse(text)
        except ParseError as exc:
            self.printer.error(str(exc))
            return False
        name = parsed.spec.name
        if name == "quit":
            return True
        if name == "help":
            return self._help(parsed.args.get("command"))
        if name in MOVING:
            with self.printer.running(name), pause_on_interrupt(self.session):
                outcome = execute(self.session, parsed)
        else:
            outcome = execute(self.session, parsed)
        self.printer.outcome(outcome)
        return False

    def _help(self, command: str | None) -> bool:
        try:
            text = help_text(command, self.session)
        except ParseError as exc:
            self.printer.error(str(exc))
            return False
        if self.nested:
            for pattern, replacement in _NESTED_HELP:
                text = pattern.sub(replacement, text)
        self.printer.plain(text if command else f"{text}\n\n{repl_help(nested=self.nested)}")
        return False

    def run_python(self, source: str) -> bool:
        """Run Python; print its value, its error, or the edit it made."""
        if not source.strip():
            return False
        result = self.python.run(source)
        if result.quit:
            return True
        if result.error is not None:
            self.printer.plain(result.error, "red")
            hint = _command_hint(source) if "NameError" in result.error else None
            if hint:
                self.printer.plain(hint, "yellow")
        elif result.shown:
            self.printer.value(result.value)
        for note in result.notes:
            self.printer.plain(note, "yellow")
        if result.edit is not None:
            self.printer.outcome(result.edit)
        return False


def _command_hint(source: str) -> str | None:
    """``did you mean the command 'continue'?`` for a mistyped command word."""
    word = source.strip().split(maxsplit=1)[0] if source.strip() else ""
    if not word.isidentifier():
        return None
    close = difflib.get_close_matches(word, sorted(COMMAND_WORDS), n=1, cutoff=0.75)
    if not close:
        return None
    return f"(not a command either: did you mean {close[0]!r}? `help` lists the commands)"
