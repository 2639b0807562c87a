"""The plan of a compiled graph: every channel, every node compiled with its reader, edges
and branches, and the maps the engine plans with (trigger -> nodes, volatile channels)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sgdebug.runtime._constants import END, ROOT, START, TASKS, branch_channel, join_channel
from sgdebug.runtime.cache._policy import node_namespace
from sgdebug.runtime.channels import (
    BaseChannel,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    LastValueAfterFinish,
    NamedBarrierValue,
    Topic,
    UntrackedValue,
    ValueChannel,
)
from sgdebug.runtime.errors import InvalidUpdateError, troubleshooting
from sgdebug.runtime.graph._injection import RunnableConfig
from sgdebug.runtime.graph._node import (
    CompiledNode,
    Reader,
    Write,
    WriteTarget,
    inspect_action,
    make_reader,
)
from sgdebug.runtime.graph._policy import effective_policy
from sgdebug.runtime.graph._runnable import is_runnable, runnable_action
from sgdebug.runtime.graph._schema import object_writes
from sgdebug.runtime.graph._specs import Blueprint, NodeSpec

__all__ = ["CompileOptions", "GraphPlan"]

_INERT = (
    LastValue,
    BinaryOperatorAggregate,
    UntrackedValue,
    NamedBarrierValue,
    LastValueAfterFinish,
)


@dataclass(frozen=True, slots=True)
class CompileOptions:
    """What ``compile()`` was given."""

    checkpointer: Any
    interrupt_before: tuple[str, ...] | Literal["*"]
    interrupt_after: tuple[str, ...] | Literal["*"]
    name: str
    cache: Any = None
    """Where nodes with a cache policy keep their results (a ``BaseCache``)."""
    store: Any = None
    """The long-term store the graph's nodes get (``compile(store=)``)."""


class GraphPlan:
    """A compiled graph's structure: channels, nodes and what triggers them, fixed at compile
    time; the engine runs it, the public façade (``CompiledStateGraph``) extends it."""

    step_timeout: float | None = None
    """Seconds each superstep may take in all (``graph.step_timeout = 5``, as in LangGraph);
    past it the run raises ``TimeoutError``. ``None`` (or 0): no limit."""
    debug: bool = False
    """Print every step's updates and values (``compile(debug=True)``)."""

    def __init__(self, builder: Blueprint, options: CompileOptions) -> None:
        self.builder = builder
        self.options = options
        self.name = options.name
        self.checkpointer: Any = options.checkpointer or None
        self.cache: Any = options.cache
        """``compile(cache=)``: ``None`` (no node is cached, at the cost of one check per step)."""
        self.store: Any = options.store
        """The store its nodes get, unless a parent graph's run gives its own."""
        self.interrupt_before_nodes = options.interrupt_before
        self.interrupt_after_nodes = options.interrupt_after
        self.user_fields = dict(builder.channels)
        self.state_keys = frozenset(k for k, f in self.user_fields.items() if _is_channel(f))
        self.root = ROOT in self.state_keys
        self.channel_specs = self._channels()
        self.channel_keys = frozenset(self.channel_specs)
        """The names of its channels (a run's channels are always these)."""
        self.target = WriteTarget(
            self.state_keys,
            tuple(k for k in self.user_fields if k in self.state_keys),
            frozenset(k for k in self.user_fields if k not in self.state_keys),
            self.root,
            frozenset(builder.nodes),
        )
        self.state_reader = self._reader(builder.state_schema)
        self.nodes: dict[str, CompiledNode] = {START: self._start_node()}
        for spec in builder.nodes.values():
            self.nodes[spec.name] = self._node(spec)
        self.handles_errors = any(
            n.policy is not None and n.policy.error_handler is not None for n in self.nodes.values()
        )
        """Whether a node has an error handler (the engine then looks for handed-over tasks)."""
        self.sorted_names = tuple(sorted(self.nodes))
        trigger_map: defaultdict[str, list[str]] = defaultdict(list)
        for node in self.nodes.values():
            for trigger in node.triggers:
                trigger_map[trigger].append(node.name)
        self.trigger_to_nodes = {k: tuple(sorted(v)) for k, v in trigger_map.items()}
        self.trigger_keys = frozenset(self.trigger_to_nodes)
        self.volatile = tuple(k for k, c in self.channel_specs.items() if not isinstance(c, _INERT))
        self.volatile_set = frozenset(self.volatile)
        self.input_keys = self._keys(builder.input_schema)
        self.output_keys: str | tuple[str, ...] = (
            ROOT if self.root else self._keys(builder.output_schema)
        )
        self.stream_keys: str | tuple[str, ...] = (
            ROOT if self.root else tuple(k for k in self.user_fields if k in self.state_keys)
        )

    # -- compile-time structure ------------------------------------------------------------

    def _keys(self, schema: Any) -> tuple[str, ...]:
        return tuple(k for k in self.builder.schemas[schema] if k in self.state_keys)

    def _channels(self) -> dict[str, BaseChannel]:
        b = self.builder
        specs: dict[str, BaseChannel] = {
            k: f for k, f in self.user_fields.items() if isinstance(f, BaseChannel)
        }
        specs[START] = EphemeralValue(Any, key=START)
        specs[TASKS] = Topic(Any, key=TASKS)
        for name, spec in b.nodes.items():
            key = branch_channel(name)
            specs[key] = (
                LastValueAfterFinish(Any, key=key)
                if spec.defer
                else EphemeralValue(Any, guard=False, key=key)
            )
        for sources, target in b.waiting_edges:
            if target == END:
                continue  # a join into END triggers nothing (LangGraph keeps no channel)
            key = join_channel(sources, target)
            specs[key] = NamedBarrierValue(sources, key=key)
        return specs

    def _edges_from(self, source: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[Any, ...]]:
        b = self.builder
        edges = tuple(sorted(t for s, t in b.edges if s == source and t != END))
        joins = tuple(
            sorted(
                join_channel(srcs, t) for srcs, t in b.waiting_edges if source in srcs and t != END
            )
        )
        branches = tuple(
            (spec, None if spec.input_schema is None else self._reader(spec.input_schema))
            for spec in b.branches.get(source, {}).values()
        )
        return edges, joins, branches

    def _reader(self, schema: Any) -> Reader:
        reader = make_reader(schema, self.builder.schemas[schema])
        specs = self.channel_specs
        reader.plain = not (reader.root or reader.managed or reader.coerce) and all(
            isinstance(specs.get(k), ValueChannel) for k in reader.keys
        )
        return reader

    def _start_node(self) -> CompiledNode:
        edges, joins, branches = self._edges_from(START)
        return CompiledNode(
            START, _no_action, (START,), self.state_reader, inspect_action(_no_action),
            edges, joins, branches,
        )  # fmt: skip

    def _node(self, spec: NodeSpec) -> CompiledNode:
        edges, joins, branches = self._edges_from(spec.name)
        triggers = [branch_channel(spec.name)]
        triggers += [join_channel(s, t) for s, t in self.builder.waiting_edges if t == spec.name]
        action, subgraph = spec.action, None
        if isinstance(action, GraphPlan):
            subgraph = action
            action = _subgraph_action(action)
        elif is_runnable(action):
            action = runnable_action(action)
        node = CompiledNode(
            spec.name, action, tuple(sorted(triggers)), self._reader(spec.input_schema),
            inspect_action(action), edges, joins, branches, subgraph, spec.defer,
        )  # fmt: skip
        defaults = self.builder.node_defaults
        node.policy = effective_policy(spec, defaults, node.injection.is_async)
        cache_policy = spec.cache_policy
        if cache_policy is None and not spec.is_error_handler:  # (a handler's is never cached)
            cache_policy = defaults.cache_policy
        if cache_policy is not None:
            node.cache_policy, node.cache_ns = cache_policy, node_namespace(spec.name, spec.action)
        node.graph_kind = GraphPlan
        return node

    # -- graph input ----------------------------------------------------------------------

    def input_writes(self, value: Any) -> list[Write]:
        """The writes of a graph input, filtered by the input schema."""
        if self.root:
            return [] if value is None else [(ROOT, value)]
        if isinstance(value, dict):
            return [(k, value[k]) for k in self.input_keys if k in value]
        writes = object_writes(value, self.input_keys)
        if writes is None:
            raise InvalidUpdateError(
                troubleshooting(f"Expected dict, got {value}", "INVALID_GRAPH_NODE_RETURN_VALUE")
            )
        return writes


def _is_channel(field: Any) -> bool:
    return isinstance(field, BaseChannel)


def _no_action(state: Any) -> None:
    return None


def _subgraph_action(sub: Any) -> Callable[..., Any]:
    """A subgraph as a node's action: its run inherits the task's config (thread, keys,
    checkpoint namespace: see ``_subgraph_runs``)."""

    def run_subgraph(state: Any, config: RunnableConfig) -> Any:
        return sub.invoke(state, config)

    run_subgraph.__name__ = sub.name
    return run_subgraph
