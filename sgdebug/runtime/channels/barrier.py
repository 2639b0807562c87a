"""NamedBarrierValue: the join of a waiting edge, available once every source has written."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import MISSING, BaseChannel
from sgdebug.runtime.errors import InvalidUpdateError


class NamedBarrierValue(BaseChannel):
    """Collects source names; available when all have been seen, reset when consumed."""

    __slots__ = ("names", "seen")

    def __init__(self, names: Iterable[str], key: str = "") -> None:
        super().__init__(str, key)
        self.names = frozenset(names)
        self.seen: set[str] = set()

    def get(self) -> None:
        if self.seen != self.names:
            raise self._empty()
        return None

    def is_available(self) -> bool:
        return self.seen == self.names

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        for value in values:
            if value not in self.names:
                raise InvalidUpdateError(f"At key '{self.key}': Value {value} not in {self.names}")
            if value not in self.seen:
                self.seen.add(value)
                changed = True
        return changed

    def consume(self) -> bool:
        if self.seen == self.names:
            self.seen = set()
            return True
        return False

    def checkpoint(self) -> Any:
        return sorted(self.seen) if self.seen else MISSING

    def from_checkpoint(self, value: Any) -> Self:
        new = type(self)(self.names, self.key)
        if value is not MISSING:
            new.seen = set(value)
        return new

    def describe(self) -> str:
        return f"Barrier({', '.join(sorted(self.names))})"
