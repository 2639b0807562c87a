"""Loading the graph a user names on the command line.

A target is ``package.module:attr`` or ``path/to/file.py:attr`` (``attr`` may be dotted:
``app:agents.support``). The attribute may be a compiled graph, an uncompiled
``StateGraph`` (compiled here), or a function callable with no arguments that returns
either; built with ``sgdebug.runtime`` or with LangGraph (recognised by their classes, so
loading imports LangGraph only when the user's program does). The current directory is
importable, as with ``uvicorn`` or ``textual run``; a file inside a package (folders with
``__init__.py``) is imported under its dotted name, so its relative imports work.

Every way loading can fail raises :class:`TargetError` with one specific paragraph, plus
the user's traceback when their code raised. A function of the standard library or built
into Python is refused before it is called (it never builds a graph); a target read from a
session file (``from_file=True``) is held to more (:mod:`sgdebug.debugger._target_checks`).

A LangGraph program can also be loaded to run on ``sgdebug.runtime``: ``alias=True`` imports
it afresh under the ``langgraph`` import alias (:mod:`sgdebug.compat`), and
:func:`forget_user_modules` takes an earlier import of the user's code out of the way.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import site
import sys
import sysconfig
import traceback
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Literal

from sgdebug.debugger._target_checks import refusal_before_call, refusal_before_import
from sgdebug.runtime import CompiledStateGraph, StateGraph

__all__ = [
    "LoadedTarget",
    "TargetError",
    "TargetErrorKind",
    "TargetSpec",
    "forget_user_modules",
    "load_target",
]

TargetErrorKind = Literal[
    "spec", "module", "file", "import", "attribute", "not_graph", "langgraph", "invalid",
    "factory", "refused",
]  # fmt: skip
_EXPECTED: Final = (
    "TARGET must name a compiled graph (`builder.compile()`), a StateGraph builder, or a "
    "function that can be called with no arguments and returns one of those."
)
_HIDDEN_FRAMES: Final = ("<frozen importlib", __file__, importlib.__file__ or "<no importlib>")


class TargetError(Exception):
    """The target cannot be loaded; the message says why, in one paragraph."""

    def __init__(self, message: str, *, kind: TargetErrorKind) -> None:
        super().__init__(message)
        self.kind: TargetErrorKind = kind
        """Which check failed (for callers that react differently; the message says it all)."""


@dataclass(frozen=True, slots=True)
class LoadedTarget:
    """A user's graph, ready to debug."""

    graph: Any
    """The compiled graph, ``sgdebug.runtime``'s or LangGraph's (compiled here when the
    target named a builder or returned one)."""
    namespace: dict[str, Any]
    """The globals of the module the target lives in (the live dict: copy before adding names)."""
    label: str
    """The target as the user wrote it, for titles and messages."""
    spec: str
    """The target in a form that loads from any directory (files by absolute path)."""


@dataclass(frozen=True, slots=True)
class TargetSpec:
    """A parsed target: a module or a file, and an attribute path inside it."""

    text: str
    """As written."""
    module: str | None
    """Dotted module name, for ``module:attr`` targets."""
    path: Path | None
    """Absolute path of the file, for ``file.py:attr`` targets."""
    attr: str
    """Dotted attribute path inside the module."""

    @classmethod
    def parse(cls, text: str, *, cwd: Path) -> TargetSpec:
        """Parse ``text``; relative file paths are resolved against ``cwd``."""
        text = text.strip()
        if ":" not in text:
            raise TargetError(_no_colon(text), kind="spec")
        where, attr = text.rsplit(":", 1)
        if not attr or not all(part.isidentifier() for part in attr.split(".")):
            raise TargetError(
                f"{text!r} is not a valid target: after the colon comes the name of the "
                f"graph in the module, a Python identifier such as `graph` "
                f"(got {attr!r}). Write `module:attribute` or `path/to/file.py:attribute`.",
                kind="spec",
            )
        if _looks_like_path(where):
            return cls(text, None, _existing_file(where, cwd, text), attr)
        if not where or not all(part.isidentifier() for part in where.split(".")):
            raise TargetError(
                f"{text!r} is not a valid target: {where!r} is neither a dotted module name "
                f"(like `my_app.graphs`) nor a path to a .py file. "
                f"Write `module:attribute` or `path/to/file.py:attribute`.",
                kind="spec",
            )
        return cls(text, where, None, attr)

    @property
    def canonical(self) -> str:
        """The target in a form independent of the current directory."""
        return f"{self.path if self.path is not None else self.module}:{self.attr}"


def load_target(
    spec: str, *, cwd: str | Path | None = None, alias: bool = False, from_file: bool = False
) -> LoadedTarget:
    """Import the target ``spec`` names and return its compiled graph and module globals.

    ``cwd`` (default: the current directory) is put on ``sys.path`` and anchors relative
    file paths. With ``alias``, the target's module is imported afresh under the
    ``langgraph`` import alias (:func:`sgdebug.compat.alias`), as is anything it imports that
    is not imported yet, so a LangGraph program gives an ``sgdebug.runtime`` graph; what the
    alias lacks is a ``TargetError(kind="langgraph")`` whose message is the alias's one
    sentence. ``from_file``: the spec was read from a session file, and only a graph, a
    builder or a function of the user's own module is accepted; the rest is refused (kind
    ``refused``) before it is imported or called. Raises :class:`TargetError` for every way
    this can fail.
    """
    base = Path(cwd if cwd is not None else os.getcwd()).resolve()
    parsed = TargetSpec.parse(spec, cwd=base)
    refusal = refusal_before_import(parsed.text, parsed.module, parsed.path, from_file=from_file)
    if refusal is not None:
        raise TargetError(refusal, kind="refused")
    _put_on_path(base)
    return _load_aliased(parsed, base, from_file) if alias else _load(parsed, base, from_file)


def forget_user_modules(before: Collection[str]) -> tuple[str, ...]:
    """Take the user's modules imported since ``before`` (names that were in ``sys.modules``)
    out of ``sys.modules``, so that importing them again runs them afresh; return their names.

    The user's code is what lies outside the standard library and the installed packages;
    sgdebug's and ``langgraph``'s own modules always stay.
    """
    roots = _installed_roots()
    forgotten = tuple(
        name
        for name, module in list(sys.modules.items())
        if name not in before
        and name.split(".")[0] not in ("sgdebug", "langgraph")
        and _is_user_code(module, roots)
    )
    for name in forgotten:
        sys.modules.pop(name, None)
    return forgotten


# -- parsing -------------------------------------------------------------------------------


def _no_colon(text: str) -> str:
    named = text and all(part.isidentifier() for part in text.split("."))
    example = f"{text}:graph" if text.endswith(".py") or named else "my_app.graphs:graph"
    return (
        f"{text!r} is not a valid target: it needs a colon between the module (or .py file) "
        f"and the name of the graph in it, e.g. `{example}`."
    )


def _looks_like_path(where: str) -> bool:
    separators = [sep for sep in ("/", os.sep, os.altsep) if sep]
    return where.endswith(".py") or any(sep in where for sep in separators)


def _existing_file(where: str, cwd: Path, text: str) -> Path:
    path = Path(where).expanduser()
    if not path.is_absolute():
        path = cwd / path
    path = path.resolve()
    if path.is_dir():
        raise TargetError(
            f"Cannot load {text!r}: {where!r} is a directory; name the .py file that defines "
            f"the graph, e.g. `{where.rstrip('/')}/graph.py:graph`.",
            kind="file",
        )
    if not path.is_file():
        raise TargetError(
            f"Cannot load {text!r}: there is no file {where!r} (looked for {path}).",
            kind="file",
        )
    if path.suffix != ".py":
        raise TargetError(
            f"Cannot load {text!r}: {where!r} is not a Python source file (.py).", kind="file"
        )
    return path


# -- importing -----------------------------------------------------------------------------


def _load(parsed: TargetSpec, base: Path, from_file: bool) -> LoadedTarget:
    if parsed.path is not None:
        module = _import_file(parsed.path, parsed.text)
    else:
        assert parsed.module is not None
        module = _import_module(parsed.module, parsed.text, base)
    value = _get_attribute(module, parsed)
    refusal = refusal_before_call(value, module, parsed.text, from_file=from_file)
    if refusal is not None:
        raise TargetError(refusal, kind="refused")
    graph = _to_graph(value, parsed.text, called=False)
    return LoadedTarget(graph, vars(module), parsed.text, parsed.canonical)


def _load_aliased(parsed: TargetSpec, base: Path, from_file: bool) -> LoadedTarget:
    """:func:`_load` under the ``langgraph`` alias: import, attribute and factory call alike."""
    from sgdebug import compat

    name = parsed.module if parsed.path is None else _file_module(parsed.path, parsed.text)[1]
    assert name is not None
    sys.modules.pop(name, None)
    try:
        with compat.alias():
            loaded = _load(parsed, base, from_file)
    except TargetError as exc:
        sentence = compat.explain(exc.__cause__) if exc.__cause__ is not None else None
        if sentence is None:
            raise
        raise TargetError(sentence, kind="langgraph") from exc.__cause__
    if _langgraph_kind(loaded.graph) is not None:
        raise TargetError(
            f"Cannot load {parsed.text!r} on sgdebug's runtime: under the langgraph import "
            f"alias it still gives a LangGraph graph, built by code that was imported with "
            f"LangGraph itself; run this program on the langgraph engine (leave out "
            f"--engine native)",
            kind="langgraph",
        )
    return loaded


def _installed_roots() -> tuple[str, ...]:
    """The folders of the standard library and of installed packages (with a separator)."""
    paths = sysconfig.get_paths()
    roots = {paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}
    roots.update(getattr(site, "getsitepackages", list)())
    roots.add(site.getusersitepackages())
    return tuple(os.path.join(os.path.realpath(root), "") for root in roots)


def _is_user_code(module: ModuleType | None, roots: tuple[str, ...]) -> bool:
    """Whether ``module`` comes from files outside ``roots`` (builtins and frozen: no)."""
    origin = getattr(module, "__file__", None)
    places = [origin] if isinstance(origin, str) else list(getattr(module, "__path__", None) or ())
    return bool(places) and all(
        isinstance(place, str) and not os.path.realpath(place).startswith(roots) for place in places
    )


def _put_on_path(directory: Path) -> None:
    if str(directory) not in sys.path:
        sys.path.insert(0, str(directory))


def _import_module(name: str, text: str, cwd: Path) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (name == missing or name.startswith(f"{missing}.")):
            raise TargetError(
                f"Cannot load {text!r}: there is no module named {missing!r} on the import "
                f"path (the current directory {cwd} is on it). Check the spelling, or give a "
                f"file path such as `path/to/{name.rsplit('.', 1)[-1]}.py:graph`.",
                kind="module",
            ) from None
        raise TargetError(_raised(f"Importing module {name!r}", text, exc), kind="import") from exc
    except (Exception, SystemExit) as exc:
        raise TargetError(_raised(f"Importing module {name!r}", text, exc), kind="import") from exc


def _file_module(path: Path, text: str) -> tuple[Path, str]:
    """The folder above the outermost package holding ``path``, and its dotted name there."""
    root, parts = path.parent, [path.stem]
    while (root / "__init__.py").is_file() and root.name.isidentifier():
        parts.insert(0, root.name)
        root = root.parent
    if not all(part.isidentifier() for part in parts):
        raise TargetError(
            f"Cannot load {text!r}: {path.name!r} cannot be imported because "
            f"{path.stem!r} is not a valid Python module name; rename the file.",
            kind="file",
        )
    return root, ".".join(parts)


def _import_file(path: Path, text: str) -> ModuleType:
    """Import a file under its dotted name, from the folder above its outermost package."""
    root, name = _file_module(path, text)
    _put_on_path(root)
    existing = sys.modules.get(name)
    if existing is None:
        try:
            existing = importlib.import_module(name)
        except (Exception, SystemExit) as exc:
            message = _raised(f"Importing {path}", text, exc)
            raise TargetError(message, kind="import") from exc
    origin = getattr(existing, "__file__", None)
    if origin is None or Path(origin).resolve() != path:
        raise TargetError(
            f"Cannot load {text!r}: the module name {name!r} of {path} is already taken by "
            f"{origin or 'a built-in module'}; rename the file.",
            kind="file",
        )
    return existing


def _get_attribute(module: ModuleType, spec: TargetSpec) -> Any:
    value: Any = module
    for depth, part in enumerate(spec.attr.split(".")):
        try:
            value = getattr(value, part)
        except AttributeError:
            owner = module.__name__ if depth == 0 else ".".join(spec.attr.split(".")[:depth])
            raise TargetError(_no_attribute(module, owner, part, spec), kind="attribute") from None
        except Exception as exc:
            message = _raised(f"Reading {spec.attr!r}", spec.text, exc)
            raise TargetError(message, kind="import") from exc
    return value


def _no_attribute(module: ModuleType, owner: str, part: str, spec: TargetSpec) -> str:
    where = f" ({module.__file__})" if getattr(module, "__file__", None) else ""
    head = f"Cannot load {spec.text!r}: {owner!r}{where} has no attribute {part!r}."
    if owner != module.__name__:
        return head
    graphs = sorted(
        k
        for k, v in vars(module).items()
        if isinstance(v, CompiledStateGraph | StateGraph)
        or _langgraph_kind(v) in ("compiled", "builder")
    )
    close = difflib.get_close_matches(part, [k for k in vars(module) if not k.startswith("_")], 1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    if graphs:
        return f"{head}{hint} Graphs it defines: {', '.join(graphs)}."
    return f"{head}{hint} It defines no graph at module level; {_EXPECTED}"


# -- from value to graph -------------------------------------------------------------------


def _to_graph(value: Any, text: str, *, called: bool) -> Any:
    if isinstance(value, CompiledStateGraph):
        return value
    if isinstance(value, StateGraph):
        return _compile(value, text)
    what = f"Calling {text!r} returned" if called else f"{text!r} is"
    kind = _langgraph_kind(value)
    if kind == "compiled":
        return value
    if kind == "builder":
        return _compile(value, text)
    if kind is not None:
        raise TargetError(_langgraph_message(what, type(value)), kind="langgraph")
    if not called and callable(value) and not isinstance(value, type):
        return _to_graph(_call_factory(value, text), text, called=True)
    raise TargetError(f"{what} {_describe(value)}, not a graph. {_EXPECTED}", kind="not_graph")


def _compile(builder: Any, text: str) -> Any:
    try:
        return builder.compile()
    except ValueError as exc:
        raise TargetError(
            f"Cannot load {text!r}: the StateGraph is not a valid graph: {exc}", kind="invalid"
        ) from exc
    except Exception as exc:
        message = _raised(f"Compiling the StateGraph of {text!r}", text, exc)
        raise TargetError(message, kind="invalid") from exc


def _call_factory(factory: Callable[..., Any], text: str) -> Any:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        parameters = None  # no signature to check (some builtins): just call it
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    required = [
        p.name
        for p in parameters or ()
        if p.default is inspect.Parameter.empty and p.kind not in variadic
    ]
    if required:
        raise TargetError(
            f"{text!r} is a function that needs {_plural(len(required), 'argument')} "
            f"({', '.join(required)}), but a "
            f"target function is called with none. Give its parameters defaults, or point "
            f"TARGET at a graph defined at module level.",
            kind="factory",
        )
    try:
        return factory()
    except (Exception, SystemExit) as exc:
        raise TargetError(_raised(f"Calling {text!r}", text, exc), kind="factory") from exc


def _langgraph_kind(value: Any) -> Literal["compiled", "builder", "other"] | None:
    """What LangGraph object ``value`` is, by its classes (nothing is imported): a compiled
    graph (a ``Pregel``), a ``StateGraph`` builder, something else, or not LangGraph's."""
    classes = [c for c in type(value).__mro__ if c.__module__.split(".")[0] == "langgraph"]
    if not classes:
        return None
    names = {c.__name__ for c in classes}
    if "Pregel" in names:
        return "compiled"
    if "StateGraph" in names:
        return "builder"
    return "other"


def _langgraph_message(what: str, cls: type) -> str:
    return (
        f"{what} a LangGraph {cls.__name__} (from {cls.__module__}), not a graph. {_EXPECTED} "
        f"With LangGraph that is `builder.compile()`, the `StateGraph` itself, or a function "
        f"returning either."
    )


def _describe(value: Any) -> str:
    if isinstance(value, type):
        return f"the class {value.__qualname__}"
    if isinstance(value, ModuleType):
        return f"the module {value.__name__}"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name}"


def _plural(count: int, noun: str) -> str:
    return f"an {noun}" if count == 1 else f"{count} {noun}s"


def _raised(doing: str, text: str, exc: BaseException) -> str:
    """``doing`` raised ``exc``: one sentence, then the user's traceback."""
    summary = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in summary if not f.filename.startswith(_HIDDEN_FRAMES)]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    lines += traceback.StackSummary.from_list(frames).format()
    lines += traceback.format_exception_only(type(exc), exc)
    return (
        f"Cannot load {text!r}: {doing} raised {type(exc).__name__}; "
        f"the error is in the code being loaded.\n" + "".join(lines).rstrip()
    )
