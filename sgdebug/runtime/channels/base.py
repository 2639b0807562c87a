"""The channel ABC: a named slot of state with its own rule for merging a step's writes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Final, Self

from sgdebug.runtime.errors import EmptyChannelError


class _Missing:
    """Sentinel type for 'no value'; distinct from ``None``, which is a value."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class BaseChannel(ABC):
    """A channel holds one value (or none) and folds the writes of a superstep into it.

    The engine calls :meth:`update` once per superstep with every write to this channel, in
    the deterministic task order, and an empty sequence for channels nobody wrote.
    """

    __slots__ = ("key", "typ")

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        self.typ = typ
        self.key = key

    @abstractmethod
    def get(self) -> Any:
        """The current value; raises :class:`EmptyChannelError` when there is none."""

    @abstractmethod
    def update(self, values: Sequence[Any]) -> bool:
        """Apply one superstep's writes; return whether the channel changed."""

    @abstractmethod
    def checkpoint(self) -> Any:
        """The value to store in a checkpoint, or ``MISSING`` when empty."""

    @abstractmethod
    def from_checkpoint(self, value: Any) -> Self:
        """A new channel like this one holding ``value`` (``MISSING`` for empty)."""

    def peek(self) -> Any:
        """The current value, or ``MISSING`` when there is none (no exception)."""
        try:
            return self.get()
        except EmptyChannelError:
            return MISSING

    def is_available(self) -> bool:
        """Whether :meth:`get` would return a value."""
        try:
            self.get()
        except EmptyChannelError:
            return False
        return True

    def consume(self) -> bool:
        """Called after a node triggered by this channel ran; return whether it changed."""
        return False

    def finish(self) -> bool:
        """Called when the run would otherwise end; return whether it changed."""
        return False

    def copy(self) -> Self:
        """An independent channel with the same value."""
        return self.from_checkpoint(self.checkpoint())

    def describe(self) -> str:
        """A short human description of the channel kind, for debugger views."""
        return type(self).__name__

    def _empty(self) -> EmptyChannelError:
        return EmptyChannelError(self.key)


class ValueChannel(BaseChannel):
    """A channel that is its :attr:`value` (``MISSING`` when empty).

    ``get``/``peek`` read it and it is available unless it is ``MISSING``; its checkpoint
    is the value too unless a subclass says otherwise. The engine's hot loops read
    ``.value`` directly: a method call per channel costs more than the rest of a read.
    """

    __slots__ = ("value",)

    def __init__(self, typ: Any = Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING
        """The channel's value, ``MISSING`` when it has none."""

    def get(self) -> Any:
        if self.value is MISSING:
            raise self._empty()
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING

    def peek(self) -> Any:
        return self.value

    def checkpoint(self) -> Any:
        return self.value
