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


def launch(
    session: Session,
    *,
    repl: Callable[[Session], object] | None = None,
    ready: Callable[[], object] | None = None,
) -> int:
    """Run the TUI on ``session`` until the user quits; the exit status.

    ``ready`` is called once the first screen is drawn (the command line resumes there
    what it put off while starting).

    0 when the run ended normally, 1 when the graph raised; 2 (and a message) without a
    terminal to draw on; 128 + the signal's number after SIGTERM or SIGHUP (143, 129).
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
    if ready is not None:
        app.first_screen_hook = ready
    status = _run(app)
    code = app.return_code or (status if isinstance(status, int) else 0)
    _leave_if_stuck(app, code)
    return code


def _run(app: DebuggerApp) -> object:
    """Run the app on a loop of its own: unlike ``asyncio.run``, closing it does not wait
    for the engine thread (a node that never stops would keep the process forever)."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        return app.run(loop=loop)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def _leave_if_stuck(app: DebuggerApp, code: int) -> None:
    """Exit the process now when a node is still running (it did not stop when asked):
    Python would wait for its thread at exit. The terminal was given back already."""
    import os

    from sgdebug.tui.stopping import QUIT_GRACE_S

    if app.stopper.wait_idle(0 if app.engine_left_running else QUIT_GRACE_S):
        return
    print("sgdebug: a node did not stop when interrupted; exiting without it.", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
