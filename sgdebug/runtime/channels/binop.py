"""BinaryOperatorAggregate: a reducer channel, folding each write into the value."""

from __future__ import annotations

import collections.abc
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, NotRequired, Required, Self, get_args, get_origin

from sgdebug.runtime.channels.base import MISSING, ValueChannel
from sgdebug.runtime.errors import InvalidUpdateError, troubleshooting
from sgdebug.runtime.types import OVERWRITE_KEY, Overwrite

_ABSTRACT_TO_CONCRETE: dict[Any, type] = {
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Set: set,
    collections.abc.MutableSet: set,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
}


def _strip(typ: Any) -> Any:
    while get_origin(typ) in (Annotated, Required, NotRequired):
        typ = get_args(typ)[0]
    return typ


def initial_value(typ: Any) -> Any:
    """``T()`` for the annotated type, or ``MISSING`` when that cannot be built."""
    base = _strip(typ)
    base = get_origin(base) or base
    base = _ABSTRACT_TO_CONCRETE.get(base, base)
    try:
        return base()
    except Exception:
        return MISSING


def operator_name(reducer: Callable[..., Any]) -> str:
    """The name a program knows ``reducer`` by: ``add``, ``add_messages``, ``Merge.lists``.

    A function made by a decorator that did not copy its name (LangGraph's ``add_messages``
    is an inner ``_add_messages``) is named by the public name its module binds to it.
    """
    name = getattr(reducer, "__name__", None)
    if not isinstance(name, str):
        return type(reducer).__name__
    qualname = getattr(reducer, "__qualname__", None)
    if not isinstance(qualname, str):
        return name
    if "<locals>" not in qualname:
        return qualname
    module = sys.modules.get(getattr(reducer, "__module__", None) or "")
    bound = [key for key, value in vars(module).items() if value is reducer] if module else []
    return next((key for key in bound if not key.startswith("_")), name)


def overwrite_value(value: Any) -> tuple[bool, Any]:
    """Whether ``value`` asks to overwrite a reducer channel, and the new value."""
    if isinstance(value, Overwrite):
        return True, value.value
    if isinstance(value, dict) and len(value) == 1 and OVERWRITE_KEY in value:
        return True, value[OVERWRITE_KEY]
    return False, None


class BinaryOperatorAggregate(ValueChannel):
    """Starts at ``T()`` and applies ``operator(value, write)`` for each write in order."""

    __slots__ = ("folded_from", "operator")

    def __init__(self, typ: Any, operator: Callable[[Any, Any], Any], key: str = "") -> None:
        super().__init__(typ, key)
        self.operator = operator
        self.value = initial_value(typ)
        self.folded_from: Any = MISSING
        """The value the last update folded its writes onto (``MISSING`` after an overwrite):
        lets the history store an append as a delta without comparing whole lists."""

    def update(self, values: Sequence[Any]) -> bool:
        if len(values) == 1 and type(values[0]) is list and self.value is not MISSING:
            # The usual step: one list folded in (a list is never an overwrite).
            self.folded_from = self.value
            self.value = self.operator(self.value, values[0])
            return True
        if not values:
            return False
        seen_overwrite = False
        self.folded_from = self.value
        for write in values:
            is_overwrite, new = overwrite_value(write)
            if is_overwrite:
                if seen_overwrite:
                    raise InvalidUpdateError(
                        troubleshooting(
                            "Can receive only one Overwrite value per super-step.",
                            "INVALID_CONCURRENT_GRAPH_UPDATE",
                        )
                    )
                self.value = new
                self.folded_from = MISSING
                seen_overwrite = True
            elif seen_overwrite:
                continue
            elif self.value is MISSING:
                self.value = write
                self.folded_from = MISSING
            else:
                self.value = self.operator(self.value, write)
        return True

    def folded(self, write: Any) -> Self:
        """A copy with ``write`` applied: ``copy()`` then ``update([write])``, in one call."""
        if type(write) is not list or self.value is MISSING:
            new = self.copy()
            new.update((write,))
            return new
        new = object.__new__(type(self))
        new.typ, new.key, new.operator = self.typ, self.key, self.operator
        new.folded_from = self.value
        new.value = self.operator(self.value, write)
        return new

    def from_checkpoint(self, value: Any) -> Self:
        new = type(self).__new__(type(self))
        new.typ, new.key, new.operator = self.typ, self.key, self.operator
        new.value = value
        new.folded_from = MISSING
        return new

    def describe(self) -> str:
        return f"reducer {operator_name(self.operator)}"

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new.typ = self.typ
        new.key = self.key
        new.operator = self.operator
        new.value = self.value
        new.folded_from = self.folded_from
        return new
