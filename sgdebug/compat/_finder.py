"""The meta-path finder and loader that serve ``langgraph`` modules from sgdebug, and the
errors they raise for what they do not serve."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import re
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any, Final

from sgdebug.compat._table import ALIASES, AliasModule, is_langgraph, not_provided

__all__ = ["AliasFinder", "ModuleNotProvidedError", "NameNotProvidedError", "explain"]

ORIGIN: Final = "sgdebug.compat alias"
"""What an alias module's repr shows where a real module shows its file."""
_CANNOT_IMPORT: Final = re.compile(r"cannot import name '(?P<name>[^']+)' from ")


class ModuleNotProvidedError(ModuleNotFoundError):
    """``import langgraph.x`` for a LangGraph module the alias does not serve."""

    def __init__(self, module: str) -> None:
        super().__init__(not_provided(module), name=module)


class NameNotProvidedError(AttributeError):
    """``langgraph.x.y`` for a name LangGraph has there and the alias does not serve."""

    def __init__(self, module: str, name: str) -> None:
        super().__init__(not_provided(f"{module}.{name}"), name=name)


class AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves every ``langgraph`` module: from :data:`ALIASES`, or a
    :class:`ModuleNotProvidedError` (real LangGraph is never reached past it)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        """The spec of alias module ``fullname``; ``None`` for modules outside ``langgraph``."""
        if not is_langgraph(fullname):
            return None
        alias = ALIASES.get(fullname)
        if alias is None:
            raise ModuleNotProvidedError(fullname)
        return importlib.util.spec_from_loader(
            fullname, self, origin=ORIGIN, is_package=alias.package
        )

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """The default module object."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Fill ``module`` with its sgdebug objects, ``__all__`` and a ``__getattr__`` that
        names what LangGraph has and sgdebug lacks."""
        alias = ALIASES[module.__name__]
        namespace: dict[str, Any] = {
            export.name: getattr(importlib.import_module(export.source), export.attr)
            for export in alias.exports
        }
        sources = sorted({export.source for export in alias.exports})
        namespace["__doc__"] = f"sgdebug's stand-in for {alias.name}" + (
            f", served from {', '.join(sources)}." if sources else "."
        )
        namespace["__all__"] = list(alias.names)
        namespace["__getattr__"] = _missing_names(alias)
        vars(module).update(namespace)


def _missing_names(alias: AliasModule) -> Callable[[str], Any]:
    def __getattr__(name: str) -> Any:
        if alias.lacks(name):
            raise NameNotProvidedError(alias.name, name)
        raise AttributeError(f"module {alias.name!r} has no attribute {name!r}", name=name)

    return __getattr__


def explain(exc: BaseException) -> str | None:
    """The one sentence for an import failure the alias caused, or ``None`` for any other.

    Covers ``import langgraph.x`` of a module it lacks, ``langgraph.x.y`` of a name it lacks,
    and ``from langgraph.x import y`` of one (which Python reports as "cannot import name").
    """
    if isinstance(exc, ModuleNotProvidedError | NameNotProvidedError):
        return str(exc)
    if not isinstance(exc, ImportError) or isinstance(exc, ModuleNotFoundError):
        return None
    alias = ALIASES.get(exc.name or "")
    name = getattr(exc, "name_from", None)  # Python 3.12+
    if name is None:
        match = _CANNOT_IMPORT.match(str(exc))
        name = match["name"] if match else None
    if alias is not None and isinstance(name, str) and alias.lacks(name):
        return not_provided(f"{alias.name}.{name}")
    return None
