"""Breakpoints: numbered like pdb, before/after a node, watches on a channel, on exception.

A :class:`Breakpoint` is plain frozen data (what the user asked for and how often it fired);
a :class:`BreakpointTable` holds the session's breakpoints and answers which of them match
a planned or committed superstep. Conditions are Python source; the table only stores them,
the session evaluates them (:mod:`sgdebug.debugger.evaluation`).

Breakpoints read back from a session file are untrusted: :meth:`Breakpoint.from_dict` checks
every field, and :func:`restore` keeps a conditional one disabled (``held``) until the user
enables it, because its condition is code the file brought.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal, get_args

from sgdebug.runtime import START

__all__ = [
    "ANY_NODE",
    "EXCEPTION_BREAKPOINT",
    "BreakKind",
    "BreakOrigin",
    "Breakpoint",
    "BreakpointError",
    "BreakpointTable",
    "from_dicts",
    "held_notes",
    "restore",
]

BreakKind = Literal["before", "after", "watch", "exception"]
BreakOrigin = Literal["user", "compile", "default"]
ANY_NODE = "*"
"""Target of a before/after breakpoint that matches every node (``interrupt_before="*"``)."""
EXCEPTION_BREAKPOINT = 0
"""The number of the breakpoint that pauses when a node raises (always present)."""


class BreakpointError(ValueError):
    """A breakpoint request that cannot be honoured (no such number, node or channel)."""


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """One breakpoint as the user set it, and how often it fired."""

    number: int
    """Its number (``0`` is the on-exception breakpoint; user ones start at 1)."""
    kind: BreakKind
    """``before``/``after`` a node's superstep, ``watch`` a channel, or ``exception``."""
    target: str = ""
    """The node (``*`` for any node) or, for a watch, the channel; empty for ``exception``."""
    condition: str | None = None
    """A Python expression over ``state`` (and ``old``/``new`` for a watch), or ``None``."""
    temporary: bool = False
    """Deleted after it fires once (``tbreak``)."""
    enabled: bool = True
    """Disabled breakpoints are kept but never fire."""
    hits: int = 0
    """How many times it fired."""
    origin: BreakOrigin = "user"
    """``compile`` for the graph's own ``interrupt_before``/``after``; ``default`` for #0."""
    held: bool = False
    """Disabled on reopening a session file without ``--trust``, because its condition came
    from the file; enabling it (``enable N``) clears this."""

    def describe(self) -> str:
        """What it breaks on, as the command that would set it (``before b if x > 1``)."""
        if self.kind == "exception":
            text = "on exception"
        elif self.kind == "watch":
            text = f"watch {self.target}"
        else:
            text = f"{self.kind} {self.target}"
        return f"{text} if {self.condition}" if self.condition else text

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready fields, for session files."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Breakpoint:
        """The breakpoint :meth:`to_dict` described, every field checked first (the dict may
        come from a damaged or crafted file): raises :class:`BreakpointError` naming the
        first bad field."""
        if not isinstance(data, Mapping):
            raise BreakpointError(f"a breakpoint is a JSON object, not {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        unknown = sorted(str(key) for key in data if key not in names)
        if unknown:
            raise BreakpointError(f"unknown field {unknown[0]!r}")
        for name in ("number", "kind"):
            if name not in data:
                raise BreakpointError(f"no {name!r} field")
        for name, value in data.items():
            _check_field(name, value)
        bp = cls(**dict(data))
        _check_consistent(bp)
        return bp


class BreakpointTable:
    """The session's breakpoints, by number; #0 (on exception) always exists."""

    def __init__(self, breakpoints: Iterable[Breakpoint] = ()) -> None:
        self._items: dict[int, Breakpoint] = {
            EXCEPTION_BREAKPOINT: Breakpoint(EXCEPTION_BREAKPOINT, "exception", origin="default")
        }
        for bp in breakpoints:
            self._items[bp.number] = bp
        self._next = max(self._items) + 1

    # -- reading -------------------------------------------------------------------------

    @property
    def all(self) -> tuple[Breakpoint, ...]:
        """Every breakpoint, by number."""
        return tuple(self._items[n] for n in sorted(self._items))

    def get(self, number: int) -> Breakpoint:
        """The breakpoint numbered ``number``."""
        try:
            return self._items[number]
        except KeyError:
            raise BreakpointError(self._no_such(number)) from None

    @property
    def catches_exceptions(self) -> bool:
        """Whether a node's exception pauses the run (breakpoint #0 enabled)."""
        return self._items[EXCEPTION_BREAKPOINT].enabled

    def numbers(self) -> tuple[int, ...]:
        """The numbers in use."""
        return tuple(sorted(self._items))

    # -- changing ------------------------------------------------------------------------

    def add(
        self,
        kind: BreakKind,
        target: str,
        condition: str | None = None,
        *,
        temporary: bool = False,
        origin: BreakOrigin = "user",
    ) -> Breakpoint:
        """A new enabled breakpoint with the next free number."""
        if kind == "exception":
            raise BreakpointError("the on-exception breakpoint is #0: enable or disable it")
        bp = Breakpoint(self._next, kind, target, condition or None, temporary, origin=origin)
        self._items[bp.number] = bp
        self._next += 1
        return bp

    def delete(self, number: int) -> Breakpoint:
        """Remove breakpoint ``number`` (#0 can only be disabled)."""
        bp = self.get(number)
        if number == EXCEPTION_BREAKPOINT:
            raise BreakpointError("breakpoint 0 (on exception) cannot be deleted; disable it")
        del self._items[number]
        return bp

    def clear(self) -> tuple[Breakpoint, ...]:
        """Remove every breakpoint but #0; returns the removed ones."""
        removed = tuple(bp for bp in self.all if bp.number != EXCEPTION_BREAKPOINT)
        for bp in removed:
            del self._items[bp.number]
        return removed

    def set_enabled(self, number: int, enabled: bool) -> Breakpoint:
        """Enable or disable breakpoint ``number`` (either way, it is no longer ``held``)."""
        bp = replace(self.get(number), enabled=enabled, held=False)
        self._items[number] = bp
        return bp

    def record_hit(self, bp: Breakpoint) -> Breakpoint:
        """Count a hit; a temporary breakpoint is deleted. Returns the updated breakpoint."""
        current = self._items.get(bp.number, bp)
        hit = replace(current, hits=current.hits + 1)
        if bp.temporary:
            self._items.pop(bp.number, None)
        else:
            self._items[bp.number] = hit
        return hit

    # -- matching ------------------------------------------------------------------------

    def matching_nodes(
        self, kind: Literal["before", "after"], names: Sequence[str]
    ) -> list[tuple[Breakpoint, tuple[str, ...]]]:
        """Enabled ``kind`` breakpoints whose node is among ``names``, with the matched names."""
        out = []
        for bp in self.all:
            if bp.kind != kind or not bp.enabled:
                continue
            if bp.target == ANY_NODE:
                matched = tuple(n for n in names if n != START)
            else:
                matched = tuple(n for n in names if n == bp.target)
            if matched:
                out.append((bp, tuple(dict.fromkeys(matched))))
        return out

    def watches(self, channels: Iterable[str]) -> list[Breakpoint]:
        """Enabled watches on any of ``channels``."""
        changed = set(channels)
        return [bp for bp in self.all if bp.kind == "watch" and bp.enabled and bp.target in changed]

    def _no_such(self, number: int) -> str:
        known = ", ".join(str(n) for n in self.numbers())
        return f"no breakpoint number {number} (breakpoints: {known})"


# -- breakpoints from a session file -------------------------------------------------------

_CHOICES: dict[str, tuple[Any, ...]] = {
    "kind": get_args(BreakKind),
    "origin": get_args(BreakOrigin),
}
_TYPES: dict[str, tuple[type, ...]] = {
    "target": (str,), "condition": (str, type(None)), "temporary": (bool,),
    "enabled": (bool,), "held": (bool,),
}  # fmt: skip


def _check_field(name: str, value: Any) -> None:
    if name in ("number", "hits"):
        if type(value) is not int or value < 0:
            raise BreakpointError(f"{name!r} is {value!r}, not a whole number >= 0")
    elif name in _CHOICES:
        if value not in _CHOICES[name]:
            choices = ", ".join(_CHOICES[name])
            raise BreakpointError(f"{name!r} is {value!r}, not one of {choices}")
    elif not isinstance(value, _TYPES[name]):
        raise BreakpointError(f"{name!r} is {value!r}, of the wrong type")
    elif isinstance(value, str) and not value.isprintable():
        raise BreakpointError(f"{name!r} holds control characters: {value!r}")


def _check_consistent(bp: Breakpoint) -> None:
    if (bp.number == EXCEPTION_BREAKPOINT) != (bp.kind == "exception"):
        raise BreakpointError(f"breakpoint {bp.number} of kind {bp.kind!r}: only #0 is 'exception'")
    if bp.kind != "exception" and not bp.target:
        raise BreakpointError(f"breakpoint {bp.number} ({bp.kind}) names no node or channel")
    if bp.kind == "exception" and (bp.target or bp.condition):
        raise BreakpointError("breakpoint 0 (on exception) has a target or a condition")


def from_dicts(items: Iterable[Mapping[str, Any]]) -> list[Breakpoint]:
    """The breakpoints ``items`` describe, each checked by :meth:`Breakpoint.from_dict`;
    raises :class:`BreakpointError` (saying which item) for a bad one or a number used twice."""
    out: dict[int, Breakpoint] = {}
    for index, item in enumerate(items, 1):
        try:
            bp = Breakpoint.from_dict(item)
        except BreakpointError as exc:
            raise BreakpointError(f"item {index}: {exc}") from None
        if bp.number in out:
            raise BreakpointError(f"item {index}: breakpoint number {bp.number} is used twice")
        out[bp.number] = bp
    return list(out.values())


def restore(items: Iterable[Mapping[str, Any]], *, trusted: bool) -> list[Breakpoint]:
    """The breakpoints of a session file, checked as by :func:`from_dicts`.

    Unless ``trusted``, a breakpoint with a condition is disabled and ``held``: its condition
    is code from the file, evaluated only once the user enables it. Trusted, a held one is
    enabled again.
    """
    out = []
    for bp in from_dicts(items):
        if trusted and bp.held:
            bp = replace(bp, enabled=True, held=False)
        elif not trusted and bp.condition and (bp.enabled or bp.held):
            bp = replace(bp, enabled=False, held=True)
        out.append(bp)
    return out


def held_notes(breakpoints: Iterable[Breakpoint]) -> tuple[str, ...]:
    """One line per breakpoint :func:`restore` holds disabled, saying how to enable it."""
    return tuple(
        f"breakpoint {bp.number} ({bp.describe()}) from the session file is disabled: "
        f"`enable {bp.number}` to use it"
        for bp in breakpoints
        if bp.held and not bp.enabled
    )
