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

__all__ = [
    "MISSING",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "EphemeralValue",
    "LastValue",
    "LastValueAfterFinish",
    "NamedBarrierValue",
    "Topic",
    "UntrackedValue",
]
