"""The history tree of a thread, from ``get_state_history`` snapshots.

Snapshots link to their parents; resuming or editing an old snapshot starts a branch.
:func:`history_tree` rebuilds that tree and flattens it into display rows, oldest first,
with tree prefixes (``├─``, ``└─``, ``│``) so a front end prints each row as
``prefix + its own text``. A straight run of steps stays at one indentation; only branch
points indent their children.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sgdebug.runtime import StateSnapshot

__all__ = [
    "HistoryNode",
    "HistoryRow",
    "HistoryTree",
    "SnapshotLink",
    "history_tree",
    "link_tree",
    "short_ids",
]

SHORT_ID_MIN: Final = 6
"""Shortest short id."""
PREFIX_MID: Final = "├─"
PREFIX_LAST: Final = "└─"
PREFIX_PIPE: Final = "│ "
PREFIX_BLANK: Final = "  "


@dataclass(frozen=True, slots=True)
class HistoryNode:
    """One snapshot in the history tree."""

    id: str
    """Its checkpoint id."""
    short_id: str
    """The shortest stretch of the id that tells it apart from the others in the tree."""
    index: int
    """Position in creation order (0 = oldest snapshot given)."""
    parent_id: str | None
    """The parent's checkpoint id (it may be missing from the tree, e.g. with ``limit``)."""
    children: tuple[str, ...]
    """Children's ids, oldest first."""
    step: int
    """``metadata['step']``."""
    source: str
    """``input``, ``loop``, ``update`` or ``fork``."""
    ran: tuple[str, ...]
    """Nodes whose writes made this snapshot (a ``loop`` snapshot: its parent's tasks that
    finished); empty for inputs, updates and forks."""
    next: tuple[str, ...]
    """Nodes that run after it (``snapshot.next``)."""
    created_at: str | None
    """When it was saved."""
    interrupted: bool
    """Whether it holds interrupts."""
    is_branch_point: bool
    """Whether it has more than one child."""
    is_leaf: bool
    """Whether nothing follows it (the end of a branch)."""
    is_cursor: bool
    """Whether it is the snapshot the debugger looks at."""
    on_cursor_path: bool
    """Whether it is the cursor or one of its ancestors."""
    snapshot: StateSnapshot | None = None
    """The snapshot itself (``None`` for a tree laid out from :class:`SnapshotLink` s)."""


@dataclass(frozen=True, slots=True)
class SnapshotLink:
    """What the tree needs of one snapshot, without its values (a session's history entry)."""

    id: str
    """Its checkpoint id."""
    parent_id: str | None
    """Its parent's checkpoint id."""
    step: int
    """``metadata['step']``."""
    source: str
    """``input``, ``loop``, ``update`` or ``fork``."""
    created_at: str | None = None
    ran: tuple[str, ...] = ()
    """Nodes whose writes made it."""
    next: tuple[str, ...] = ()
    interrupted: bool = False


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One display row: a node with its tree prefix."""

    id: str
    """The node's checkpoint id."""
    prefix: str
    """Tree glyphs to print before the node (two characters per nesting level)."""
    depth: int
    """Nesting level (branches below branch points)."""


@dataclass(frozen=True, slots=True)
class HistoryTree:
    """Every snapshot of a thread as a tree, and its display order."""

    nodes: tuple[HistoryNode, ...]
    """All nodes, oldest first."""
    rows: tuple[HistoryRow, ...]
    """Display order: depth first, oldest child first."""
    roots: tuple[str, ...]
    """Ids of nodes without a parent in the tree."""
    cursor: str | None
    """The cursor's checkpoint id (the newest snapshot unless one was given)."""

    def node(self, checkpoint_id: str) -> HistoryNode:
        """The node with this full id (``KeyError`` if absent)."""
        for node in self.nodes:
            if node.id == checkpoint_id:
                return node
        raise KeyError(checkpoint_id)

    def find(self, ref: str) -> HistoryNode | None:
        """The node a user reference names: a full id, a short id, ``#index``, or a part
        of an id that only one node contains; ``None`` when none or several match."""
        ref = ref.strip()
        if ref.startswith("#") and ref[1:].isdigit():
            index = int(ref[1:])
            return self.nodes[index] if 0 <= index < len(self.nodes) else None
        exact = [n for n in self.nodes if ref in (n.id, n.short_id)]
        if len(exact) == 1:
            return exact[0]
        bare = ref.replace("-", "")
        if not bare:
            return None
        found = [n for n in self.nodes if bare in n.id.replace("-", "")]
        return found[0] if len(found) == 1 else None

    def path_to(self, checkpoint_id: str) -> tuple[HistoryNode, ...]:
        """The nodes from the root down to ``checkpoint_id``."""
        by_id = {n.id: n for n in self.nodes}
        path: list[HistoryNode] = []
        current: str | None = checkpoint_id
        while current is not None and current in by_id:
            node = by_id[current]
            path.append(node)
            current = node.parent_id
        return tuple(reversed(path))

    def display(self) -> tuple[tuple[HistoryRow, HistoryNode], ...]:
        """Rows paired with their nodes, in display order."""
        by_id = {n.id: n for n in self.nodes}
        return tuple((row, by_id[row.id]) for row in self.rows)


def history_tree(snapshots: Iterable[StateSnapshot], cursor: str | None = None) -> HistoryTree:
    """The tree of ``snapshots`` (any order; ``get_state_history`` gives newest first).

    ``cursor`` is the checkpoint id the debugger shows; it defaults to the newest snapshot.
    """
    by_id = _unique(snapshots)
    links = [_link(snap, by_id) for snap in by_id.values()]
    return link_tree(links, cursor, by_id)


def link_tree(
    links: Iterable[SnapshotLink],
    cursor: str | None = None,
    snapshots: Mapping[str, StateSnapshot] | None = None,
) -> HistoryTree:
    """The tree of ``links`` (any order; ids sort oldest first), the cursor defaulting to the
    newest; ``snapshots`` (by id) are kept on the nodes when given."""
    by_id = {link.id: link for link in links}
    ids = sorted(by_id)
    children: dict[str, list[str]] = {i: [] for i in ids}
    for ident in ids:
        parent = by_id[ident].parent_id
        if parent in children:
            children[parent].append(ident)
    if cursor not in by_id:
        cursor = ids[-1] if ids else None
    on_path = _ancestors(cursor, {i: by_id[i].parent_id for i in ids})
    shorts = short_ids(ids)
    kept = snapshots or {}
    nodes = tuple(
        _node(by_id[ident], i, shorts[ident], children[ident], (cursor, on_path), kept.get(ident))
        for i, ident in enumerate(ids)
    )
    roots = tuple(i for i in ids if by_id[i].parent_id not in by_id)
    return HistoryTree(nodes, _rows(roots, children), roots, cursor)


def _link(snap: StateSnapshot, by_id: Mapping[str, StateSnapshot]) -> SnapshotLink:
    meta = snap.metadata or {}
    source = str(meta.get("source", "?"))
    parent_id = _parent_id(snap)
    parent = by_id.get(parent_id or "")
    ran: tuple[str, ...] = ()
    if source == "loop" and parent is not None:
        ran = tuple(t.name for t in parent.tasks if t.result is not None)
    return SnapshotLink(
        _id(snap), parent_id, int(meta.get("step", -1)), source, snap.created_at, ran,
        tuple(snap.next), bool(snap.interrupts),
    )  # fmt: skip


def _node(
    link: SnapshotLink,
    index: int,
    short: str,
    children: list[str],
    marks: tuple[str | None, set[str]],
    snapshot: StateSnapshot | None,
) -> HistoryNode:
    cursor, on_path = marks
    return HistoryNode(
        id=link.id,
        short_id=short,
        index=index,
        parent_id=link.parent_id,
        children=tuple(children),
        step=link.step,
        source=link.source,
        ran=link.ran,
        next=link.next,
        created_at=link.created_at,
        interrupted=link.interrupted,
        is_branch_point=len(children) > 1,
        is_leaf=not children,
        is_cursor=link.id == cursor,
        on_cursor_path=link.id in on_path,
        snapshot=snapshot,
    )


def _rows(roots: Sequence[str], children: dict[str, list[str]]) -> tuple[HistoryRow, ...]:
    """Depth-first display rows without recursion (histories can be thousands deep)."""
    rows: list[HistoryRow] = []
    # (node id, its own prefix, prefix for what follows it, depth)
    stack: list[tuple[str, str, str, int]] = [(r, "", "", 0) for r in reversed(roots)]
    while stack:
        ident, prefix, rest, depth = stack.pop()
        rows.append(HistoryRow(ident, prefix, depth))
        kids = children[ident]
        if len(kids) == 1:
            stack.append((kids[0], rest, rest, depth))
            continue
        for position, kid in reversed(list(enumerate(kids))):
            last = position == len(kids) - 1
            glyph, cont = (PREFIX_LAST, PREFIX_BLANK) if last else (PREFIX_MID, PREFIX_PIPE)
            stack.append((kid, rest + glyph, rest + cont, depth + 1))
    return tuple(rows)


def short_ids(ids: Sequence[str]) -> dict[str, str]:
    """For each id, the shortest stretch (at least :data:`SHORT_ID_MIN` characters, hyphens
    dropped) ending where the ids stop sharing a common suffix, that no other id shares."""
    bare = {i: i.replace("-", "") for i in ids}
    if len(set(bare.values())) <= 1:
        return {i: b[:8] for i, b in bare.items()}
    values = list(bare.values())
    suffix = _common_suffix(values)

    def cut(size: int) -> dict[str, str]:
        return {i: b[max(0, len(b) - suffix - size) : len(b) - suffix] for i, b in bare.items()}

    def unique(size: int) -> bool:
        return len(set(cut(size).values())) == len(bare)

    # A longer stretch (reaching further left) of unique stretches is unique too: the
    # shortest unique size is found by bisection (a long history has many ids).
    low, high = SHORT_ID_MIN, max(len(v) for v in values)
    if not unique(high):
        return dict(bare)
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if unique(middle) else (middle + 1, high)
    return cut(low)


def _common_suffix(values: Sequence[str]) -> int:
    first = values[0]
    size = min(len(v) for v in values)
    n = 0
    while n < size and all(v[-1 - n] == first[-1 - n] for v in values):
        n += 1
    return n


def _ancestors(cursor: str | None, parents: dict[str, str | None]) -> set[str]:
    out: set[str] = set()
    while cursor is not None and cursor in parents and cursor not in out:
        out.add(cursor)
        cursor = parents[cursor]
    return out


def _unique(snapshots: Iterable[StateSnapshot]) -> dict[str, StateSnapshot]:
    """Each snapshot by its checkpoint id (the first of several with one id)."""
    seen: dict[str, StateSnapshot] = {}
    for snap in snapshots:
        seen.setdefault(_id(snap), snap)
    return seen


def _id(snap: StateSnapshot) -> str:
    return str(_configurable(snap.config).get("checkpoint_id"))


def _parent_id(snap: StateSnapshot) -> str | None:
    if not snap.parent_config:
        return None
    parent = _configurable(snap.parent_config).get("checkpoint_id")
    return str(parent) if parent is not None else None


def _configurable(config: Any) -> Mapping[str, Any]:
    configurable: Mapping[str, Any] = (config or {}).get("configurable") or {}
    return configurable
