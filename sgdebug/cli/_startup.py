"""Start-up without the cyclic garbage collector, until a front end takes over.

Starting (the imports, the command line, the graph, the session, the first screen)
allocates much and frees little, so the collector's passes then are wasted work: on
``sgdebug demo chatbot`` they were 150-250 ms of the ~500 ms of CPU before the first screen
(226 passes), more than importing Textual costs. :func:`pause_collector` is the first thing
the command line does; :func:`resume_collector` runs when a front end takes over (the TUI
once its first screen is drawn, the REPL before its first prompt, a script before its
first command), before any node of the user's graph runs.

Resuming freezes what start-up made (modules, classes, the session: they live as long as
the process), as :func:`gc.freeze` is meant for, so no later pass walks it again. The
garbage start-up left (about 15,000 small objects, 2 MB, on the chatbot demo) stays.
"""

from __future__ import annotations

import gc

__all__ = ["pause_collector", "resume_collector"]

_paused: list[bool] = []
"""Holds ``True`` while the collector is paused here (a resume undoes only this pause)."""


def pause_collector() -> None:
    """Pause the cyclic garbage collector while sgdebug starts (no-op if it is off)."""
    if gc.isenabled() and not _paused:
        gc.disable()
        _paused.append(True)


def resume_collector() -> None:
    """Resume the collector :func:`pause_collector` paused, start-up's objects frozen."""
    if _paused:
        _paused.clear()
        gc.freeze()
        gc.enable()
