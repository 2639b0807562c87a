"""Node paths: ``research/summarize`` names a node inside the subgraph a parent node runs.

A path is the names of the nodes from the root graph down, joined with ``/``; a plain name
is a path of one part. :func:`node_paths` lists every path of a :class:`Topology` (its
subgraphs' nodes at any depth), :func:`check_path` says what is wrong with one (naming what
exists at the level it went wrong), and :func:`split_path` / :func:`frame_of` turn a path
into the nodes it passes through and a namespace into its frame's path.
"""

from __future__ import annotations

from collections.abc import Sequence

from sgdebug.inspect.topology import END, START, Topology

__all__ = [
    "PATH_SEP",
    "check_path",
    "frame_of",
    "join_path",
    "node_paths",
    "split_path",
    "subgraph_at",
]

PATH_SEP = "/"
"""Joins the levels of a node path (``research/summarize``)."""


def split_path(path: str) -> tuple[str, ...]:
    """``"a/b/c"`` -> ``("a", "b", "c")`` (empty parts kept, for :func:`check_path`)."""
    return tuple(path.split(PATH_SEP))


def join_path(parts: Sequence[str]) -> str:
    """``("a", "b")`` -> ``"a/b"``."""
    return PATH_SEP.join(parts)


def frame_of(namespace: Sequence[str]) -> tuple[str, ...]:
    """The node names of a checkpoint namespace (``("research:1f2e",)`` -> ``("research",)``)."""
    return tuple(part.split(":", 1)[0] for part in namespace)


def _user_nodes(topo: Topology) -> tuple[str, ...]:
    return tuple(n.name for n in topo.nodes if n.name not in (START, END))


def node_paths(topo: Topology) -> tuple[str, ...]:
    """Every node path of ``topo``: each node, followed by its subgraph's paths, in order."""
    out: list[str] = []
    for node in topo.nodes:
        if node.name in (START, END):
            continue
        out.append(node.name)
        if node.subgraph is not None:
            out.extend(join_path((node.name, inner)) for inner in node_paths(node.subgraph))
    return tuple(out)


def subgraph_at(topo: Topology, frame: Sequence[str]) -> Topology | None:
    """The topology of the subgraph that the nodes of ``frame`` run (``()``: ``topo``)."""
    here: Topology | None = topo
    for name in frame:
        if here is None:
            return None
        node = next((n for n in here.nodes if n.name == name), None)
        here = node.subgraph if node is not None else None
    return here


def check_path(topo: Topology, path: str) -> str | None:
    """What is wrong with ``path`` in ``topo`` (``None``: it names a node), naming what
    exists where it went wrong: ``no node 'x' in research (its nodes: gather, summarize)``."""
    parts = split_path(path)
    here = topo
    for depth, name in enumerate(parts):
        where = join_path(parts[:depth])
        nodes = _user_nodes(here)
        if name not in nodes:
            inside = f" in {where}" if where else ""
            listing = "its nodes" if where else "nodes"
            return f"no node named {name!r}{inside} ({listing}: {', '.join(nodes)})"
        node = next(n for n in here.nodes if n.name == name)
        if depth == len(parts) - 1:
            return None
        if node.subgraph is None:
            ran = join_path(parts[: depth + 1])
            subs = [p for p in node_paths(topo) if _runs_subgraph(topo, p)]
            known = f" (subgraphs: {', '.join(subs)})" if subs else " (the graph has none)"
            return f"{ran!r} runs no subgraph, so {path!r} names no node{known}"
        here = node.subgraph
    return None  # pragma: no cover - the loop returns at the last part


def _runs_subgraph(topo: Topology, path: str) -> bool:
    found = subgraph_at(topo, split_path(path))
    return found is not None
