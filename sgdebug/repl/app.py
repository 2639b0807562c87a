"""The loop: read a line, dispatch it, print what happened, until the user quits.

On a terminal the prompt is prompt-toolkit's (completion, history in the user's data
directory, Ctrl+R search, highlighting, multi-line blocks). When standard input is not a
terminal, lines are read plainly and echoed after ``(sgdebug)``, so the REPL works in
pipes without prompt-toolkit.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from sgdebug.debugger import Session
from sgdebug.debugger.render import describe_stop, start_notes
from sgdebug.repl.commands import Dispatcher, is_complete, leave_keys
from sgdebug.repl.python import PythonRunner
from sgdebug.repl.render import Printer

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import History

__all__ = ["EXIT_GRAPH_ERROR", "EXIT_OK", "Repl", "history_path", "launch", "run_repl"]

EXIT_OK = 0
EXIT_GRAPH_ERROR = 1
"""``sgdebug repl`` exits with 1 when the user leaves a run that raised (as ``sgdebug run``)."""
_RAISED = frozenset({"error", "failed"})


def history_path(environ: dict[str, str] | None = None) -> Path:
    """The REPL's history file: ``$XDG_DATA_HOME/sgdebug/repl_history`` (XDG's default
    ``~/.local/share`` when unset or not absolute)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "sgdebug" / "repl_history"


class Repl:
    """One REPL on one session."""

    def __init__(
        self,
        session: Session,
        *,
        input: Any = None,
        output: Any = None,
        console: Console | None = None,
        nested: bool = False,
    ) -> None:
        self.session = session
        self.input = input
        self.output = output
        self.nested = nested
        """Opened from the TUI (``!``): leaving returns there, the session stays open."""
        self.python = PythonRunner(session)
        self.printer = Printer(session, console)
        self.dispatcher = Dispatcher(session, self.printer, self.python, nested=nested)
        self.notes: list[str] = []
        self.prompt: PromptSession[str] | None = None
        """The prompt-toolkit session, once the interactive loop runs."""
        self.entries = 0
        """Entries read at the prompt so far."""

    @property
    def interactive(self) -> bool:
        """prompt-toolkit drives the input (a terminal, or an input given by the caller)."""
        return self.input is not None or sys.stdin.isatty()

    def run(self, *, confirm: bool = False) -> None:
        """Read and run lines until the user quits; ``confirm`` asks before discarding."""
        with self.python.installed():
            self.greet()
            if self.interactive:
                self.prompt_loop(confirm)
            else:
                self.read_lines(sys.stdin)

    def greet(self) -> None:
        """Where the session stands, and how to get help."""
        view = self.session.view()
        if self.interactive:
            self.printer.plain(
                f"sgdebug REPL on {view.label}: commands (`help`), or Python on `state`. "
                f"Tab completes, {leave_keys(self.nested)}.",
                "dim",
            )
        if view.stop is not None:
            self.printer.plain(describe_stop(view.stop), "bold")
        for note in start_notes(view):
            self.printer.plain(note, "yellow")

    # -- plain lines -------------------------------------------------------------------

    def read_lines(self, lines: Iterable[str]) -> None:
        """Run lines from a pipe. A Python block ends with an empty line, the input's end, or
        (as in a file) the next line that is not indented."""
        pending = ""
        try:
            for raw in lines:
                line = raw.rstrip("\r\n")
                if pending and _ends_block(pending, line):
                    if self._run_echoed(pending):
                        return
                    pending = ""
                    if not line.strip():
                        continue
                text = f"{pending}\n{line}" if pending else line
                if not is_complete(text):
                    pending = text
                    continue
                pending = ""
                if self._run_echoed(text):
                    return
            if pending:
                self._run_echoed(pending)
        except KeyboardInterrupt:
            return

    def _run_echoed(self, text: str) -> bool:
        if text.strip():
            self.printer.echo("(sgdebug)", text)
        return self.handle(text)

    def handle(self, text: str) -> bool:
        """Run an entry; the REPL survives Ctrl+C and its own bugs. ``True``: quit."""
        try:
            return self.dispatcher.handle(text)
        except KeyboardInterrupt:
            self.printer.error("Interrupted.")
        except Exception:
            import traceback

            self.printer.plain(traceback.format_exc().rstrip(), "red")
            self.printer.error("sgdebug failed on that entry (a bug: please report it)")
        return False

    # -- prompt-toolkit ----------------------------------------------------------------

    def prompt_loop(self, confirm: bool) -> None:
        """The interactive loop."""
        from sgdebug.repl.prompt import message, toolbar

        self.prompt = prompt = self.prompt_session()
        for note in self.notes:
            self.printer.plain(note, "yellow")
        in_thread = _loop_running()
        while True:
            try:  # the session does not change while the user types: draw its state once
                text = prompt.prompt(
                    message(self.session)(),
                    bottom_toolbar=toolbar(self.session, nested=self.nested)(),
                    in_thread=in_thread,
                )
            except KeyboardInterrupt:
                continue
            except EOFError:
                if not confirm or self.confirm_quit(in_thread):
                    return
                continue
            finally:
                self.entries += 1
            if self.handle(text) and (not confirm or self.confirm_quit(in_thread)):
                return

    def prompt_session(self) -> PromptSession[str]:
        """The prompt: completion, history, search, highlighting, multi-line blocks."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.shortcuts import CompleteStyle

        from sgdebug.repl import prompt
        from sgdebug.repl.completer import repl_completer
        from sgdebug.repl.key_bindings import load_repl_bindings

        return PromptSession(
            message=prompt.message(self.session),
            history=self.history(),
            completer=repl_completer(self.session, self.python),
            lexer=prompt.ReplLexer(),
            style=prompt.STYLE,
            key_bindings=load_repl_bindings(),
            multiline=True,
            prompt_continuation=prompt.continuation,
            bottom_toolbar=prompt.toolbar(self.session, nested=self.nested),
            complete_style=CompleteStyle.COLUMN,
            auto_suggest=AutoSuggestFromHistory(),
            search_ignore_case=True,
            input=self.input,
            output=self.output,
        )

    def history(self) -> History:
        """The persistent history file (in memory, with a note, when it cannot be used)."""
        from prompt_toolkit.history import FileHistory, InMemoryHistory

        path = history_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch(exist_ok=True)
        except OSError as exc:
            self.notes.append(f"note: history is not saved ({path}: {exc.strerror or exc})")
            return InMemoryHistory()
        return FileHistory(str(path))

    def confirm_quit(self, in_thread: bool = False) -> bool:
        """Whether to quit: asks when the session's history would be lost."""
        session = self.session
        if session.store is not None or not session.started:
            return True
        from prompt_toolkit import PromptSession

        question = PromptSession[str](input=self.input, output=self.output)
        try:
            answer = question.prompt(
                "This session is not saved (`sgdebug repl --session FILE` keeps one). "
                "Quit and discard its history? [y/N] ",
                in_thread=in_thread,
            )
        except EOFError:
            return True
        except KeyboardInterrupt:
            return False
        return answer.strip().lower() in ("y", "yes")


_CONTINUES_BLOCK = re.compile(r"(else|elif|except|finally)\b")


def _ends_block(block: str, line: str) -> bool:
    """Whether ``line`` ends the pending Python ``block`` instead of continuing it."""
    if not line.strip():
        return True
    if line[0].isspace() or _CONTINUES_BLOCK.match(line):
        return False
    return is_complete(block + "\n")


def _loop_running() -> bool:
    """Whether an asyncio loop runs in this thread (a TUI suspended into the REPL)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_repl(session: Session, *, input: Any = None, output: Any = None) -> None:
    """The REPL until the user leaves it; the session stays open (for the TUI's ``!``)."""
    Repl(session, input=input, output=output, nested=True).run(confirm=False)


def launch(session: Session) -> int:
    """``sgdebug repl``: the REPL, then the session closed; the exit status."""
    repl = Repl(session)
    repl.run(confirm=repl.interactive)
    status = session.status
    session.quit()
    return EXIT_GRAPH_ERROR if status in _RAISED else EXIT_OK
