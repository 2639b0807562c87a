"""Key bindings of the prompt, each set loaded by a ``load_*_bindings()`` gated by filters.

* Enter runs a command or complete Python, and opens a new (indented) line inside a
  Python block; an empty line ends a block; Meta+Enter (Esc, Enter) always runs.
* Enter with a completion selected runs the line as completed.
* Tab at the start of a block line indents instead of completing.

Ctrl+R (history search), Ctrl+C (drop the line) and Ctrl+D (quit) are prompt-toolkit's own.
"""

from __future__ import annotations

from prompt_toolkit.application import get_app
from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import Condition, has_focus, has_selection
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent, merge_key_bindings
from prompt_toolkit.key_binding.key_bindings import KeyBindingsBase

from sgdebug.repl.commands import is_complete

__all__ = [
    "INDENT",
    "load_accept_bindings",
    "load_indent_bindings",
    "load_repl_bindings",
]

INDENT = "    "


@Condition
def _complete() -> bool:
    return is_complete(get_app().current_buffer.document.text)


@Condition
def _in_block_indent() -> bool:
    document = get_app().current_buffer.document
    return "\n" in document.text_before_cursor and not document.current_line_before_cursor.strip()


def load_accept_bindings() -> KeyBindingsBase:
    """Enter: run a complete entry, or continue a block."""
    bindings = KeyBindings()
    editing = has_focus(DEFAULT_BUFFER) & ~has_selection

    @bindings.add("enter", filter=editing & _complete)
    def run_entry(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @bindings.add("enter", filter=editing & ~_complete)
    def continue_block(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        line = buffer.document.current_line_before_cursor
        indent = line[: len(line) - len(line.lstrip())]
        if line.rstrip().endswith(":"):
            indent += INDENT
        buffer.insert_text("\n" + indent)

    @bindings.add("escape", "enter", filter=editing)
    def run_now(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return bindings


def load_indent_bindings() -> KeyBindingsBase:
    """Tab at the start of a line inside a block indents (elsewhere it completes)."""
    bindings = KeyBindings()

    @bindings.add("tab", filter=has_focus(DEFAULT_BUFFER) & _in_block_indent)
    def indent(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text(INDENT)

    return bindings


def load_repl_bindings() -> KeyBindingsBase:
    """Every binding the REPL adds to prompt-toolkit's defaults."""
    return merge_key_bindings([load_accept_bindings(), load_indent_bindings()])
