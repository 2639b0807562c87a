"""The prompt-toolkit front end: a ``(sgdebug)`` prompt over a debugger session.

Views only: commands are parsed and run by ``sgdebug.debugger``, view data comes from
``sgdebug.inspect``; this package reads lines, completes them, runs Python typed at the
prompt and prints what happened. It is split like ptpython's:

* :mod:`~sgdebug.repl.commands`: what a line is and its dispatch (commands, Python, quit);
* :mod:`~sgdebug.repl.python`: Python at the prompt, and ``state[...]`` edits;
* :mod:`~sgdebug.repl.completer`: a ``NestedCompleter`` fed by the registry's callables;
* :mod:`~sgdebug.repl.key_bindings`: ``load_*_bindings()`` gated by ``Condition`` s;
* :mod:`~sgdebug.repl.render` / :mod:`~sgdebug.repl.views`: output, with rich on a terminal;
* :mod:`~sgdebug.repl.app`: the loop (prompt-toolkit, or plain lines from a pipe).

Importing this package is cheap: prompt_toolkit and rich load when a REPL starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.debugger import Session

__all__ = ["launch", "run_repl"]


def run_repl(session: Session, *, input: Any = None, output: Any = None) -> None:
    """Run the REPL on ``session`` until the user quits it; the session stays open.

    For a front end that suspends into the REPL (the TUI's ``!``). ``input`` and
    ``output`` are prompt-toolkit ``Input``/``Output`` objects (default: the terminal);
    when standard input is not a terminal and no ``input`` is given, lines are read plainly.
    """
    from sgdebug.repl.app import run_repl as run

    run(session, input=input, output=output)


def launch(session: Session) -> int:
    """The ``sgdebug repl`` entry: the REPL, then close the session; the exit status.

    Quitting asks first when the session's history is not saved to a session file.
    """
    from sgdebug.repl.app import launch as run

    return run(session)
