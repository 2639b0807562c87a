"""A node's details (Enter or a click in the graph): source, edges, breakpoints, status."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["NodeDetails", "NodeScreen"]


@dataclass(frozen=True, slots=True)
class NodeDetails:
    """What the screen shows about one node."""

    name: str
    status: str
    """The status in words."""
    source: str
    """``file.py:12 (function)``, or why it is unknown."""
    incoming: tuple[str, ...]
    """``START ──▶``-style lines for the edges into the node."""
    outgoing: tuple[str, ...]
    """Lines for the edges out of the node."""
    breakpoints: tuple[str, ...]
    """``#2 before attempt if ...`` lines."""
    timing: str = ""
    """How long its last task ran (``12.3 ms``) and, after several, all of them, when the
    engine timed them."""
    runs: str = ""
    """The graph it runs, when it runs one: a subgraph node, or the compiled graphs its
    function invokes."""


class NodeScreen(ModalScreen[None]):
    """One node's details; Escape closes."""

    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close", id="close_node")]

    def __init__(self, details: NodeDetails) -> None:
        super().__init__(id="node")
        self.details = details

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="node-body") as body:
            body.border_title = f"node {self.details.name}"
            body.border_subtitle = "b/B toggle breakpoints · Esc closes"
            yield Static(_render(self.details), markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


def _section(text: Text, title: str, lines: Sequence[str], empty: str) -> None:
    text.append(f"\n{title}\n", style="bold")
    for line in lines or (empty,):
        text.append(f"  {line}\n")


def _render(details: NodeDetails) -> Text:
    text = Text()
    text.append(details.name, style="bold")
    text.append(f"  {details.status}\n")
    if details.timing:
        text.append(f"last run: {details.timing}\n")
    text.append(f"source: {details.source}\n")
    if details.runs:
        text.append(f"runs: {details.runs}\n")
    _section(text, "Edges in", details.incoming, "(none)")
    _section(text, "Edges out", details.outgoing, "(none)")
    _section(text, "Breakpoints", details.breakpoints, "(none: b breaks before, B after)")
    text.rstrip()
    return text
