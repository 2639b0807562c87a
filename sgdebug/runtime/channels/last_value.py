"""LastValue: the default channel, holding the single value written in the last step."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import ValueChannel
from sgdebug.runtime.errors import InvalidUpdateError, troubleshooting


class LastValue(ValueChannel):
    """Stores the last value written; two writes in one superstep are an error."""

    __slots__ = ()

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
