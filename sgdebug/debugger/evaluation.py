"""Python expressions typed by the user: ``print``, conditions, edit values, ``resume``.

An expression is evaluated with :func:`eval` in a namespace made of the user's module
globals, a few runtime names (``Overwrite``, ``Send``, ``Command``, ``START``, ``END``) unless
the module defines them, and the session's names (``state``, ``snapshot``, ``tasks``,
``graph``, ...). Session names are computed only when the expression mentions them, and
``state`` is a deep copy, so looking at a value never changes the run.

A name none of those define (nor a builtin) is looked up in the state: a channel by its
bare name (``len(messages) > 6``, as in ``set messages = messages[:2]``), else a class of a
value the state holds (``HumanMessage``, so the text a value prints as evaluates back to
it). Nothing the module or Python defines is ever shadowed. :func:`unknown_names` tells, when
a condition is set, which of its names nothing defines.

Every failure is an :class:`ExpressionError` carrying one readable line; nothing else
escapes.
"""

from __future__ import annotations

import ast
import builtins
import copy
import json
import types
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any, Final

__all__ = [
    "ExpressionError",
    "Evaluator",
    "parse_answer",
    "parse_input",
    "referenced_names",
    "unknown_names",
]

Provider = Callable[[], Any]
"""Computes one session name's value when an expression needs it."""


class ExpressionError(Exception):
    """An expression that does not compile or raised; ``str()`` is the message to show."""

    def __init__(self, message: str, error: BaseException | None = None) -> None:
        super().__init__(message)
        self.error = error
        """The exception the expression raised, if it ran."""


def _walk(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    yield from code.co_varnames
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _walk(const)


def referenced_names(code: types.CodeType) -> frozenset[str]:
    """Every name a compiled expression may look up (nested lambdas/comprehensions too)."""
    return frozenset(_walk(code))


def global_names(code: types.CodeType) -> frozenset[str]:
    """The names a compiled expression reads as globals (not attributes, not its locals)."""
    import dis

    found = {
        str(op.argval)
        for op in dis.get_instructions(code)
        if op.opname in ("LOAD_NAME", "LOAD_GLOBAL")
    }
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= global_names(const)
    return frozenset(found)


def compile_expression(source: str) -> types.CodeType:
    """Compile ``source`` as one Python expression, or raise :class:`ExpressionError`."""
    text = source.strip()
    if not text:
        raise ExpressionError("expected a Python expression")
    try:
        return compile(text, "<expression>", "eval")
    except SyntaxError as exc:
        where = f" at column {exc.offset}" if exc.offset else ""
        raise ExpressionError(f"SyntaxError: {exc.msg}{where}: {text}", exc) from None


def describe_error(exc: BaseException) -> str:
    """``Type: message`` in one line."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def safe_deepcopy(value: Any) -> Any:
    """A deep copy, or the value itself when it cannot be copied (locks, clients, ...)."""
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


RUNTIME_NAMES: Final = ("Overwrite", "Send", "Command", "START", "END")
"""The runtime's names every expression sees (unless the module defines them)."""
_MAX_WALK: Final = 2_000
"""How many values :func:`value_classes` looks at, at most (a huge state stays cheap)."""


def value_classes(values: Any) -> dict[str, type]:
    """The classes (by name) of the values ``values`` holds, nested ones too, builtins left
    out: the names a value's ``repr`` uses (``HumanMessage(...)``). A name two classes share
    is left out too (which one would be meant cannot be told)."""
    found: dict[str, type | None] = {}
    pending, seen = [values], 0
    while pending and seen < _MAX_WALK:
        value = pending.pop()
        seen += 1
        cls = type(value)
        if cls.__module__ != "builtins":
            known = found.setdefault(cls.__name__, cls)
            if known is not cls:
                found[cls.__name__] = None
        pending.extend(_children(value))
    return {name: cls for name, cls in found.items() if cls is not None}


def _children(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [*value.keys(), *value.values()]
    if isinstance(value, list | tuple | set | frozenset):
        return list(value)
    try:
        return list(vars(value).values())
    except TypeError:
        return []


def unknown_names(source: str, known: Collection[str]) -> tuple[str, ...]:
    """The names ``source`` reads that neither ``known``, a builtin, nor the expression
    itself (a lambda's parameters, a comprehension's variables) defines, in order.
    ``source`` must compile (see :func:`compile_expression`)."""
    tree = ast.parse(source.strip(), mode="eval")
    bound: set[str] = set()
    read: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            read.append((node.lineno, node.col_offset, node.id))
        elif isinstance(node, ast.Name):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    skip = bound | set(known) | set(vars(builtins))
    return tuple(dict.fromkeys(name for *_, name in sorted(read) if name not in skip))


class Evaluator:
    """Evaluates expressions against module globals plus lazily computed session names."""

    def __init__(self, module_globals: Mapping[str, Any] | None = None) -> None:
        self.module_globals: Mapping[str, Any] = module_globals or {}
        """Read at each evaluation (a module's live globals); never written."""

    def namespace(self, code: types.CodeType, providers: Mapping[str, Provider]) -> dict[str, Any]:
        """The globals for ``code``: runtime names, module globals, then needed session names."""
        import sgdebug.runtime as runtime

        names: dict[str, Any] = {name: getattr(runtime, name) for name in RUNTIME_NAMES}
        names.update(self.module_globals)
        referenced = referenced_names(code)
        for name in referenced:
            provider = providers.get(name)
            if provider is not None:
                names[name] = provider()
        missing = global_names(code) - names.keys() - vars(builtins).keys()
        if missing and "state" in providers:
            self._from_state(names, missing, providers["state"])
        return names

    @staticmethod
    def _from_state(names: dict[str, Any], missing: frozenset[str], state: Provider) -> None:
        """Bind ``missing`` names the state defines: channels, then its values' classes."""
        values = names["state"] if "state" in names else state()
        if not isinstance(values, Mapping):
            return
        channels = missing & {key for key in values if isinstance(key, str)}
        for name in channels:
            names[name] = values[name]
        if channels:
            names.setdefault("state", values)  # the copy the bare names are values of
        classes = value_classes(values)
        for name in missing - names.keys():
            if name in classes:
                names[name] = classes[name]

    def known_names(self, providers: Mapping[str, Provider], values: Any) -> set[str]:
        """Every name an expression may use now: runtime, module and session names, the
        channels and their values' classes (builtins aside)."""
        known = {*RUNTIME_NAMES, *self.module_globals, *providers}
        if isinstance(values, Mapping):
            known |= {key for key in values if isinstance(key, str)}
            known |= value_classes(values).keys()
        return known

    def evaluate(self, source: str, providers: Mapping[str, Provider] | None = None) -> Any:
        """The value of ``source``; raises :class:`ExpressionError` with a one-line reason."""
        code = compile_expression(source)
        try:
            namespace = self.namespace(code, providers or {})
        except ExpressionError:
            raise
        except Exception as exc:
            raise ExpressionError(
                f"cannot build the namespace: {describe_error(exc)}", exc
            ) from None
        try:
            return eval(code, namespace)
        except Exception as exc:
            raise ExpressionError(describe_error(exc), exc) from None

    def truth(self, source: str, providers: Mapping[str, Provider] | None = None) -> bool:
        """Whether a condition holds; raises :class:`ExpressionError` when it cannot be told."""
        value = self.evaluate(source, providers)
        try:
            return bool(value)
        except Exception as exc:
            raise ExpressionError(describe_error(exc), exc) from None


def parse_input(source: str, evaluator: Evaluator) -> Any:
    """A run's input typed by the user: a Python expression, or else JSON (``true``, ``null``)."""
    try:
        return evaluator.evaluate(source)
    except ExpressionError as python_error:
        try:
            return json.loads(source)
        except ValueError:
            raise python_error from None


def parse_answer(
    source: str, evaluator: Evaluator, providers: Mapping[str, Provider] | None = None
) -> tuple[Any, str | None]:
    """An answer to ``interrupt()`` typed by the user, and a note when it was taken as text.

    A Python expression gives its value. Text that is not one (``make it shorter``), or a
    lone word nothing defines (``yes``), is the string itself, with a note saying so (quote
    it to be explicit). Raises :class:`ExpressionError` for an expression that raised.
    """
    text = source.strip()
    try:
        code = compile_expression(text)
    except ExpressionError:
        return text, _as_text(text)
    if text.isidentifier() and not _is_defined(text, code, evaluator, providers or {}):
        return text, _as_text(text)
    return evaluator.evaluate(text, providers), None


def _is_defined(
    name: str, code: types.CodeType, evaluator: Evaluator, providers: Mapping[str, Provider]
) -> bool:
    if name in vars(builtins) or name in providers:
        return True
    try:
        return name in evaluator.namespace(code, providers)
    except Exception:
        return True  # let evaluate() report what went wrong


def _as_text(text: str) -> str:
    return f"not a Python expression, so answered with the text {text!r} (quote it to be sure)"
