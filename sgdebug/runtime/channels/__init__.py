"""Channel classes: each state key is one channel with its own merge rule."""

from __future__ import annotations

from sgdebug.runtime.channels.after_finish import LastValueAfterFinish
from sgdebug.runtime.channels.barrier import NamedBarrierValue
from sgdebug.runtime.channels.base import MISSING, BaseChannel, ValueChannel
from sgdebug.runtime.channels.binop import BinaryOperatorAggregate, operator_name
from sgdebug.runtime.channels.ephemeral import EphemeralValue
from sgdebug.runtime.channels.last_value import LastValue
from sgdebug.runtime.channels.topic import Topic
from sgdebug.runtime.channels.untracked import UntrackedValue

VALUE_CHANNELS: frozenset[type[BaseChannel]] = frozenset(
    (LastValue, BinaryOperatorAggregate, EphemeralValue)
)
"""The value channels (:class:`ValueChannel`) whose checkpoint is their value (an
``UntrackedValue`` is not stored)."""

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
    "ValueChannel",
    "operator_name",
]
