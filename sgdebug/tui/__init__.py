"""The textual front end: widgets, screens and ``.tcss`` styles.

Views only: every action is a ``sgdebug.debugger`` verb and everything shown is
``sgdebug.inspect`` data. No graph logic lives here.

:func:`launch` is what ``sgdebug TARGET`` and ``sgdebug demo`` call with a ready session;
:func:`make_app` builds the app (tests and benchmarks use it too). Textual is imported only
when one of them is called, so importing this package stays cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.debugger import Session
    from sgdebug.tui.app import DebuggerApp

__all__ = ["launch", "make_app"]

EXIT_USAGE = 2


def make_app(
    session: Session,
    *,
    repl: Callable[[Session], object] | None = None,
    keymap: Mapping[str, str] | None = None,
) -> DebuggerApp:
    """The debugger app on a started ``session``.

    ``repl`` runs the REPL on the session (``!`` suspends the TUI into it); ``keymap``
    remaps keys by binding id, which is the command's name (``{"step": "n"}``).
    """
    from sgdebug.tui.app import DebuggerApp

    app = DebuggerApp(session, repl=repl)
    if keymap:
        app.set_keymap(dict(keymap))
    return app


def launch(session: Session, *, repl: Callable[[Session], object] | None = None) -> int:
    """Run the TUI on ``session`` until the user quits; the exit status.

    0 when the run ended normally, 1 when the graph raised; 2 (and a message) without a
    terminal to draw on.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(
            "Error: the TUI is not available without a terminal (stdin or stdout is not "
            f"one). Run debugger commands headless instead: sgdebug run {session.label} "
            "--script FILE (or --script - to read stdin)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    app = make_app(session, repl=repl)
    status = app.run()
    return app.return_code or (status if isinstance(status, int) else 0)
