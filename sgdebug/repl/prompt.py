"""What the prompt looks like: the ``(sgdebug)`` message with step and run state, the
continuation prompt, the bottom toolbar, syntax highlighting and the style.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.lexers import Lexer, PygmentsLexer
from prompt_toolkit.styles import Style

from sgdebug.debugger import Session, SessionView
from sgdebug.debugger.render import describe_stop
from sgdebug.repl.commands import classify

__all__ = [
    "STYLE",
    "ReplLexer",
    "ToolbarParts",
    "continuation",
    "fit_toolbar",
    "message",
    "status_text",
    "toolbar",
]

STYLE: Final = Style.from_dict(
    {
        "prompt": "bold",
        "prompt.step": "ansicyan",
        "prompt.status": "ansiyellow",
        "prompt.status.idle": "ansigray",
        "prompt.status.done": "ansigreen",
        "prompt.status.error": "ansired bold",
        "prompt.status.failed": "ansired bold",
        "prompt.status.interrupted": "ansimagenta",
        "prompt.continuation": "ansigray",
        "command": "bold ansicyan",
        "bang": "bold ansimagenta",
        "completion.unavailable": "fg:ansigray",
        "bottom-toolbar": "noreverse bg:ansiblack fg:ansigray",
        "bottom-toolbar.status": "bold fg:ansiyellow",
    }
)
PROMPT: Final = "(sgdebug) "


def status_text(view: SessionView) -> str:
    """``step 3 · paused`` (or ``idle`` before the first run)."""
    if view.thread_id is None:
        return view.status
    where = f" in {view.error.node}" if view.error is not None and view.error.node else ""
    return f"step {view.step} · {view.status}{where}"


def message(session: Session) -> Callable[[], StyleAndTextTuples]:
    """The prompt: the step and run state, then ``(sgdebug)``."""

    def render() -> StyleAndTextTuples:
        view = session.view()
        style = f"class:prompt.status.{view.status}"
        if view.thread_id is None:
            return [(style, f"{view.status} "), ("class:prompt", PROMPT)]
        text = status_text(view).removeprefix(f"step {view.step} · ")
        return [
            ("class:prompt.step", f"step {view.step}"),
            ("", " · "),
            (f"class:prompt.status {style}", text),
            ("", " "),
            ("class:prompt", PROMPT),
        ]

    return render


def continuation(width: int, line_number: int, wrap_count: int) -> StyleAndTextTuples:
    """``...`` right-aligned under the prompt, for the lines of a block."""
    return [("class:prompt.continuation", "... ".rjust(width))]


_STOP_MIN: Final = 16
"""The least of the stop's text worth showing; with less room it is left out."""


def toolbar(
    session: Session, *, nested: bool = False, columns: Callable[[], int] | None = None
) -> Callable[[], StyleAndTextTuples]:
    """The target, why the run stopped, the breakpoints, and the keys (``nested``: the REPL
    was opened from the TUI, and Ctrl+D goes back to it), fitted to the terminal's
    ``columns`` (see :func:`fit_toolbar`)."""
    leave = "Ctrl+D back to the TUI" if nested else "Ctrl+D quit"
    width = columns or _columns

    def render() -> StyleAndTextTuples:
        view = session.view()
        stop = describe_stop(view.stop).splitlines()[0] if view.stop is not None else ""
        enabled = sum(1 for b in view.breakpoints if b.enabled and b.number != 0)
        engine = f" [{view.engine.engine}]" if view.engine is not None else ""
        label, status, keys = fit_toolbar(
            ToolbarParts(f"{view.label}{engine}", status_text(view), stop, enabled, leave),
            width(),
        )
        return [
            ("class:bottom-toolbar", label),
            ("class:bottom-toolbar.status", status),
            ("class:bottom-toolbar", keys),
        ]

    return render


@dataclass(frozen=True, slots=True)
class ToolbarParts:
    """What the toolbar says, before it is fitted to the terminal."""

    target: str
    """The target and its engine: ``pkg.module:graph [native]``."""
    status: str
    """``step 3 · paused``."""
    stop: str
    """Why the run stopped (first line), or empty."""
    breakpoints: int
    """Enabled breakpoints (not counting #0, on exception)."""
    leave: str
    """How to leave (``Ctrl+D quit``)."""


def fit_toolbar(parts: ToolbarParts, columns: int) -> tuple[str, str, str]:
    """The toolbar's text before the status, the status, and the text after it, within
    ``columns``: as it fits, the target loses its package path, the keys their hints, the
    stop its end (with …), then the stop goes, then the target: the run's status, the
    breakpoint count and how to leave stay."""
    target = parts.target
    short = target.rpartition(".")[2] if ":" in target else target
    hints = "Tab complete · Ctrl+R search · "
    for shown, keys in ((target, hints), (short, hints), (short, "")):
        line = _toolbar_line(parts, shown, parts.stop, keys)
        if sum(map(len, line)) <= columns:
            return line
    bare = _toolbar_line(parts, short, "", "")
    room = columns - sum(map(len, bare)) - 2
    if room >= min(len(parts.stop), _STOP_MIN):
        stop = parts.stop if len(parts.stop) <= room else parts.stop[: room - 1] + "…"
        return _toolbar_line(parts, short, stop, "")
    if sum(map(len, bare)) <= columns:
        return bare
    return _toolbar_line(parts, "", "", "")


def _toolbar_line(parts: ToolbarParts, target: str, stop: str, keys: str) -> tuple[str, str, str]:
    before = f" {target}  " if target else " "
    middle = f"  {stop}" if stop else ""
    return (
        before,
        parts.status,
        f"{middle}  breakpoints: {parts.breakpoints}  │ {keys}{parts.leave} ",
    )


def _columns() -> int:
    """The terminal's width (the prompt's output when a prompt runs)."""
    from prompt_toolkit.application import get_app_or_none

    app = get_app_or_none()
    if app is not None and app.is_running:
        return app.output.get_size().columns
    return shutil.get_terminal_size().columns


class ReplLexer(Lexer):
    """Commands: the command word highlighted, expressions as Python. Python: Python."""

    def __init__(self) -> None:
        self.python = PygmentsLexer.from_filename("line.py")

    def lex_document(self, document: Document) -> Callable[[int], StyleAndTextTuples]:
        text = document.text
        stripped = text.lstrip()
        lead = len(text) - len(stripped)
        if stripped.startswith("!"):
            return self._prefixed(document, lead + 1, "class:bang")
        if classify(text).kind == "command":
            word = stripped.split(maxsplit=1)[0]
            return self._prefixed(document, lead + len(word), "class:command")
        return self.python.lex_document(document)

    def _prefixed(
        self, document: Document, width: int, style: str
    ) -> Callable[[int], StyleAndTextTuples]:
        """Line 0's first ``width`` characters in ``style``; the rest lexed as Python."""
        lines = document.lines
        first = lines[0]
        padded = Document("\n".join([" " * width + first[width:], *lines[1:]]))
        python = self.python.lex_document(padded)

        def get_line(number: int) -> StyleAndTextTuples:
            fragments = python(number)
            if number != 0:
                return fragments
            return [(style, first[:width]), *_drop(fragments, width)]

        return get_line


def _drop(fragments: StyleAndTextTuples, count: int) -> StyleAndTextTuples:
    """``fragments`` without their first ``count`` characters."""
    out: StyleAndTextTuples = []
    for fragment in fragments:
        style, text = fragment[0], fragment[1]
        if count >= len(text):
            count -= len(text)
            continue
        out.append((style, text[count:]))
        count = 0
    return out
