"""Finding values a node changed in place: the live value against what was stored for it.

A node that appends to the list it was given changes the stored snapshot too unless
something notices: the check compares each channel holding a container with the copy kept
when it was stored (:class:`~._blobs.Shadow`); a changed channel is stored again by the
next save and reported once as a :class:`~sgdebug.runtime.engine._journal.Mutation`.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sgdebug.runtime.channels import MISSING, BinaryOperatorAggregate
from sgdebug.runtime.engine._journal import Mutation
from sgdebug.runtime.persist._blobs import NESTED_SET, Blobs

if TYPE_CHECKING:
    from sgdebug.runtime.engine._state import RunState
    from sgdebug.runtime.engine._task import Task

__all__ = ["MutationCheck"]

_NOTHING: frozenset[str] = frozenset()


class MutationCheck:
    """The in-place changes found so far, and the channels the next save must store again."""

    __slots__ = ("blobs", "mutated", "mutations", "reported")

    def __init__(self, blobs: Blobs) -> None:
        self.blobs = blobs
        """What was stored for each channel (its shadows are compared with the live values)."""
        self.mutated: set[str] = set()
        """Channels found changed in place since the last save (stored again by it)."""
        self.mutations: list[Mutation] = []
        self.reported: set[tuple[int, str, bool]] = set()
        """(step, channel, written) of every mutation reported."""

    def check(self, run: RunState, tasks: Sequence[Task], *, committed: bool = True) -> None:
        """Find channels the step changed in place and report them (see :class:`Mutation`).

        Called after the step's commit, and (``committed=False``) when a task failed, so a
        change made by a node before it raised is reported although nothing was written.
        """
        updated = (run.updated or _NOTHING) if committed else _NOTHING
        blobs = self.blobs
        channels, intact = run.channels, blobs.intact
        for key, shadow in blobs.shadow.items():
            old = shadow.value
            if type(old) not in NESTED_SET:  # (a shadow copies only these containers)
                continue
            channel = channels.get(key)  # (a checkpoint may hold a channel the graph lost)
            if channel is None:
                continue
            if key in updated:
                if not (
                    # The commit built the list as ``stored object + writes``.
                    type(channel) is BinaryOperatorAggregate
                    and channel.folded_from is shadow.obj
                    and type(channel.value) is list
                    and channel.operator is operator.add
                ):
                    continue  # replaced by its writes: an earlier in-place change is gone
                # ``old + writes`` was computed from the stored object: if that object no
                # longer equals what was stored, a node changed it before the commit.
                if shadow.obj == old:
                    intact.add(key)
                    continue
            else:
                value = channel.checkpoint()
                if value is MISSING or value == old:
                    continue
            self.mutated.add(key)
            found = (run.step, key, key in updated)
            if found in self.reported:
                continue
            self.reported.add(found)
            readers = tuple(t.name for t in tasks if _reads(t, key))
            self.mutations.append(Mutation(run.step, key, readers, key in updated))


def _reads(task: Task, key: str) -> bool:
    return key in task.node.reader.keys or task.send
