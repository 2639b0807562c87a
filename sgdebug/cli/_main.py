"""The ``sgdebug`` console script: a plain ``open`` or ``demo`` command line goes straight
to the TUI (:mod:`sgdebug.cli._argv`), everything else through the typer application."""

from __future__ import annotations

import sys

from sgdebug.cli._startup import pause_collector

__all__ = ["main"]


def main() -> None:
    """Run the command line (the ``sgdebug`` console script)."""
    pause_collector()  # until a front end takes over: see sgdebug.cli._startup
    _tolerate_any_encoding()
    from sgdebug.cli._argv import direct_command

    command = direct_command(sys.argv[1:])
    if command is not None:
        sys.exit(command())
    from sgdebug.cli._app import app

    app(prog_name="sgdebug")


def _tolerate_any_encoding() -> None:
    """Under a locale that cannot encode what a graph prints (``LC_ALL=C`` without UTF-8
    mode), print ``\\xe9`` for ``é`` instead of dying on ``UnicodeEncodeError``."""
    import io

    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors in ("strict", "surrogateescape"):
            stream.reconfigure(errors="backslashreplace")
