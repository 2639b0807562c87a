"""LastValue: the default channel, holding the single value written in the last step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import MISSING, BaseChannel
from sgdebug.runtime.errors import InvalidUpdateError, troubleshooting


class LastValue(BaseChannel):
    """Stores the last value written; two writes in one superstep are an error."""

    __slots__ = ("value",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING

    def get(self) -> Any:
        if self.value is MISSING:
            raise self._empty()
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING

    def peek(self) -> Any:
        return self.value

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1:
            raise InvalidUpdateError(
                troubleshooting(
                    f"At key '{self.key}': Can receive only one value per step. "
                    "Use an Annotated key to handle multiple values.",
                    "INVALID_CONCURRENT_GRAPH_UPDATE",
                )
            )
        self.value = values[-1]
        return True

    def checkpoint(self) -> Any:
        return self.value

    def from_checkpoint(self, value: Any) -> Self:
        new = type(self)(self.typ, self.key)
        new.value = value
        return new

    def copy(self) -> Self:
        new = object.__new__(type(self))
        new.typ = self.typ
        new.key = self.key
        new.value = self.value
        return new
