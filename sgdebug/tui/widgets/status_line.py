"""The status line: run state (with a symbol), step, target, engine and why the run stopped."""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from sgdebug.debugger import SessionStatus, SessionView
from sgdebug.debugger.render import describe_stop

__all__ = ["STATUS_SYMBOL", "StatusLine"]

STATUS_SYMBOL: Final[dict[SessionStatus, str]] = {
    "idle": "○",
    "running": "▶",
    "paused": "‖",
    "error": "✗",
    "interrupted": "⚑",
    "done": "✓",
    "aborted": "■",
    "failed": "✗",
    "closed": "·",
}
"""Each run state's symbol: the state reads the same without colour."""


class StatusLine(Static):
    """``‖ PAUSED  step 2  loop [native]  Stopped before step 2 at breakpoint 1 (before ...).``"""

    status: reactive[SessionStatus] = reactive("idle")
    """The run state; the widget gets the class ``-<status>`` for its colour."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._detail = ""
        self._step: int | None = None
        self._label = ""
        self._engine = ""

    def watch_status(self, old: SessionStatus, new: SessionStatus) -> None:
        self.remove_class(f"-{old}", update=False)
        self.add_class(f"-{new}")  # (the widget is styled once, for both classes)

    def show_view(self, view: SessionView) -> None:
        """Show where the session stands."""
        self._step = view.step if view.thread_id is not None else None
        self._label = view.label
        self._engine = view.engine.engine if view.engine is not None else ""
        stop = view.stop
        detail = describe_stop(stop).splitlines()[0] if stop is not None else "No run yet."
        self._detail = f"⚠ {view.fault}" if view.fault else detail
        self.status = view.status
        self._draw()

    def show_running(self, step: int | None, what: str) -> None:
        """Show a verb at work (``what``: the nodes running, a hint to pause)."""
        if step is not None:
            self._step = step
        self._detail = what
        self.status = "running"
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {STATUS_SYMBOL[self.status]} {self.status.upper()} ", style="bold")
        if self._step is not None:
            text.append(f" step {self._step} ")
        detail = f" {self._detail}"
        room = self.size.width - text.cell_len - Text(detail).cell_len
        label = self._label
        if self.size.width and room >= 0:  # (a message too long anyway keeps the label)
            label = _fitted(label, self._engine, room)
        if label:
            text.append(f" {label} ", style="dim")
            if self._engine:
                text.append(f"[{self._engine}] ", style="dim italic")
        text.append(detail)
        self.update(text)


def _fitted(label: str, engine: str, room: int) -> str:
    """The target's label as it fits in ``room`` cells beside the engine's name, so that
    a narrow terminal shows why the run stopped whole: the label whole, then the module's
    last part (``nested:graph``), then nothing."""
    extra = len(engine) + 3 if engine else 0
    module, colon, attr = label.rpartition(":")
    name = module.rsplit("/", 1)[-1]
    name = name if name.endswith(".py") else name.rpartition(".")[2]
    short = f"{name}{colon}{attr}" if colon else label
    for candidate in (label, short):
        if len(candidate) + 2 + extra <= room:
            return candidate
    return ""
