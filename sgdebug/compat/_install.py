"""Putting the alias finder in place and taking it away, real ``langgraph`` set aside."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType

from sgdebug.compat._finder import AliasFinder
from sgdebug.compat._table import is_langgraph

__all__ = ["alias", "install", "installed", "uninstall"]


@dataclass(frozen=True, slots=True)
class _Installation:
    """What :func:`install` did, for :func:`uninstall` to undo."""

    finder: AliasFinder
    """The finder put at the front of ``sys.meta_path``."""
    saved: tuple[tuple[str, ModuleType], ...]
    """The ``langgraph`` modules that were in ``sys.modules`` (real LangGraph), by name."""


_current: list[_Installation] = []
"""The installation in effect (none or one)."""


def installed() -> bool:
    """Whether the alias is installed."""
    return bool(_current)


def install() -> None:
    """Serve ``langgraph`` imports from ``sgdebug.runtime`` (nothing happens if it already is).

    ``langgraph`` modules already imported (real LangGraph) leave ``sys.modules`` until
    :func:`uninstall`; objects taken from them earlier stay what they are.
    """
    if _current:
        return
    saved = tuple((name, mod) for name, mod in list(sys.modules.items()) if is_langgraph(name))
    for name, _ in saved:
        del sys.modules[name]
    finder = AliasFinder()
    sys.meta_path.insert(0, finder)
    _current.append(_Installation(finder, saved))


def uninstall() -> None:
    """Remove the finder and the alias modules, and put back the ``langgraph`` modules that
    :func:`install` set aside (nothing happens if the alias is not installed)."""
    if not _current:
        return
    installation = _current.pop()
    if installation.finder in sys.meta_path:
        sys.meta_path.remove(installation.finder)
    for name in [name for name in sys.modules if is_langgraph(name)]:
        del sys.modules[name]
    sys.modules.update(installation.saved)


@contextmanager
def alias() -> Iterator[None]:
    """The alias installed for the ``with`` block (left as it was found when it ends)."""
    if installed():
        yield
        return
    install()
    try:
        yield
    finally:
        uninstall()
