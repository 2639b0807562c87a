"""Reading a command line against a command's argument specification.

Arguments are words (node, channel, snapshot, number, a fixed choice), flags (``--all``:
given or not) or a Python expression that runs to the end of the line, or up to the
keyword of a later clause (``update {...} as NODE``): the keyword counts only outside
brackets and strings, so expressions may contain it. Errors say what was expected, with
the usage line.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Arg", "ArgKind", "ParseError", "parse_args", "split_words", "usage_of"]

ArgKind = Literal[
    "int", "node", "channel", "snapshot", "breakpoint", "command", "choice", "expr", "flag"
]

_PLACEHOLDER = {
    "int": "N",
    "node": "NODE",
    "channel": "CHANNEL",
    "snapshot": "SNAP",
    "breakpoint": "N",
    "command": "COMMAND",
    "expr": "EXPR",
}
_WORD = re.compile(r"""'[^']*'|"[^"]*"|[^\s=]+|=""")


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of a command."""

    name: str
    """Its key in the parsed arguments."""
    kind: ArgKind
    optional: bool = False
    keyword: str | None = None
    """A literal that introduces it (``if``, ``as``, ``=``); a ``flag`` is that literal
    alone (``--all``), its value ``True`` when given."""
    choices: tuple[str, ...] = ()
    """For ``choice`` (and words ``breakpoint`` also accepts, like ``all``)."""
    placeholder: str | None = None
    """How usage shows it (default from the kind: ``NODE``, ``EXPR``...)."""
    paths: bool = False
    """A ``channel`` that may be a subgraph's, by path (``research/notes``: ``watch``):
    completion offers those too where the engine stops inside subgraphs."""

    @property
    def shown(self) -> str:
        """The argument as usage shows it."""
        if self.kind == "flag":
            return f"[{self.keyword}]"
        if self.kind == "choice":
            text = "|".join(self.choices)
        else:
            text = self.placeholder or _PLACEHOLDER[self.kind]
            if self.choices and self.kind in ("int", "breakpoint"):
                text = "|".join((text, *self.choices))
        if self.keyword:
            text = f"{self.keyword} {text}"
        return f"[{text}]" if self.optional else text


class ParseError(ValueError):
    """A command line that does not parse; ``str()`` says what was expected."""

    def __init__(self, message: str, *, command: str | None = None, usage: str | None = None):
        text = f"{command}: {message}" if command else message
        if usage:
            text += f" (usage: {usage})"
        super().__init__(text)
        self.command = command
        self.usage = usage
        self.reason = message


def usage_of(name: str, args: tuple[Arg, ...]) -> str:
    """``break before|after NODE [if EXPR]``."""
    return " ".join([name, *(a.shown for a in args)])


def split_words(text: str) -> list[str]:
    """Words of ``text`` (quotes group, ``=`` stands alone)."""
    return [_unquote(m.group()) for m in _WORD.finditer(text)]


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1]
    return word


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    @property
    def at_end(self) -> bool:
        self.skip()
        return self.pos >= len(self.text)

    def peek_word(self) -> str:
        self.skip()
        match = _WORD.match(self.text, self.pos)
        return match.group() if match else ""

    def word(self) -> str:
        self.skip()
        match = _WORD.match(self.text, self.pos)
        if match is None:
            return ""
        self.pos = match.end()
        return _unquote(match.group())

    def expression(self, stops: tuple[str, ...]) -> str:
        self.skip()
        rest = self.text[self.pos :]
        end = _keyword_offset(rest, stops) if stops else None
        chunk = rest if end is None else rest[:end]
        self.pos += len(chunk)
        return chunk.strip()


def _keyword_offset(text: str, keywords: tuple[str, ...]) -> int | None:
    """Where a top-level ``keywords`` token starts in ``text`` (outside brackets/strings)."""
    depth = 0
    lines = text.splitlines(keepends=True) or [""]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif (
                depth == 0
                and tok.string in keywords
                and tok.type
                in (
                    tokenize.NAME,
                    tokenize.OP,
                )
            ):
                row, col = tok.start
                return starts[row - 1] + col
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return None


def parse_args(name: str, args: tuple[Arg, ...], text: str) -> dict[str, Any]:
    """The arguments of command ``name`` read from ``text`` (the line after the command)."""
    usage = usage_of(name, args)
    reader = _Reader(text)
    values: dict[str, Any] = {}

    def fail(message: str) -> ParseError:
        return ParseError(message, command=name, usage=usage)

    for index, arg in enumerate(args):
        if arg.kind == "flag":
            if reader.peek_word() == arg.keyword:
                reader.word()
                values[arg.name] = True
            continue
        if arg.keyword is not None:
            if reader.at_end and arg.optional:
                continue
            found = reader.peek_word()
            if found != arg.keyword:
                got = f"got {found!r}" if found else "the line ended"
                raise fail(f"expected {arg.keyword!r}, {got}")
            reader.word()
        if reader.at_end:
            if arg.optional and arg.keyword is None:
                continue
            after = f" after {arg.keyword!r}" if arg.keyword else ""
            raise fail(f"expected {_expected(arg)}{after}")
        if arg.kind == "expr":
            stops = tuple(a.keyword for a in args[index + 1 :] if a.keyword)
            values[arg.name] = reader.expression(stops)
            if not values[arg.name]:
                raise fail(f"expected {_expected(arg)}")
        else:
            values[arg.name] = _convert(arg, reader.word(), fail)
    if not reader.at_end:
        raise fail(f"unexpected {reader.text[reader.pos :].strip()!r}")
    return values


def _expected(arg: Arg) -> str:
    if arg.kind == "choice":
        return " or ".join(repr(c) for c in arg.choices)
    if arg.kind in ("int", "breakpoint"):
        extra = " or ".join(repr(c) for c in arg.choices)
        base = f"a number {arg.placeholder or 'N'}"
        return f"{base} or {extra}" if extra else base
    descriptions = {
        "node": "a node name",
        "channel": "a channel name",
        "snapshot": "a snapshot (number from `history`, or checkpoint id)",
        "command": "a command name",
        "expr": "a Python expression",
    }
    return f"{descriptions[arg.kind]} {arg.placeholder or _PLACEHOLDER[arg.kind]}"


def _convert(arg: Arg, word: str, fail: Any) -> Any:
    if arg.kind == "choice":
        if word not in arg.choices:
            raise fail(f"expected {_expected(arg)}, got {word!r}")
        return word
    if arg.kind in ("int", "breakpoint"):
        if word in arg.choices:
            return word
        try:
            return int(word)
        except ValueError:
            raise fail(f"expected {_expected(arg)}, got {word!r}") from None
    if word == "=":
        raise fail(f"expected {_expected(arg)}, got '='")
    return word
