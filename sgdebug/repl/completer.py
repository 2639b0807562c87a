"""Completion: a ``NestedCompleter`` over the command words, fed by the registry's callables.

The first word completes to a command name (with its summary; commands that cannot run
now are dimmed). After a command word, each command's :class:`ArgumentCompleter` asks the
registry (``CommandSpec.complete``) what may come next: node names after ``break before``,
``until`` and ``as``, channel names after ``set`` and ``watch``, snapshot numbers after
``goto`` and ``diff``, keywords (``if``, ``as``, ``=``). Where an expression goes, and for
lines that are Python, :class:`PythonCompleter` completes names, attributes and
``state[`` keys.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Iterable
from typing import Any, Final

from prompt_toolkit.completion import (
    CompleteEvent,
    Completer,
    Completion,
    DeduplicateCompleter,
    NestedCompleter,
    merge_completers,
)
from prompt_toolkit.document import Document

from sgdebug.debugger import COMMANDS, CommandSpec, HistoryEntry, Session
from sgdebug.debugger.parsing import split_words
from sgdebug.repl.commands import classify
from sgdebug.repl.python import PythonRunner

__all__ = ["ArgumentCompleter", "CommandCompleter", "PythonCompleter", "repl_completer"]

_STATE_KEY: Final = re.compile(r"\bstate\[\s*(['\"]?)(\w*)$")
_ATTRIBUTE: Final = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
_NAME: Final = re.compile(r"[A-Za-z_]\w*$")
_UNAVAILABLE: Final = "class:completion.unavailable"


class PythonCompleter(Completer):
    """Names, ``obj.attr`` and ``state["key"]`` in Python source and expressions."""

    def __init__(self, session: Session, runner: PythonRunner) -> None:
        self.session = session
        self.runner = runner

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        if match := _STATE_KEY.search(text):
            yield from self._state_keys(match.group(1), match.group(2))
        elif match := _ATTRIBUTE.search(text):
            yield from self._attributes(match.group(1), match.group(2))
        elif (match := _NAME.search(text)) and match.group():
            prefix = match.group()
            for name in [*self.runner.names(), *keyword.kwlist]:
                if name.startswith(prefix) and name != prefix:
                    yield Completion(name, -len(prefix))

    def _state_keys(self, quote: str, prefix: str) -> Iterable[Completion]:
        mark = quote or '"'
        for name in self.session.channel_names:
            if name.startswith(prefix):
                text = f"{mark}{name}{mark}]"
                yield Completion(
                    text, -(len(quote) + len(prefix)), display=name, display_meta="state key"
                )

    def _attributes(self, dotted: str, prefix: str) -> Iterable[Completion]:
        head, *rest = dotted.split(".")
        try:
            value = self.runner.lookup(head)
            for part in rest:
                value = getattr(value, part)
            names = dir(value)
        except Exception:
            return
        for name in names:
            if name.startswith(prefix) and (prefix.startswith("_") or not name.startswith("_")):
                yield Completion(name, -len(prefix))


class ArgumentCompleter(Completer):
    """The arguments of one command, from the registry; Python where an expression goes."""

    def __init__(self, session: Session, spec: CommandSpec, python: Completer) -> None:
        self.session = session
        self.spec = spec
        self.python = python

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        words = split_words(text)
        current = "" if not text or text[-1].isspace() else (words.pop() if words else "")
        found = [c for c in self.spec.complete(self.session, words) if c.startswith(current)]
        if not found:
            yield from self.python.get_completions(document, complete_event)
            return
        meta = _Meta(self.session, self.spec)
        for candidate in found:
            yield Completion(candidate, -len(current), display_meta=meta.of(candidate))


class _Meta:
    """What a candidate is (node, channel, snapshot step...), computed when shown."""

    def __init__(self, session: Session, spec: CommandSpec) -> None:
        self.session = session
        self.kinds = {arg.kind for arg in spec.args}
        self._entries: dict[str, HistoryEntry] | None = None

    def of(self, candidate: str) -> Callable[[], str]:
        return lambda: self.describe(candidate)

    def describe(self, candidate: str) -> str:
        session = self.session
        if candidate.isdigit() and "snapshot" in self.kinds:
            entry = self.entries().get(candidate)
            if entry is None:
                return "snapshot"
            ran = f" ran {', '.join(entry.ran)}" if entry.ran else ""
            here = " (here)" if entry.current else ""
            return f"step {entry.step} {entry.source}{ran}{here}"
        if candidate.isdigit() and "breakpoint" in self.kinds:
            found = [b for b in session.breakpoints if str(b.number) == candidate]
            return found[0].describe() if found else "breakpoint"
        if candidate in session.node_names:
            return "node"
        if candidate in session.node_paths:
            return f"node in subgraph {candidate.rsplit('/', 1)[0]}"
        if candidate in session.channel_names:
            return "channel"
        if "channel" in self.kinds and "/" in candidate:
            return f"channel of subgraph {candidate.rsplit('/', 1)[0]}"
        return ""

    def entries(self) -> dict[str, HistoryEntry]:
        if self._entries is None:
            outcome = self.session.history() if self.session.started else None
            values = outcome.value if outcome is not None and outcome.ok else ()
            self._entries = {str(e.index): e for e in values}
        return self._entries


class CommandCompleter(NestedCompleter):
    """Command names first (with summaries), then each command's arguments."""

    def __init__(self, session: Session, options: dict[str, Completer | None]) -> None:
        super().__init__(options, ignore_case=False)
        self.session = session

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor.lstrip()
        if " " in text:
            yield from super().get_completions(document, complete_event)
            return
        for spec in COMMANDS:
            if spec.name.startswith(text):
                reason = self.session.why_not(spec.name)
                yield Completion(
                    spec.name,
                    -len(text),
                    display_meta=spec.summary if reason is None else f"({reason})",
                    style="" if reason is None else _UNAVAILABLE,
                )


class ReplCompleter(Completer):
    """Commands and their arguments, or Python, depending on what the line is."""

    def __init__(self, commands: Completer, python: Completer) -> None:
        self.commands = commands
        self.python = python
        self.first_word = DeduplicateCompleter(merge_completers([commands, python]))

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        text = document.text_before_cursor
        stripped = text.lstrip()
        if stripped.startswith("!") or "\n" in stripped:
            yield from self.python.get_completions(document, complete_event)
        elif " " not in stripped:
            chosen = self.first_word if stripped else self.commands
            yield from chosen.get_completions(document, complete_event)
        elif classify(text + "x").kind == "command":
            yield from self.commands.get_completions(document, complete_event)
        else:
            yield from self.python.get_completions(document, complete_event)


def repl_completer(session: Session, runner: PythonRunner) -> Completer:
    """The REPL's completer for ``session``."""
    python = PythonCompleter(session, runner)
    options: dict[str, Any] = {
        word: ArgumentCompleter(session, spec, python) for spec in COMMANDS for word in spec.words
    }
    commands = CommandCompleter(session, options)
    return ReplCompleter(commands, python)
