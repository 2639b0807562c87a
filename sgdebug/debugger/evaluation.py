"""Python expressions typed by the user: ``print``, conditions, edit values, ``resume``.

An expression is evaluated with :func:`eval` in a namespace made of the user's module
globals, a few runtime names (``Overwrite``, ``Send``, ``Command``, ``START``, ``END``) unless
the module defines them, and the session's names (``state``, ``snapshot``, ``tasks``,
``graph``, ...). Session names are computed only when the expression mentions them, and
``state`` is a deep copy, so looking at a value never changes the run. Every failure is an
:class:`ExpressionError` carrying one readable line; nothing else escapes.
"""

from __future__ import annotations

import copy
import json
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["ExpressionError", "Evaluator", "parse_input", "referenced_names"]

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


class Evaluator:
    """Evaluates expressions against module globals plus lazily computed session names."""

    def __init__(self, module_globals: Mapping[str, Any] | None = None) -> None:
        self.module_globals: Mapping[str, Any] = module_globals or {}
        """Read at each evaluation (a module's live globals); never written."""

    def namespace(self, code: types.CodeType, providers: Mapping[str, Provider]) -> dict[str, Any]:
        """The globals for ``code``: runtime names, module globals, then needed session names."""
        from sgdebug.runtime import END, START, Command, Overwrite, Send

        names: dict[str, Any] = {
            "Overwrite": Overwrite,
            "Send": Send,
            "Command": Command,
            "START": START,
            "END": END,
        }
        names.update(self.module_globals)
        for name in referenced_names(code):
            provider = providers.get(name)
            if provider is not None:
                names[name] = provider()
        return names

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
