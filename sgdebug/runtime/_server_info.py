"""``ServerInfo``: what a LangGraph server tells a node about the run (``runtime.server_info``).

sgdebug is no server, but a run whose config carries the server's keys (``assistant_id``,
``graph_id``, ``langgraph_auth_user`` in ``configurable``) gives its nodes the same
``ServerInfo`` LangGraph would; any other run gives ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ServerInfo", "server_info"]


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """The assistant, graph and user a server runs the graph for."""

    assistant_id: str
    """The assistant the run belongs to (``""`` when not given)."""
    graph_id: str
    """The graph the run belongs to (``""`` when not given)."""
    user: Any = None
    """The authenticated user (anything with an ``identity``), if any."""


def server_info(configurable: Mapping[str, Any]) -> ServerInfo | None:
    """The ``ServerInfo`` of a run's ``configurable``, ``None`` without the server's keys."""
    assistant, graph = configurable.get("assistant_id"), configurable.get("graph_id")
    user = configurable.get("langgraph_auth_user")
    if user is not None and not hasattr(user, "identity"):
        user = None
    if assistant is None and graph is None and user is None:
        return None
    return ServerInfo(str(assistant) if assistant else "", str(graph) if graph else "", user)
