"""Delta-blob encoding: what to store for each channel that changed at a save.

A number, bool or ``None`` is stored as it is (and not again while it stays the same
object); a list of immutable scalars is shared with a saver that can (each version is a
prefix of one list); other lists and strings that grow by appending are stored as deltas on
the blob stored before (a Fenwick-shaped chain, see :class:`Shadow`); anything else whole.
The shadows kept here are also what the mutation check compares live values with.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from sgdebug.runtime.channels import (
    MISSING,
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
)
from sgdebug.runtime.checkpoint.base import GONE, BaseCheckpointSaver, Blob, CheckpointId, id_text

__all__ = [
    "MAX_DELTA_DEPTH",
    "NESTED_SET",
    "SHADOW_BUDGET",
    "SHAREABLE",
    "Blobs",
    "Shadow",
    "length",
    "shadow_copy",
]

_ATOMS = frozenset((int, float, bool, type(None)))
_VALUED = frozenset((LastValue, BinaryOperatorAggregate, EphemeralValue))
"""Channels whose ``checkpoint()`` is their ``value``."""
MAX_DELTA_DEPTH = 48
"""A delta chain longer than this is cut by storing the value whole again."""


@dataclass(slots=True)
class Shadow:
    """What was last stored for one channel.

    Appends to a list or string are stored as deltas arranged like a Fenwick tree: the
    k-th append since a whole value is stored relative to append ``k & (k - 1)``, so a value
    is rebuilt from at most log2(k) deltas while storage stays O(n log n) items for n
    appends (never a full copy per step, never a long chain).
    """

    value: Any
    """A copy of the stored value's containers."""
    chain: list[Any]
    """(blob id, length, depth) of the whole value and each append stored since; while
    ``shared``, only the id of the checkpoint that stored the latest version."""
    obj: Any = MISSING
    """The channel's value object when it was stored (to spot a fold that appended to it)."""
    shared: bool = False
    """``value`` is a list of immutable scalars the saver keeps a reference to (its stored
    versions are prefixes of it): it may only be appended to from now on."""


class Blobs:
    """The stored form of each changed channel, with what was stored last for each."""

    __slots__ = ("_encode", "_raw", "_share", "atoms", "intact", "saver", "shadow")

    def __init__(self, saver: BaseCheckpointSaver) -> None:
        self.saver = saver
        self._encode, self._raw, self._share = saver.encode, saver.raw_types, saver.share_list
        self.shadow: dict[str, Shadow] = {}
        """Channel → what was last stored for it (for deltas and mutation checks)."""
        self.atoms: dict[str, Any] = {}
        """Channel → the number, bool or ``None`` stored for it last (not stored again)."""
        self.intact: set[str] = set()
        """Appended-to channels whose earlier items this step's check found unchanged."""

    def changes(
        self,
        channels: Mapping[str, BaseChannel],
        changed: Iterable[str],
        checkpoint_id: CheckpointId,
        first: bool,
    ) -> list[tuple[str, Any]]:
        """``(channel, stored data)`` of every channel of ``changed`` whose stored form
        changed (``GONE`` for one emptied); ``first``: nothing was stored before."""
        out: list[tuple[str, Any]] = []
        encode, raw = self._encode, self._raw
        atoms, shadows = self.atoms, self.shadow
        for key in changed:
            channel: Any = channels[key]  # (a ValueChannel when its type is one of _VALUED)
            value = channel.value if type(channel) in _VALUED else channel.checkpoint()
            kind = type(value)
            if kind in _ATOMS:  # no deltas, cannot be changed in place
                if atoms.get(key, MISSING) is value:
                    continue  # the blob stored last holds this very value: keep pointing at it
                atoms[key] = value
                if shadows and key in shadows:
                    del shadows[key]
                out.append((key, value if kind in raw else encode(value, key)))
                continue
            if key in atoms:
                del atoms[key]
            if value is MISSING:
                if not first:
                    out.append((key, GONE))
                shadows.pop(key, None)
            elif kind is list and key in self.intact:
                shadow = shadows[key]
                master = shadow.value
                size = len(master)
                if shadow.shared and len(value) == size + 1 and type(value[size]) in SHAREABLE:
                    # One scalar appended to the list the saver shares: the usual step.
                    master.append(value[size])
                    shadow.obj = value
                    shadow.chain[0] = checkpoint_id
                    out.append((key, self._share(master, size + 1)))
                else:
                    out.append((key, self._blob(key, value, checkpoint_id, intact=True)))
            else:
                out.append((key, self._blob(key, value, checkpoint_id)))
        if self.intact:
            self.intact = set()
        return out

    def prime(self, key: str, value: Any, blob_id: str, depth: int, read: Any) -> None:
        """A loaded value: the next save stores its changes relative to it."""
        self.shadow[key] = Shadow(shadow_copy(value), [(blob_id, length(value), depth)], read)

    def _blob(self, key: str, value: Any, checkpoint_id: CheckpointId, intact: bool = False) -> Any:
        """What to store for ``value``: a :class:`Blob` appending to the last one stored when
        it extends it, else the value's stored data.

        ``intact`` says the mutation check found the value to be the last stored one
        with this step's writes appended (no need to compare the whole list again).
        """
        saver = self.saver
        shadow = self.shadow.get(key)
        if (
            shadow is not None
            and shadow.shared
            and type(value) is list
            and (intact or _extends(value, shadow.value))
        ):
            master = shadow.value
            added = value[len(master) :]
            if (len(added) == 1 and type(added[0]) in SHAREABLE) or SHAREABLE.issuperset(
                map(type, added)
            ):
                # One copy for every version: the stored value is a prefix of it.
                master.extend(added)
                shadow.obj = value
                shadow.chain[0] = checkpoint_id  # (its blob id is made when needed)
                data = saver.share_list(master, len(value))
                assert data is not None  # ``shared`` is only set when the saver shares
                return data
            # Items that can change: later versions are stored as deltas on the shared one,
            # since a caller reading them must get copies of those items.
            shadow.shared = False
            shadow.chain = [(f"{id_text(shadow.chain[0])}:{key}", len(master), 0)]
        encode = saver.encode
        blob_id = f"{id_text(checkpoint_id)}:{key}"  # as build_record names it
        kind: Literal["list", "str"] | None = (
            "list" if type(value) is list else "str" if type(value) is str else None
        )
        if shadow is not None and kind is not None and (intact or _extends(value, shadow.value)):
            chain = shadow.chain
            k = len(chain)
            base_id, base_len, base_depth = chain[k & (k - 1)]
            if base_depth < MAX_DELTA_DEPTH:
                blob = Blob(encode(value[base_len:], key), base_id, kind, base_depth + 1)
                chain.append((blob_id, len(value), blob.depth))
                if kind == "list":  # copy only what was appended
                    added = value[len(shadow.value) :]
                    if not NESTED_SET.isdisjoint(map(type, added)):
                        added = shadow_copy(added)
                    shadow.value.extend(added)
                else:
                    shadow.value = value
                shadow.obj = value
                return blob
        copy = shadow_copy(value)
        chain = [(blob_id, length(value), 0)]
        if kind == "list" and SHAREABLE.issuperset(map(type, copy)):
            data = saver.share_list(copy, len(copy))
            if data is not None:
                self.shadow[key] = Shadow(copy, [checkpoint_id], value, shared=True)
                return data
        self.shadow[key] = Shadow(copy, chain, value)
        return encode(value, key)


def _extends(value: Any, old: Any) -> bool:
    """Whether ``value`` is ``old`` with items (or characters) appended."""
    if type(value) is not type(old) or len(value) < len(old):
        return False
    if type(value) is str:
        return bool(value.startswith(old))
    return bool(value[: len(old)] == old)


def length(value: Any) -> int:
    return len(value) if type(value) in (list, str) else 0


SHADOW_BUDGET = 10_000
"""Containers copied per shadow; past it, deeper containers are shared (not checked)."""


def shadow_copy(value: Any) -> Any:
    """A copy of the containers of ``value`` (leaves shared), to spot in-place changes.

    Nested lists, dicts and sets are copied too (so ``state['d']['items'].append(x)`` is
    seen), up to :data:`SHADOW_BUDGET` containers; objects such as dataclass instances are
    shared, so a change inside one is not detected.
    """
    budget = [SHADOW_BUDGET]
    return _copy_containers(value, budget)


def _copy_containers(value: Any, budget: list[int]) -> Any:
    kind = type(value)
    if kind not in (list, dict, set) or budget[0] <= 0:
        return value
    budget[0] -= 1
    if kind is list:
        return [_copy_containers(v, budget) if type(v) in _NESTED else v for v in value]
    if kind is dict:
        return {
            k: _copy_containers(v, budget) if type(v) in _NESTED else v for k, v in value.items()
        }
    return set(value)


_NESTED = (list, dict, set)
NESTED_SET = frozenset(_NESTED)
SHAREABLE = frozenset((int, float, str, bool, type(None)))
"""Items an append-only list may hold to be shared with the saver: nothing can change them."""
