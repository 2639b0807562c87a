"""The ``sgdebug`` command line.

::

    sgdebug TARGET [OPTIONS]                 open the debugger (TUI) on a graph
    sgdebug repl TARGET [OPTIONS]            the REPL
    sgdebug run TARGET --script FILE|- ...   debugger commands from a file or stdin, headless
    sgdebug graph TARGET [--format text|mermaid]
    sgdebug demo [NAME] [--list]             the debugger on a bundled sample graph

``TARGET`` is ``package.module:attr`` or ``path/to/file.py:attr``. ``sgdebug TARGET`` is
the ``open`` command: a first argument that is not a command name is a target (a target
always has a colon, a command name never does).

Exit status: 0 when the run ended normally, 1 when the graph raised, 2 for usage and
loading errors; ``run`` also exits 3 when its script ends with the run stopped at a
breakpoint or an ``interrupt()``, and 130 after Ctrl-C; the TUI exits 128 + the signal's
number after SIGTERM or SIGHUP.

Front ends plug in through their package: ``sgdebug.tui`` (and ``sgdebug.repl``) defines
``launch(session) -> int``, given the ready :class:`~sgdebug.debugger.Session`, returning
the exit status. Until a package defines it, the command says the front end is not
available. This package imports typer, the package root and its own modules only:
everything else is imported inside the commands, so ``sgdebug --help`` stays instant.

``_app`` holds the typer application and its commands, ``_setup`` turns options into a
started session, ``_front_ends`` hands it to the TUI or the REPL, ``_headless`` runs
``sgdebug run`` scripts. ``_argv`` reads a plain ``open`` or ``demo`` command line without
typer (which costs the first screen much), so :data:`app` is imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sgdebug.cli._main import main
from sgdebug.cli._setup import EXIT_GRAPH_ERROR, EXIT_OK, EXIT_USAGE, LaunchOptions

if TYPE_CHECKING:
    from sgdebug.cli._app import app

__all__ = ["EXIT_GRAPH_ERROR", "EXIT_OK", "EXIT_USAGE", "LaunchOptions", "app", "main"]


def __getattr__(name: str) -> object:
    """:data:`app`, the typer application, imported on first use."""
    if name == "app":
        from sgdebug.cli._app import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
