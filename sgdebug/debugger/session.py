"""The session: the one controller both front ends and headless scripts drive.

``Session(target, *, input, saver, store, breakpoints, options)`` debugs one graph
(a :class:`Target`, a loaded target, or a compiled graph). Nothing runs until ``restart``.
Its verbs have the names of the commands and each returns an
:class:`~sgdebug.debugger.results.Outcome`; none raises because user code, an expression or
an edit went wrong:

* runs: ``restart(input)`` (alias ``start``), ``attach(thread_id)`` (reopen), ``quit()``;
* moving: ``step(n)``, ``task(node)``, ``continue_()``, ``until(node)``, ``retry()``,
  ``abort()``, ``resume(expr)``, ``goto(ref)``;
* edits: ``set(key, expr)``, ``set_value(key, value)``, ``set_values(values)``,
  ``update(expr, as_node)``;
* looking: ``state()``, ``tasks()``, ``print(expr)``, ``history()``, ``show(ref)``,
  ``diff(a, b)``, ``graph()``, ``view()``;
* breakpoints: ``break_(when, node, cond)``, ``tbreak(...)``, ``watch(channel, cond)``,
  ``delete(n)``, ``enable(n)``, ``disable(n)``, ``breaks()``.

``why_not(verb)`` says why a verb cannot run now. Observers ``subscribe`` to
:mod:`~sgdebug.debugger.events`; ``request_pause()`` may be called from any thread.

The user's graph is compiled again with the session's checkpointer (an ``InMemorySaver``
unless a saver is given, e.g. a ``SqliteSaver`` for a session file); its compile-time
``interrupt_before``/``interrupt_after`` become breakpoints, shown and honoured with
LangGraph's whole-superstep semantics.
"""

from __future__ import annotations

from sgdebug.debugger.edits import EditVerbs
from sgdebug.debugger.motion import UNSET
from sgdebug.debugger.queries import QueryVerbs
from sgdebug.debugger.target import (
    LoadedTargetLike,
    SessionOptions,
    SessionStore,
    Target,
    as_target,
)

__all__ = [
    "UNSET",
    "LoadedTargetLike",
    "Session",
    "SessionOptions",
    "SessionStore",
    "Target",
    "as_target",
]


class Session(EditVerbs, QueryVerbs):
    """Debugs one graph: runs, breakpoints, edits, history. Thread-safe; one verb at a time."""
