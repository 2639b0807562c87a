"""Channel classes: each state key is one channel with its own merge rule."""

from __future__ import annotations

from sgdebug.runtime.channels.after_finish import LastValueAfterFinish
from sgdebug.runtime.channels.barrier import NamedBarrierValue
from sgdebug.runtime.channels.base import MISSING, BaseChannel
from sgdebug.runtime.channels.binop import BinaryOperatorAggregate
from sgdebug.runtime.channels.ephemeral import EphemeralValue
from sgdebug.runtime.channels.last_value import LastValue
from sgdebug.runtime.channels.topic import Topic
from sgdebug.runtime.channels.untracked import UntrackedValue

VALUE_CHANNELS: frozenset[type[BaseChannel]] = frozenset(
    (LastValue, BinaryOperatorAggregate, EphemeralValue)
)
"""Channels that are their ``value`` attribute: ``peek()`` and ``checkpoint()`` return it,
and they are available unless it is ``MISSING``. Hot loops read it directly (a method call
per channel costs more than the rest of the read)."""

__all__ = [
    "MISSING",
    "VALUE_CHANNELS",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "EphemeralValue",
    "LastValue",
    "LastValueAfterFinish",
    "NamedBarrierValue",
    "Topic",
    "UntrackedValue",
]
