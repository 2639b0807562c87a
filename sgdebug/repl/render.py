"""Printing outcomes and Python values: rich on a terminal, plain text otherwise.

Plain text is exactly what ``sgdebug run`` prints (the debugger's ``format_outcome``), so a
REPL fed from a pipe gives output a script can read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, RenderableType
from rich.text import Text

from sgdebug.debugger import (
    GraphSummary,
    Outcome,
    Session,
    Stepped,
    format_outcome,
)
from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.render import format_value
from sgdebug.inspect import SnapshotDiff
from sgdebug.repl import views
from sgdebug.runtime import StateSnapshot

__all__ = ["Printer"]

_STOP_STYLE = {
    "breakpoint": "bold yellow",
    "interrupt": "bold magenta",
    "exception": "bold red",
    "failed": "bold red",
    "done": "bold green",
    "pause": "yellow",
}


class Printer:
    """Shows what commands and Python lines did, on one console."""

    def __init__(
        self, session: Session, console: Console | None = None, *, rich: bool | None = None
    ) -> None:
        self.session = session
        self.console = console or Console(highlight=False)
        self.rich = self.console.is_terminal if rich is None else rich
        """Draw tables, trees and colours (a terminal); else plain text like ``sgdebug run``."""

    # -- lines -------------------------------------------------------------------------

    def echo(self, prompt: str, line: str) -> None:
        """Repeat a line read from a pipe after its prompt, so the output reads like a log."""
        for number, text in enumerate(line.splitlines() or [""]):
            lead = prompt if number == 0 else "..."
            self.plain(f"{lead} {text}".rstrip())

    def plain(self, text: str, style: str = "") -> None:
        """One or more lines of text, never interpreted as markup."""
        self.console.print(Text(text, style=style if self.rich else ""), soft_wrap=True)

    def error(self, text: str) -> None:
        """A refusal or a parse error."""
        self.plain(text if text.startswith("***") else f"*** {text}", "red")

    def show(self, renderable: RenderableType) -> None:
        self.console.print(renderable)

    # -- results -----------------------------------------------------------------------

    def value(self, value: Any) -> None:
        """A Python value: rich's pretty printer, or ``pprint`` text."""
        if self.rich:
            self.show(views.pretty(value))
        else:
            self.plain(format_value(value))

    def outcome(self, outcome: Outcome) -> None:
        """What a verb did."""
        if not self.rich:
            text = format_outcome(outcome)
            if text:
                self.plain(text)
            return
        if not outcome.ok:
            self.error(outcome.message)
            self._notes(outcome.notes)
            return
        for line in outcome.ran:  # what ran, then how the verb ended
            self.plain(line, "dim")
        body = self._body(outcome)
        if outcome.message and outcome.command != "show":  # ``show`` titles its snapshot
            kind = outcome.stop.kind if outcome.stop is not None else ""
            self.plain(outcome.message, _STOP_STYLE.get(kind, "bold" if body is None else ""))
        if body is not None:
            self.show(body)
        changes = views.changes_view(self.session, outcome.commits)
        if changes is not None:  # what ran before the stop, then why it stopped
            self.show(changes)
        error = outcome.stop.error if outcome.stop is not None else None
        if error is not None and error.traceback:
            self.plain(error.traceback.rstrip(), "red")
        self._pending(outcome)
        self._notes(outcome.notes)

    def _body(self, outcome: Outcome) -> RenderableType | None:
        value, command, session = outcome.value, outcome.command, self.session
        if isinstance(value, SnapshotDiff):
            return views.diff_view(value)
        if isinstance(value, GraphSummary):
            return views.graph_view(session, value, self.console.width)
        if isinstance(value, StateSnapshot):
            return views.snapshot_view(session, value, outcome.message or "snapshot")
        if command == "state":  # marked as the TUI's channel table marks them
            rows = current_frame(session).channels
            changed = [r.name for r in rows if r.changed]
            in_place = {r.name: r.in_place for r in rows if r.in_place is not None}
            return views.state_table(
                session, value, changed, in_place=in_place, whole=outcome.whole
            )
        if command == "tasks":
            return views.tasks_table(value, session.view().step)
        if command == "breaks":
            return views.breakpoints_table(value)
        if command == "history":
            return views.history_view(session, value)
        if command == "print":
            return views.pretty(value, whole=outcome.whole)
        if command == "help" and isinstance(value, str):
            return Text(value)
        return None

    def _pending(self, outcome: Outcome) -> None:
        if outcome.stop is None or outcome.status not in ("paused", "error"):
            return
        view = self.session.view()
        waiting = [t.name for t in view.tasks if t.state == "pending"]
        if waiting:
            self.plain(f"next: {', '.join(waiting)} (step {view.step})", "dim")

    def _notes(self, notes: tuple[str, ...]) -> None:
        for note in notes:
            self.plain(note, "yellow")

    # -- long commands -----------------------------------------------------------------

    @contextmanager
    def running(self, command: str) -> Iterator[None]:
        """While a command moves the run: a spinner with the step reached (terminal only)."""
        if not self.rich:
            yield
            return
        hint = "Ctrl+C pauses at the next superstep"
        with self.console.status(f"{command}… {hint}", spinner="dots") as status:

            def progress(event: object) -> None:
                if isinstance(event, Stepped):
                    status.update(f"{command}… step {event.record.step} committed; {hint}")

            unsubscribe = self.session.subscribe(progress)
            try:
                yield
            finally:
                unsubscribe()
