"""What the prompt looks like: the ``(sgdebug)`` message with step and run state, the
continuation prompt, the bottom toolbar, syntax highlighting and the style.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.lexers import Lexer, PygmentsLexer
from prompt_toolkit.styles import Style

from sgdebug.debugger import Session, SessionView
from sgdebug.debugger.render import describe_stop
from sgdebug.repl.commands import classify

__all__ = ["STYLE", "ReplLexer", "continuation", "message", "status_text", "toolbar"]

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


def toolbar(session: Session, *, nested: bool = False) -> Callable[[], StyleAndTextTuples]:
    """The target, why the run stopped, the breakpoints, and the keys (``nested``: the REPL
    was opened from the TUI, and Ctrl+D goes back to it)."""
    leave = "Ctrl+D back to the TUI" if nested else "Ctrl+D quit"

    def render() -> StyleAndTextTuples:
        view = session.view()
        stop = describe_stop(view.stop).splitlines()[0] if view.stop is not None else ""
        enabled = sum(1 for b in view.breakpoints if b.enabled and b.number != 0)
        engine = f" [{view.engine.engine}]" if view.engine is not None else ""
        return [
            ("class:bottom-toolbar", f" {view.label}{engine}  "),
            ("class:bottom-toolbar.status", status_text(view)),
            ("class:bottom-toolbar", f"  {stop}  breakpoints: {enabled}  "),
            ("class:bottom-toolbar", f"│ Tab complete · Ctrl+R search · {leave} "),
        ]

    return render


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
