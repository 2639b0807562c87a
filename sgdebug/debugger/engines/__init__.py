"""The engine protocol's implementations, and the choice between them.

``native`` drives ``sgdebug.runtime``; ``langgraph`` drives a real LangGraph graph and is
the only module of sgdebug (with the import alias) that imports ``langgraph``, and only
when the user's graph is a LangGraph graph; ``remote`` drives a graph on a LangGraph server
through ``langgraph-sdk`` (imported only when attaching), chosen when the target is a
:class:`Server`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sgdebug.debugger.engines._remote_client import Server
from sgdebug.debugger.results import EngineName

if TYPE_CHECKING:
    from sgdebug.debugger.engine import Engine

__all__ = ["Server", "engine_for", "is_langgraph", "open_engine"]


def is_langgraph(graph: Any) -> bool:
    """Whether ``graph`` (a compiled graph or a builder) comes from LangGraph (by its class:
    nothing is imported)."""
    return any(cls.__module__.split(".")[0] == "langgraph" for cls in type(graph).__mro__)


def engine_for(graph: Any) -> EngineName:
    """The engine a graph was built for (``remote`` for a :class:`Server`)."""
    if isinstance(graph, Server):
        return "remote"
    return "langgraph" if is_langgraph(graph) else "native"


def open_engine(
    graph: Any, saver: Any, recursion_limit: int | None, name: EngineName | None = None
) -> Engine:
    """The engine ``name`` (default: the one ``graph`` was built for) on ``graph``.

    ``saver`` is the session's checkpointer (``None``: the graph's own, else in memory).
    Raises ``ValueError`` when the graph cannot run on the engine named; on a server,
    ``EngineRefused`` when it cannot be reached, ``NotImplementedError`` for a saver or a
    recursion limit (the server keeps the history and counts the steps).
    """
    chosen = name or engine_for(graph)
    if chosen != engine_for(graph):
        raise ValueError(
            f"a {engine_for(graph)} graph cannot run on the {chosen} engine as it is; "
            f"load it with --engine {chosen} from the command line"
        )
    if chosen == "remote":
        for given, what in ((saver, "a session checkpointer"),
                            (recursion_limit, "a recursion limit")):  # fmt: skip
            if given is not None:
                raise NotImplementedError(f"{what} on a LangGraph server (it keeps its own)")
        from sgdebug.debugger.engines.remote import RemoteEngine

        return RemoteEngine(graph)
    if chosen == "langgraph":
        from sgdebug.debugger.engines.langgraph import LangGraphEngine

        return LangGraphEngine(graph, saver, recursion_limit)
    from sgdebug.debugger.engines.native import NativeEngine

    return NativeEngine(graph, saver, recursion_limit)
