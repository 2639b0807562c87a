"""What the builder records and the plan compiles: nodes and conditional edges as added,
and the read-only view of a builder the plan is made from."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from sgdebug.runtime._policies import RetryPolicy, TimeoutPolicy
from sgdebug.runtime.graph._schema import Field

__all__ = ["Blueprint", "BranchSpec", "NodeDefaults", "NodeFunction", "NodePolicy", "NodeSpec"]


@dataclass(frozen=True, slots=True)
class NodePolicy:
    """How the engine runs a node beyond calling it: retries, a time limit, an error handler."""

    retry: tuple[RetryPolicy, ...] = ()
    """The retry policies, tried in order; the first that matches an error applies."""
    timeout: TimeoutPolicy | None = None
    """The limit of one attempt (async nodes only)."""
    error_handler: str | None = None
    """The node that runs, in the same step, when this one fails for good."""


@dataclass(slots=True)
class NodeDefaults:
    """``set_node_defaults()``: policies for every node that sets none of its own."""

    retry: tuple[RetryPolicy, ...] = ()
    """Applies to every node, error handlers included."""
    timeout: TimeoutPolicy | None = None
    """Applies to every node, error handlers included."""
    error_handler: Callable[..., Any] | None = None
    """Becomes the ``__default_error_handler__`` node, the handler of every regular node."""
    cache_policy: Any = None
    """The ``CachePolicy`` of every regular node without one (never an error handler's)."""


@dataclass(slots=True)
class NodeSpec:
    """A node as the user added it."""

    name: str
    """Unique node name."""
    action: Callable[..., Any]
    """The function (or compiled graph) the node runs."""
    input_schema: Any
    """The schema whose keys the node receives (the state schema unless narrowed)."""
    metadata: dict[str, Any] | None = None
    """User metadata, shown in drawings."""
    defer: bool = False
    """Run only when nothing else would run next."""
    destinations: tuple[str, ...] | dict[str, str] | None = None
    """Targets of the node's ``Command(goto=...)``, for drawings."""
    policy: NodePolicy = NodePolicy()
    """Its own retry policies, time limit and error handler (defaults fill the gaps)."""
    is_error_handler: bool = False
    """Whether it is an error handler node (``__error_handler__<node>``)."""
    cache_policy: Any = None
    """Its ``CachePolicy`` (``set_node_defaults`` fills it for a regular node at compile)."""

    @property
    def runnable(self) -> Any:
        """What LangGraph's node spec calls its runnable: the action itself when it is a
        LangChain Runnable or a compiled graph, else a view of the function (``.func``,
        ``.afunc``, ``.name``)."""
        action = self.action
        if hasattr(action, "invoke") and hasattr(action, "ainvoke"):
            return action
        if inspect.iscoroutinefunction(action):
            return NodeFunction(None, action, self.name)
        return NodeFunction(action, None, self.name)


@dataclass(frozen=True, slots=True)
class NodeFunction:
    """A node's function, as ``NodeSpec.runnable`` shows it."""

    func: Callable[..., Any] | None
    """The function, unless it is async."""
    afunc: Callable[..., Any] | None
    """The async function, when it is one."""
    name: str
    """The node's name."""


@dataclass(slots=True)
class BranchSpec:
    """A conditional edge: a path function and its optional map of results to nodes."""

    name: str
    """The path function's name (``'condition'`` for a lambda)."""
    path: Callable[..., Any]
    """Called with the state; returns node names, ``END``, ``Send``s or map keys."""
    path_map: dict[Hashable, str] | None
    """Result → node; from a dict, a list, or a ``Literal`` return annotation."""
    input_schema: Any
    """The schema the path function receives, when its first parameter narrows it."""

    @property
    def ends(self) -> dict[Hashable, str] | None:
        """LangGraph's name for :attr:`path_map`."""
        return self.path_map


class Blueprint(Protocol):
    """What a graph plan reads of its builder (``StateGraph`` is one)."""

    @property
    def nodes(self) -> Mapping[str, NodeSpec]: ...
    @property
    def edges(self) -> set[tuple[str, str]]: ...
    @property
    def waiting_edges(self) -> set[tuple[tuple[str, ...], str]]: ...
    @property
    def branches(self) -> Mapping[str, dict[str, BranchSpec]]: ...
    @property
    def schemas(self) -> Mapping[Any, dict[str, Field]]: ...
    @property
    def channels(self) -> Mapping[str, Field]: ...
    @property
    def state_schema(self) -> Any: ...
    @property
    def input_schema(self) -> Any: ...
    @property
    def output_schema(self) -> Any: ...
    @property
    def context_schema(self) -> Any: ...
    @property
    def node_defaults(self) -> NodeDefaults: ...
