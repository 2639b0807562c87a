"""A node prepared for execution: how it reads its input, calls the action, and writes."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sgdebug.runtime._constants import END, PULL, ROOT, START, TASKS, branch_channel
from sgdebug.runtime.channels import (
    MISSING,
    BaseChannel,
    BinaryOperatorAggregate,
    LastValue,
    ValueChannel,
)
from sgdebug.runtime.errors import InvalidUpdateError, ParentCommand, troubleshooting
from sgdebug.runtime.graph._injection import injected
from sgdebug.runtime.graph._schema import (
    coerce_to_schema,
    has_fields,
    is_dataclass_type,
    is_pydantic_model,
    object_writes,
)
from sgdebug.runtime.graph._specs import BranchSpec, NodePolicy
from sgdebug.runtime.managed import ManagedValue
from sgdebug.runtime.types import Command, Send

Write = tuple[str, Any]
"""One write of a task: (channel name, value)."""

_NO_OVERRIDES: Mapping[str, Any] = {}


@dataclass(slots=True)
class Reader:
    """How to build the input a schema's reader (node or branch) receives."""

    keys: tuple[str, ...]
    """Channel keys of the schema."""
    managed: tuple[tuple[str, type[ManagedValue]], ...]
    """Managed keys of the schema and their managers."""
    schema: Any
    """The schema itself (used to build dataclass / pydantic instances)."""
    root: bool
    """Whether the state is the single ``__root__`` channel."""
    coerce: bool
    """Whether the input dict becomes a dataclass / pydantic instance."""
    plain: bool = False
    """A dict of channel values only, every channel a :class:`ValueChannel` (set by the
    graph plan, which knows the channels): their values are read directly."""

    def read(
        self,
        channels: Mapping[str, BaseChannel],
        step: int,
        stop: int,
        overrides: Mapping[str, Any] | None = None,
    ) -> Any:
        """The value of this schema's view of ``channels`` (values in ``overrides`` win)."""
        values: dict[str, Any] = {}
        if self.plain:  # the usual reader, without the checks below
            held: Mapping[str, ValueChannel] = channels  # type: ignore[assignment]
            if overrides:  # (a conditional edge's read, with its task's writes)
                for key in self.keys:
                    value = overrides[key] if key in overrides else held[key].value
                    if value is not MISSING:
                        values[key] = value
                return values
            for key in self.keys:  # (a task's input)
                value = held[key].value
                if value is not MISSING:
                    values[key] = value
            return values
        given = overrides or _NO_OVERRIDES
        if self.root:
            value = overrides[ROOT] if overrides and ROOT in overrides else channels[ROOT].peek()
            return None if value is MISSING else value
        for key in self.keys:
            if key in given:
                value = given[key]
            else:
                channel = channels[key]  # the usual channel's value read directly, else peek()
                value = (
                    channel.value
                    if type(channel) is LastValue or type(channel) is BinaryOperatorAggregate
                    else channel.peek()
                )
            if value is not MISSING:
                values[key] = value
        for key, manager in self.managed:
            values[key] = manager.compute(step, stop)
        return coerce_to_schema(self.schema, values) if self.coerce else values


def make_reader(schema: Any, fields: Mapping[str, Any]) -> Reader:
    """A :class:`Reader` for ``schema`` whose keys are ``fields``."""
    keys = tuple(k for k, f in fields.items() if isinstance(f, BaseChannel))
    managed = tuple((k, f) for k, f in fields.items() if not isinstance(f, BaseChannel))
    coerce = is_dataclass_type(schema) or is_pydantic_model(schema)
    return Reader(keys, managed, schema, not has_fields(schema), coerce)


@dataclass(slots=True)
class Injection:
    """Which keyword arguments a node function takes besides the state."""

    names: frozenset[str]
    """The injectable parameter names it declares."""
    is_async: bool
    """Whether calling it returns an awaitable."""


def inspect_action(action: Callable[..., Any]) -> Injection:
    """Find the injectable parameters of ``action`` once, at compile time."""
    target = action
    if not (inspect.isfunction(action) or inspect.ismethod(action)):
        target = getattr(action, "__call__", action)  # noqa: B004
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    return Injection(injected(params), inspect.iscoroutinefunction(target))


@dataclass(slots=True)
class CompiledNode:
    """Everything the engine needs to run one node."""

    name: str
    action: Callable[..., Any]
    triggers: tuple[str, ...]
    """Channels whose update makes the node run (sorted)."""
    reader: Reader
    injection: Injection
    edges: tuple[str, ...]
    """Static successors (``END`` excluded)."""
    joins: tuple[str, ...]
    """Barrier channels this node completes."""
    branches: tuple[tuple[BranchSpec, Reader | None], ...]
    """Conditional edges, with the reader of a narrowed path-function schema."""
    subgraph: Any = None
    """The compiled graph, when the node is a subgraph."""
    defer: bool = False
    consumes: tuple[str, ...] = ()
    """Trigger channels that are reset when the node runs (joins, deferred triggers)."""
    static_writes: tuple[Write, ...] = ()
    """The writes of its static edges and joins, made after every run."""
    pull_path: tuple[str, str] = ("", "")
    """``('__pregel_pull', name)``, made once."""
    route_cache: dict[str, dict[str, tuple[Write, ...]]] = field(default_factory=dict)
    """Per branch, the routing writes of each string result seen so far."""
    speed: int = 0
    """Fast runs so far, counted from ``1 - FAST_AGAIN`` after a slow one: the executor
    inlines a step of nodes with a positive count (see ``engine._executor``)."""
    policy: NodePolicy | None = None
    """Retries, time limit and error handler; ``None`` (no cost) when it has none."""
    graph_kind: type | None = None
    """The class of compiled graphs (set by the graph plan): what :attr:`subgraphs` finds."""
    found: list[Any] | None = None
    """:attr:`subgraphs`, once looked for."""
    cache_policy: Any = None
    """Its ``CachePolicy``: its results are cached when the graph has a cache."""
    cache_ns: tuple[str, ...] = ()
    """The cache namespace of its results (see ``cache.node_namespace``), with a policy."""

    def copy(self, update: Mapping[str, Any]) -> CompiledNode:
        """A copy with the fields of ``update`` replaced (as LangGraph's node ``copy``)."""
        return dataclasses.replace(self, **update)

    def __post_init__(self) -> None:
        self.pull_path = (PULL, self.name)
        self.consumes = tuple(t for t in self.triggers if t.startswith("join:")) + (
            (branch_channel(self.name),) if self.defer else ()
        )
        self.static_writes = tuple((branch_channel(t), None) for t in self.edges) + tuple(
            (join, self.name) for join in self.joins
        )

    @property
    def subgraphs(self) -> list[Any]:
        """The compiled graph the node runs, as a list (LangGraph's ``node.subgraphs``):
        the node's own graph, or the one its function reaches (``_subgraphs``), or none."""
        if self.found is None:
            from sgdebug.runtime.graph._subgraphs import find_subgraph

            kind = self.graph_kind
            action = self.action if self.subgraph is None else self.subgraph
            graph = None if kind is None else find_subgraph(action, kind)
            self.found = [] if graph is None else [graph]
        return list(self.found)


@dataclass(slots=True)
class WriteTarget:
    """What a node's writes may address: its graph's state channels and node names."""

    state_keys: frozenset[str]
    """User channels (any registered schema), excluding managed keys."""
    state_order: tuple[str, ...]
    """The same keys, in registration order."""
    managed_keys: frozenset[str]
    """Managed keys (writes to them are dropped)."""
    root: bool
    """Whether the state is a single ``__root__`` channel."""
    nodes: frozenset[str]
    """Names of the graph's nodes."""


def return_writes(value: Any, target: WriteTarget, routes: list[Write]) -> list[Write]:
    """The state writes of a node's return value; routing (goto / Send) goes to ``routes``."""
    if type(value) is dict and not target.root:  # the common case first
        keys = target.state_keys
        if keys.issuperset(value):
            return list(value.items())
        return [(k, v) for k, v in value.items() if k in keys]
    if value is None:
        return []
    if isinstance(value, Command):
        return command_writes(value, target, routes)
    if isinstance(value, list | tuple) and any(isinstance(v, Command) for v in value):
        out: list[Write] = []
        for item in value:
            out.extend(return_writes(item, target, routes))
        return out
    if isinstance(value, Send):
        routes.extend(route_writes([value], target))
        return []
    if target.root:
        return [(ROOT, value)]
    if isinstance(value, dict):
        return [(k, v) for k, v in value.items() if k in target.state_keys]
    writes = object_writes(value, target.state_order)
    if writes is not None:
        return writes
    raise InvalidUpdateError(
        troubleshooting(f"Expected dict, got {value}", "INVALID_GRAPH_NODE_RETURN_VALUE")
    )


def command_writes(cmd: Command[Any], target: WriteTarget, routes: list[Write]) -> list[Write]:
    """The writes of a ``Command`` returned by a node."""
    if cmd.graph == Command.PARENT:
        raise ParentCommand(cmd)
    out: list[Write] = []
    update = cmd.update
    if update is not None:
        if target.root and not isinstance(update, dict | list):
            out.append((ROOT, update))
        elif isinstance(update, list) and all(isinstance(p, tuple) and len(p) == 2 for p in update):
            out.extend((k, v) for k, v in update if k in target.state_keys)
        else:
            out.extend(return_writes(update, target, routes))
    goto = cmd.goto
    if goto is not None and goto != ():
        items = [goto] if isinstance(goto, str | Send) else list(goto)
        routes.extend(route_writes(items, target))
    return out


def for_parent(raised: ParentCommand) -> Command[Any]:
    """The ``Command(graph=Command.PARENT)`` a subgraph raised, as the task of the parent
    that ran the subgraph applies it: its update and goto, in the parent's graph. (A
    subgraph's node returning it ends the subgraph's run, and the parent node's own code,
    with it; the first such command of a node wins.)"""
    command = raised.command
    return Command(update=command.update, goto=command.goto)


def route_writes(items: Sequence[Any], target: WriteTarget) -> list[Write]:
    """Writes that schedule ``items`` (node names, ``END`` or ``Send``s) next."""
    out: list[Write] = []
    for item in items:
        if isinstance(item, Send):
            if item.node == END:
                raise InvalidUpdateError("Cannot send a packet to the END node")
            out.append((TASKS, item))
        elif item is None or item == START:
            raise ValueError("Branch did not return a valid destination")
        elif item != END:
            out.append((branch_channel(item), None))
    return out


def branch_destinations(branch: BranchSpec, result: Any) -> list[Any]:
    """Map a path function's result to destinations through the branch's path map."""
    items = list(result) if isinstance(result, list | tuple) else [result]
    if branch.path_map is None:
        return items
    return [item if isinstance(item, Send) else branch.path_map[item] for item in items]


def updates_payload(writes: Sequence[Write], state_keys: frozenset[str]) -> Any:
    """A task's entry in the ``updates`` stream: a dict, a list of dicts, or ``None``."""
    pairs = [(k, v) for k, v in writes if k in state_keys]
    if not pairs:
        return None
    payload = dict(pairs)
    if len(payload) == len(pairs):
        return payload
    return [{k: v} for k, v in pairs]


def task_result(writes: Sequence[Write], state_keys: Collection[str]) -> dict[str, Any]:
    """A finished task's result as LangGraph shows it (``tasks`` stream, snapshot tasks):
    each state key it wrote, with its value, or ``{"$writes": [...]}`` when written more
    than once."""
    grouped: dict[str, list[Any]] = {}
    for key, value in writes:
        if key in state_keys:
            grouped.setdefault(key, []).append(value)
    return {k: vs[0] if len(vs) == 1 else {"$writes": vs} for k, vs in grouped.items()}
