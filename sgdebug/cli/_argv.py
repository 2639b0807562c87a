"""The two commands that open the TUI, read without typer when their command line is plain.

``sgdebug TARGET`` (``open``) and ``sgdebug demo [NAME]`` are how a user starts the
debugger, and typer costs them a quarter of the time to the first screen (importing it and
pydantic, and building a pydantic validator for every option: about 70 ms of CPU). So
:func:`direct_command` reads such a command line itself, but only a plain one: the options
of :data:`OPEN_OPTIONS` and :data:`DEMO_OPTIONS` (every option those commands take but
``demo --list``), each once (the repeatable ones as often as wanted), given as ``--name
VALUE``, ``--name=VALUE`` or ``-x VALUE``, with values typer would accept as they are. For
anything else (help, a typo, a value typer would refuse or convert, an unusual spelling)
it returns ``None`` and typer reads the command line, so every message and error stays
typer's own. Both ways end in the same functions of :mod:`sgdebug.cli._front_ends` with
the same :class:`~sgdebug.cli._setup.LaunchOptions` (``tests/cli/test_argv.py`` compares
them, and these tables with the typer commands' options).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

__all__ = ["DEMO_OPTIONS", "OPEN_OPTIONS", "Direct", "Option", "direct_command", "read"]

Kind = Literal["text", "nodes", "path", "limit", "engine", "switch"]


@dataclass(frozen=True, slots=True)
class Option:
    """An option of ``open`` or ``demo`` as this module reads it."""

    names: tuple[str, ...]
    """Its spellings, as the typer command declares them (``--input``, ``-i``)."""
    field: str
    """The field of :class:`~sgdebug.cli._setup.LaunchOptions` it sets."""
    kind: Kind
    """``text``: a string as given; ``nodes``: repeatable, each a string; ``path``: a
    path; ``limit``: a positive integer in plain digits; ``engine``: ``native`` or
    ``langgraph``; ``switch``: a flag without a value."""


_SHARED = (
    Option(("--input", "-i"), "input", "text"),
    Option(("--break-before", "-b"), "break_before", "nodes"),
    Option(("--break-after", "-a"), "break_after", "nodes"),
    Option(("--session",), "session", "path"),
    Option(("--recursion-limit",), "recursion_limit", "limit"),
    Option(("--engine", "-e"), "engine", "engine"),
    Option(("--trust",), "trust", "switch"),
)
OPEN_OPTIONS: tuple[Option, ...] = (*_SHARED, Option(("--thread",), "thread", "text"))
"""What ``sgdebug [open] TARGET`` takes."""
DEMO_OPTIONS: tuple[Option, ...] = _SHARED
"""What ``sgdebug demo [NAME]`` takes (``--list`` is left to typer)."""

_LIMIT = re.compile(r"[1-9][0-9]{0,17}")
_ENGINES = ("native", "langgraph")


@dataclass(frozen=True, slots=True)
class Direct:
    """A plain ``open`` or ``demo`` command line, read."""

    command: Literal["open", "demo"]
    positional: str | None
    """TARGET (``open``) or NAME (``demo``), if given."""
    values: tuple[tuple[str, object], ...]
    """The options given, as (:class:`~sgdebug.cli._setup.LaunchOptions` field, value)."""


def read(argv: Sequence[str]) -> Direct | None:
    """``argv`` (without the program's name) read as a plain ``open`` or ``demo`` command
    line, or ``None`` when typer should read it."""
    if not argv:
        return None
    first, rest = argv[0], list(argv[1:])
    if first in ("open", "demo"):
        command: Literal["open", "demo"] = "open" if first == "open" else "demo"
    elif not (":" in first or first.startswith("-")):
        return None  # another command (their names have no colon), or a typo: typer's
    else:
        command, rest = "open", list(argv)  # `sgdebug TARGET ...` is `sgdebug open TARGET ...`
    return _read_command(command, rest)


def _read_command(command: Literal["open", "demo"], args: list[str]) -> Direct | None:
    table = {name: option for option in (OPEN_OPTIONS if command == "open" else DEMO_OPTIONS)
             for name in option.names}  # fmt: skip
    positional: list[str] = []
    values: dict[str, object] = {}
    while args:
        arg = args.pop(0)
        if not arg.startswith("-"):
            positional.append(arg)
            continue
        name, equals, inline = arg.partition("=")
        option = table.get(name)
        if option is None or (equals and (option.kind == "switch" or not name.startswith("--"))):
            return None
        if option.kind == "switch" or equals:
            value = _value(option, inline)
        else:
            value = _value(option, args.pop(0) if args else "")
        if value is None or (option.kind != "nodes" and option.field in values):
            return None
        previous = values.get(option.field, ())
        if option.kind == "nodes" and isinstance(previous, tuple):
            value = (*previous, value)
        values[option.field] = value
    if len(positional) > 1 or "" in positional:
        return None
    return Direct(command, positional[0] if positional else None, tuple(values.items()))


def _value(option: Option, text: str) -> object:
    """``text`` as ``option``'s value, or ``None`` when typer should judge it."""
    if option.kind == "switch":
        return True
    if not text or text.startswith("-"):
        return None
    if option.kind == "path":
        return Path(text)
    if option.kind == "limit":
        return int(text) if _LIMIT.fullmatch(text) else None
    if option.kind == "engine":
        return text if text in _ENGINES else None
    return text


def direct_command(argv: Sequence[str]) -> Callable[[], int] | None:
    """What a plain ``open`` or ``demo`` command line runs (calling it returns the exit
    status), or ``None`` when typer should read ``argv``."""
    import dataclasses

    direct = read(argv)
    if direct is None:
        return None
    from sgdebug.cli._front_ends import open_demo, open_front_end
    from sgdebug.cli._setup import LaunchOptions

    values: dict[str, Any] = dict(direct.values)
    if direct.command == "open":
        options = dataclasses.replace(LaunchOptions(direct.positional, None), **values)
        return lambda: open_front_end("tui", options)
    engine = values.pop("engine", None)
    options = dataclasses.replace(LaunchOptions(None, None), **values)
    return lambda: open_demo(direct.positional, None if engine is None else str(engine), options)
