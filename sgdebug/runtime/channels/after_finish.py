"""LastValueAfterFinish: a value that becomes visible only when the run is about to finish."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sgdebug.runtime.channels.base import MISSING, BaseChannel


class LastValueAfterFinish(BaseChannel):
    """Stores the last write, hidden until :meth:`finish`; reading it consumes it."""

    __slots__ = ("finished", "value")

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING
        self.finished = False

    def get(self) -> Any:
        if self.value is MISSING or not self.finished:
            raise self._empty()
        return self.value

    def is_available(self) -> bool:
        return self.finished and self.value is not MISSING

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.finished = False
        self.value = values[-1]
        return True

    def consume(self) -> bool:
        if not self.finished:
            return False
        self.finished = False
        self.value = MISSING
        return True

    def finish(self) -> bool:
        if self.finished or self.value is MISSING:
            return False
        self.finished = True
        return True

    def checkpoint(self) -> Any:
        return MISSING if self.value is MISSING else (self.value, self.finished)

    def from_checkpoint(self, value: Any) -> Self:
        new = type(self)(self.typ, self.key)
        if value is not MISSING:
            new.value, new.finished = value
        return new
