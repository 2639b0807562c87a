"""What a commit did, as pause hooks receive it: per channel, old value, writes, new value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ChannelChange", "CommitRecord", "TaskWrite"]


@dataclass(frozen=True, slots=True)
class TaskWrite:
    """One write of one task to a channel, in the order the reducer saw it."""

    task_id: str
    """The writing task's id."""
    task_name: str
    """The writing task's node name."""
    value: Any
    """What it wrote."""


@dataclass(frozen=True, slots=True)
class ChannelChange:
    """What a commit did to one channel."""

    channel: str
    """Channel name."""
    old: Any
    """Value before the commit (``MISSING`` when empty)."""
    writes: tuple[TaskWrite, ...]
    """The writes applied, in application order (empty for a clear or finish)."""
    new: Any
    """Value after the commit (``MISSING`` when empty)."""
    version: int
    """The channel's version after the commit."""


@dataclass(frozen=True, slots=True)
class CommitRecord:
    """The effect of one superstep's commit."""

    step: int
    """The superstep that was committed."""
    changes: tuple[ChannelChange, ...]
    """One entry per channel that changed, user channels and internal ones."""
    tasks: tuple[str, ...] = ()
    """Names of the tasks whose writes were committed, in application order."""
