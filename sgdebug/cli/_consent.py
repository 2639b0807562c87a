"""Asking before a session file's target is imported: a session file is untrusted input.

Reopening ``--session FILE`` without TARGET would import and run the program the file
names. The user consents by giving TARGET on the command line, by ``--trust``, or by
answering the question this module asks on a terminal; without a terminal (a script, CI)
and without either, the file is refused. Breakpoint conditions from the file need their
own consent (``enable N`` or ``--trust``), given in :func:`sgdebug.debugger.breakpoints.restore`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sgdebug.debugger.session_file import SessionRecord

__all__ = ["confirm_target", "is_empty_file", "no_session_message"]


def confirm_target(path: Path, record: SessionRecord, *, trusted: bool) -> None:
    """Return once the user agrees to import ``record.target``; otherwise
    :func:`~sgdebug.cli._setup.fail` (exit status 2)."""
    from sgdebug.cli._setup import fail, say

    if trusted:
        return
    if not sys.stdin.isatty():
        fail(
            f"{path} debugs {record.target} (from {record.cwd}): opening it imports and runs "
            f"that program, and there is no terminal to ask if you want that. Give TARGET to "
            f"confirm it (sgdebug run {record.target} --session {path}), or pass --trust"
        )
    question = f"Open {path}: it debugs {record.target} (from {record.cwd}). Import and run it?"
    say(f"{question} [y/N] ", end="")
    try:
        answer = sys.stdin.readline()
    except (OSError, KeyboardInterrupt):
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        fail(f"{path} was not opened (nothing was imported); it was left as it was")


def is_empty_file(path: Path) -> bool:
    """Whether ``path`` is a file of 0 bytes (and no SQLite write-ahead log holds data for it)."""
    wal = path.with_name(f"{path.name}-wal")
    try:
        return path.is_file() and path.stat().st_size == 0 and not _has_data(wal)
    except OSError:
        return False


def no_session_message(path: Path) -> str:
    """Why ``--session path`` without TARGET names no graph."""
    if is_empty_file(path):
        return (
            f"missing TARGET: {path} is an empty file (0 bytes), so it holds no session and "
            f"names no graph; give TARGET to start a session in it"
        )
    if path.exists():
        return (
            f"missing TARGET: {path} holds no saved session yet, so it names no graph; give "
            f"TARGET to start one in it"
        )
    return f"missing TARGET: {path} does not exist yet, so it names no graph"


def _has_data(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 0
