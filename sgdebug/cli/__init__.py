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
started session, ``_headless`` runs ``sgdebug run`` scripts.
"""

from __future__ import annotations

from sgdebug.cli._app import app, main
from sgdebug.cli._setup import EXIT_GRAPH_ERROR, EXIT_OK, EXIT_USAGE, LaunchOptions

__all__ = ["EXIT_GRAPH_ERROR", "EXIT_OK", "EXIT_USAGE", "LaunchOptions", "app", "main"]
