"""A ``langgraph`` import alias: LangGraph programs run unchanged on ``sgdebug.runtime``.

::

    from sgdebug import compat

    with compat.alias():
        import my_app  # its `from langgraph.graph import StateGraph` gets sgdebug's

While installed, a finder at the front of ``sys.meta_path`` serves ``langgraph`` and its
public modules (``graph``, ``graph.message``, ``graph.state``, ``types``, ``errors``,
``constants``, ``channels`` and its channel modules, ``managed``, ``checkpoint.memory``,
``config``, ``runtime``) as alias modules built from ``sgdebug.runtime``. What LangGraph has
and sgdebug does not is one sentence naming it:

* a module the alias does not serve (``langgraph.prebuilt``, ``langgraph.func``, ...) is a
  :class:`ModuleNotProvidedError` (a ``ModuleNotFoundError``); real LangGraph is never
  reached while the alias is installed;
* a LangGraph name missing from an alias module is a :class:`NameNotProvidedError` (an
  ``AttributeError``). ``from langgraph.x import y`` of such a name surfaces as Python's
  "cannot import name" ``ImportError`` (Python replaces the module's message);
  :func:`explain` turns it back into the sentence.

:func:`install` takes a real ``langgraph`` already imported out of ``sys.modules``, and
:func:`uninstall` puts it back exactly, so both can live in one process. Modules imported
under the alias keep the alias's objects after it is uninstalled.

This package never imports the real ``langgraph``.
"""

from __future__ import annotations

from sgdebug.compat._finder import (
    AliasFinder,
    ModuleNotProvidedError,
    NameNotProvidedError,
    explain,
)
from sgdebug.compat._install import alias, install, installed, uninstall
from sgdebug.compat._table import ALIASES, AliasModule, not_provided

__all__ = [
    "ALIASES",
    "AliasFinder",
    "AliasModule",
    "ModuleNotProvidedError",
    "NameNotProvidedError",
    "alias",
    "explain",
    "install",
    "installed",
    "not_provided",
    "uninstall",
]
