"""``sgdebug run``: debugger commands from a script or stdin, run headless, printed with rich."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sgdebug.cli._setup import EXIT_GRAPH_ERROR, EXIT_OK, Opened, Prepared, fail, open_session

if TYPE_CHECKING:
    from collections.abc import Callable

    from sgdebug.debugger import Outcome, ParsedCommand

__all__ = ["read_script", "run_script"]


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
    return text.splitlines()


def run_script(prepared: Prepared, lines: list[str]) -> int:
    """Run the script's commands on a started session; print each outcome; the exit status.

    Every line is parsed first: a malformed one stops everything before anything runs. A
    command the session refuses (not available now, a bad expression) ends the script.
    """
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
    opened = open_session(prepared)
    try:
        return _execute(opened, commands)
    finally:
        if opened.store is not None:
            opened.store.close()


def _execute(opened: Opened, commands: list[ParsedCommand]) -> int:
    from sgdebug.debugger import execute, start_notes

    show = _printer()
    outcome = opened.started
    show(None, outcome)
    if not outcome.ok:
        fail(f"cannot start the run: {outcome.message}")
    for note in start_notes(opened.session.view()):
        print(note)
    status = outcome.status
    for command in commands:
        outcome = execute(opened.session, command)
        show(command.line, outcome)
        if command.spec.name == "quit":
            break
        if outcome.status != "aborted" or status not in _GRAPH_RAISED:
            status = outcome.status  # aborting a run that raised still counts as raised
        if not outcome.ok:
            if status in _GRAPH_RAISED:
                return EXIT_GRAPH_ERROR
            fail(f"`{command.line}` was refused; the script stopped there")
    return EXIT_GRAPH_ERROR if status in _GRAPH_RAISED else EXIT_OK


_GRAPH_RAISED = frozenset({"error", "failed"})


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
