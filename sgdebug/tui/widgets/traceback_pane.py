"""The traceback pane: a node's exception, where it was raised, and what to do next."""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import ScrollableContainer
from textual.widgets import Static

from sgdebug.debugger import ErrorInfo, SessionStatus, describe_failure

__all__ = ["TracebackPane"]

_TASK_NOTE = re.compile(r"^During task with name '.*' and id '[^']*'$")
"""The runtime's PEP 678 note naming the task: the title above already names the node."""


class TracebackPane(ScrollableContainer, can_focus=True):
    """Shown instead of the diff while the run stands on an exception."""

    COMPONENT_CLASSES = {"traceback-pane--title"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._head = Static("", markup=False, id="traceback-head")
        self._body = Static("", markup=False, id="traceback-body")
        self.error: ErrorInfo | None = None

    def compose(self) -> ComposeResult:
        yield self._head
        yield self._body

    def show_error(self, error: ErrorInfo, status: SessionStatus) -> None:
        """Show ``error``; ``status`` (``error`` or ``failed``) decides the advice."""
        self.error = error
        title = self.get_component_rich_style("traceback-pane--title")
        head = Text()
        if error.phase != "task":  # the step's commit (which channel, whose writes) or inputs
            head.append(f"✗ {describe_failure(error)}\n", style=title)
        else:
            where = f"Node {error.node!r}" if error.node else "The run"
            head.append(f"✗ {where} raised {error.error_type}: {error.message}\n", style=title)
        if status == "error":
            head.append(
                f"Nothing of step {error.step} was committed. R retries the step, "
                "e edits a value first, x aborts the run.",
                style="bold",
            )
        else:
            head.append("The run stopped. r restarts it; goto N resumes from a snapshot.")
        self._head.update(head)
        kept = "(no frame of your code)" if error.phase != "task" else "(no traceback kept)"
        self._body.update(Text(_without_task_note(error.traceback) or kept))
        self.border_subtitle = f"step {error.step}"

    @property
    def text(self) -> str:
        """Everything the pane shows, as plain text."""
        return f"{self._head.render()}\n{self._body.render()}"


def _without_task_note(traceback: str) -> str:
    lines = [line for line in traceback.rstrip().splitlines() if not _TASK_NOTE.match(line)]
    return "\n".join(lines)
