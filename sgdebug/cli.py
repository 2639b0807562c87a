"""The ``sgdebug`` command line.

Only ``--help`` and ``--version`` exist so far. This module imports typer and
the package root, nothing else: the front ends and the runtime are imported
lazily by the commands that need them, so ``sgdebug --help`` stays instant.
"""

from __future__ import annotations

from typing import Annotated

import typer

from sgdebug import __version__

app = typer.Typer(
    name="sgdebug",
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    """Print the version and exit, when ``--version`` is given."""
    if value:
        typer.echo(f"sgdebug {__version__}")
        raise typer.Exit()


@app.command(no_args_is_help=True)
def sgdebug(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Show the version and exit.",
        ),
    ] = False,
) -> None:
    """A debugger, REPL and fast LangGraph-compatible runtime for StateGraph programs."""


def main() -> None:
    """Run the command line (the ``sgdebug`` console script)."""
    app(prog_name="sgdebug")
