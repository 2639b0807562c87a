"""The slots of a task's pending writes: its channel writes numbered 0, 1, ... in order, its
special writes (an attempt's error, interrupt, resume answers) each under a negative slot
of its own; and a task's path as LangGraph's savers get it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import PendingWrite

__all__ = ["SPECIAL_WRITES", "task_path_text", "write_slots"]

SPECIAL_WRITES: dict[str, int] = {"__error__": -1, "__interrupt__": -2, "__resume__": -3}
"""Pending writes that describe a task attempt rather than a channel write. Each is kept
under its own slot: a task that failed (or was interrupted) and later succeeded keeps the
error (or interrupt) next to its result, as LangGraph's savers do."""


def write_slots(writes: Sequence[PendingWrite]) -> list[tuple[int, PendingWrite]]:
    """Slot numbers for one task's batch: channel writes 0, 1, ...; special writes < 0."""
    out: list[tuple[int, PendingWrite]] = []
    index = 0
    for write in writes:
        special = SPECIAL_WRITES.get(write.channel)
        if special is None:
            out.append((index, write))
            index += 1
        else:
            out.append((special, write))
    return out


def task_path_text(path: tuple[Any, ...]) -> str:
    """A task path as LangGraph's savers receive it: ``"~__pregel_pull, node"``, numbers
    as ten digits (``"~__pregel_push, 0000000000, 0000000000"``), ``""`` for none (the
    writes of a resuming ``Command``)."""
    return "" if not path else _path_part(path)


def _path_part(part: Any) -> str:
    if isinstance(part, tuple | list):
        return "~" + ", ".join(_path_part(p) for p in part)
    if isinstance(part, int):  # (bool too: False is 0)
        return f"{part:010d}"
    return str(part)
