"""UntrackedValue: like LastValue, but never stored in checkpoints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import MISSING, ValueChannel
from sgdebug.runtime.errors import InvalidUpdateError


class UntrackedValue(ValueChannel):
    """Holds the last value written; its value is dropped from every checkpoint."""

    __slots__ = ("guard",)

    def __init__(self, typ: Any = Any, guard: bool = True, key: str = "") -> None:
        super().__init__(typ, key)
        self.guard = guard

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': UntrackedValue(guard=True) can receive only one value "
                "per step. Use guard=False if you want to store any one of multiple values."
            )
        self.value = values[-1]
        return True

    def checkpoint(self) -> Any:
        return MISSING

    def from_checkpoint(self, value: Any) -> Self:
        return type(self)(self.typ, self.guard, self.key)

    def copy(self) -> Self:
        new = type(self)(self.typ, self.guard, self.key)
        new.value = self.value
        return new
