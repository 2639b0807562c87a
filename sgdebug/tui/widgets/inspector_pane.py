"""The value inspector: a lazily expanded tree of one value (a channel's, or a snapshot's state).

Children are built only when a node is expanded, a page at a time (a ``… more`` node holds
the next page), so a 100,000-item list costs one page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from sgdebug.inspect import ValueNode, value_tree

__all__ = ["InspectorPane"]

_PREVIEW_WIDTH = 60


class InspectorPane(Tree[ValueNode]):
    """The value of the selected channel or snapshot, expandable node by node."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("(nothing selected)"), id=id)  # text: no markup to parse
        self.show_root = True
        self.guide_depth = 2
        self.subject = ""
        """What is shown: ``channel count`` or ``snapshot #3 (read-only)``."""

    def show_value(self, subject: str, label: str, value: Any) -> None:
        """Show ``value`` (called ``label``) as a tree; ``subject`` titles the pane."""
        self.subject = subject
        self.border_subtitle = subject
        root_value = value_tree(value, label, width=_PREVIEW_WIDTH)
        self.clear()
        self.root.data = root_value
        self.root.set_label(_label(root_value))
        self.root.allow_expand = root_value.has_children
        if root_value.has_children:
            self._fill(self.root)
            self.root.expand()

    def show_snapshot(self, index: int, load: Callable[[], Any]) -> None:
        """Show snapshot ``index``'s state, read by ``load`` in a thread (it may be big)."""
        self.show_nothing(f"Loading snapshot #{index}…")
        self.subject = self.border_subtitle = _snapshot_subject(index)
        self._load(index, load)

    @work(thread=True, exclusive=True, group="inspect")
    def _load(self, index: int, load: Callable[[], Any]) -> None:
        try:
            values = load()
        except Exception as exc:  # the snapshot is gone or unreadable: say so
            self.app.call_from_thread(self.show_nothing, f"Snapshot #{index}: {exc}")
            return
        self.app.call_from_thread(self._loaded, index, values)

    def _loaded(self, index: int, values: Any) -> None:
        subject = _snapshot_subject(index)
        if self.subject == subject:
            self.show_value(subject, f"#{index}", values)

    def show_nothing(self, message: str) -> None:
        """An empty inspector with ``message``."""
        self.subject = ""
        self.border_subtitle = ""
        self.clear()
        self.root.data = None
        self.root.set_label(Text(message, style="dim"))
        self.root.allow_expand = False

    @on(Tree.NodeExpanded)
    def _load_children(self, event: Tree.NodeExpanded[ValueNode]) -> None:
        event.stop()
        if not event.node.children:
            self._fill(event.node)

    def _fill(self, node: TreeNode[ValueNode]) -> None:
        data = node.data
        if data is None:
            return
        for child in data.children():
            node.add(_label(child), data=child, allow_expand=child.has_children)


def _snapshot_subject(index: int) -> str:
    return f"snapshot #{index} (read-only)"


def _label(node: ValueNode) -> Text:
    if node.kind == "more":
        return Text(f"{node.label} {node.preview}", style="dim italic")
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(node.label, style="bold")
    size = f"[{node.size}]" if node.size is not None and node.has_children else ""
    text.append(f" {node.type_name}{size} ", style="dim")
    if not node.has_children or node.size is None:
        text.append(node.preview)
    return text
