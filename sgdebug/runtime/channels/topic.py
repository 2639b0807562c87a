"""Topic: collects every value written in a step (or, accumulating, across steps)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import MISSING, BaseChannel


class Topic(BaseChannel):
    """A list of the values written; list writes are flattened one level."""

    __slots__ = ("accumulate", "values")

    def __init__(self, typ: Any = Any, accumulate: bool = False, key: str = "") -> None:
        super().__init__(typ, key)
        self.accumulate = accumulate
        self.values: list[Any] = []

    def get(self) -> list[Any]:
        if not self.values:
            raise self._empty()
        return list(self.values)

    def is_available(self) -> bool:
        return bool(self.values)

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        if not self.accumulate and self.values:
            self.values = []
            changed = True
        for value in values:
            if isinstance(value, list):
                self.values.extend(value)
            else:
                self.values.append(value)
            changed = True
        return changed

    def checkpoint(self) -> Any:
        return list(self.values) if self.values else MISSING

    def from_checkpoint(self, value: Any) -> Self:
        new = type(self)(self.typ, self.accumulate, self.key)
        if value is not MISSING:
            new.values = list(value)
        return new

    def describe(self) -> str:
        return "Topic(accumulate)" if self.accumulate else "Topic"
