"""EphemeralValue: a value visible for exactly one superstep after it is written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import MISSING, ValueChannel
from sgdebug.runtime.errors import InvalidUpdateError


class EphemeralValue(ValueChannel):
    """Holds the write of the previous step only; a step without writes clears it."""

    __slots__ = ("guard",)

    def __init__(self, typ: Any = Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is MISSING:
                return False
            self.value = MISSING
            return True
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': EphemeralValue(guard=True) can receive only one value "
                "per step. Use guard=False if you want to store any one of multiple values."
            )
        self.value = values[-1]
        return True

    def from_checkpoint(self, value: Any) -> Self:
        new = type(self)(self.typ, self.guard, self.key)
        new.value = value
        return new

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new.typ = self.typ
        new.key = self.key
        new.guard = self.guard
        new.value = self.value
        return new
