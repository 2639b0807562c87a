"""``Graph.to_json()``: the JSON view LangGraph's drawable graph gives of a graph program.

Each node is ``{"id", "type": "runnable", "data": {"id": [...], "name"}}`` (plus
``metadata`` when set), the end node only ``{"id"}``; ``data.id`` names the class
LangGraph's node would hold: the wrapper of a function node (and of the start node), the
compiled graph class for a subgraph node, the Runnable's own class for a LangChain
Runnable node. Edges carry ``data`` and ``conditional: True`` only when set. A node whose
id is a UUID is listed by its index instead, as LangGraph does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import START

if TYPE_CHECKING:
    from sgdebug.runtime._draw_model import DrawableGraph
    from sgdebug.runtime._draw_parts import Node

__all__ = ["graph_json"]

FUNCTION_ID = ["langgraph", "_internal", "_runnable", "RunnableCallable"]
"""What LangGraph wraps a node's function (and its start node) in."""
SUBGRAPH_ID = ["langgraph", "graph", "state", "CompiledStateGraph"]
"""LangGraph's compiled graph class, which a subgraph node holds."""


def graph_json(graph: DrawableGraph, *, is_uuid: Any) -> dict[str, list[dict[str, Any]]]:
    """``graph`` as LangGraph's ``to_json()`` gives it (``is_uuid``: which ids are UUIDs)."""
    stable = {
        node_id: index if is_uuid(node_id) else node_id for index, node_id in enumerate(graph.nodes)
    }
    nodes = [{"id": stable[node.id], **_node_json(node, is_uuid)} for node in graph.nodes.values()]
    edges: list[dict[str, Any]] = []
    for edge in graph.edges:
        item: dict[str, Any] = {"source": stable[edge.source], "target": stable[edge.target]}
        if edge.data is not None:
            item["data"] = edge.data
        if edge.conditional:
            item["conditional"] = True
        edges.append(item)
    return {"nodes": nodes, "edges": edges}


def _node_json(node: Node, is_uuid: Any) -> dict[str, Any]:
    class_id = _class_id(node)
    item: dict[str, Any] = {}
    if class_id is not None:
        item["type"] = "runnable"
        item["data"] = {"id": class_id, "name": _name(node, is_uuid)}
    if node.metadata is not None:
        item["metadata"] = node.metadata
    return item


def _class_id(node: Node) -> list[str] | None:
    data = node.data
    if data is None:
        return list(FUNCTION_ID) if node.name == START else None  # a subgraph's too (xray)
    if _is_compiled_graph(data):
        return list(SUBGRAPH_ID)
    from sgdebug.runtime.graph._runnable import is_runnable

    if is_runnable(data):
        lc_id = getattr(type(data), "lc_id", None)
        if callable(lc_id) and getattr(type(data), "is_lc_serializable", None) is not None:
            return list(lc_id())
        return [*type(data).__module__.split("."), type(data).__name__]
    return list(FUNCTION_ID)


def _is_compiled_graph(data: Any) -> bool:
    """By its class, as the compiled graph module imports the drawing (no import cycle)."""
    return any(
        c.__name__ == "CompiledStateGraph" and c.__module__.startswith("sgdebug.runtime.")
        for c in type(data).__mro__
    )


def _name(node: Node, is_uuid: Any) -> str:
    if not is_uuid(node.id):
        return node.id
    data = node.data
    name = data.get_name() if hasattr(data, "get_name") else getattr(data, "__name__", node.id)
    return str(name).removeprefix("Runnable") if str(name).startswith("Runnable") else str(name)
