"""The ``StateGraph`` builder: nodes, edges, branches and schemas, checked and compiled."""

from __future__ import annotations

import inspect
import logging
import warnings
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from types import GenericAlias
from typing import TYPE_CHECKING, Any, Literal, Self, get_args, get_origin, get_type_hints

from sgdebug.runtime._constants import END, RESERVED_CHARS, START
from sgdebug.runtime._keywords import (
    check_cache,
    check_checkpointer,
    refuse_deprecated,
    refuse_unsupported,
)
from sgdebug.runtime._policies import TimeoutPolicy, retry_policies
from sgdebug.runtime.cache._policy import checked_policy
from sgdebug.runtime.channels import BaseChannel, LastValue
from sgdebug.runtime.graph._policy import DEFAULT_ERROR_HANDLER, error_handler_name
from sgdebug.runtime.graph._schema import Field, fields_of, has_fields, same_field
from sgdebug.runtime.graph._specs import BranchSpec, NodeDefaults, NodePolicy, NodeSpec
from sgdebug.runtime.managed import ManagedValue

if TYPE_CHECKING:
    from sgdebug.runtime._compiled import CompiledStateGraph

__all__ = ["BranchSpec", "NodeSpec", "StateGraph"]

log = logging.getLogger("sgdebug.runtime")


class StateGraph:
    """Build a graph whose nodes read and write a shared state of channels."""

    def __class_getitem__(cls, params: Any) -> GenericAlias:
        """``StateGraph[State, Context]`` in annotations, as in LangGraph."""
        return GenericAlias(cls, params)

    def __init__(
        self,
        state_schema: Any = None,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
        **deprecated: Any,
    ) -> None:
        input_schema = input_schema or deprecated.pop("input", None)
        output_schema = output_schema or deprecated.pop("output", None)
        context_schema = context_schema or deprecated.pop("config_schema", None)
        refuse_deprecated("StateGraph", deprecated, {})
        if state_schema is None:
            if input_schema is None or output_schema is None:
                raise ValueError("Must provide state_schema or input and output")
            state_schema = input_schema
        if not isinstance(state_schema, type) and get_origin(state_schema) is None:
            warnings.warn(
                f"Invalid state_schema: {state_schema}. Expected a type or "
                "Annotated[type, reducer]. Please provide a valid schema to ensure correct "
                "updates.",
                stacklevel=2,
            )
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: set[tuple[str, str]] = set()
        self.waiting_edges: set[tuple[tuple[str, ...], str]] = set()
        self.branches: defaultdict[str, dict[str, BranchSpec]] = defaultdict(dict)
        self.schemas: dict[Any, dict[str, Field]] = {}
        self.channels: dict[str, Field] = {}
        self.state_schema = state_schema
        self.input_schema = input_schema or state_schema
        self.output_schema = output_schema or state_schema
        self.context_schema = context_schema
        self.node_defaults = NodeDefaults()
        """``set_node_defaults()``'s policies, applied at compile time."""
        self.compiled = False
        self._add_schema(state_schema)
        self._add_schema(self.input_schema, allow_managed=False)
        self._add_schema(self.output_schema, allow_managed=False)

    @property
    def managed(self) -> dict[str, Field]:
        """The managed-value keys of the schemas (``RemainingSteps`` ...), by name."""
        return {k: f for k, f in self.channels.items() if not isinstance(f, BaseChannel)}

    # -- schemas ---------------------------------------------------------------------------

    def _add_schema(self, schema: Any, *, allow_managed: bool = True) -> None:
        if schema in self.schemas:
            return
        fields = fields_of(schema)
        if not allow_managed:
            managed = [k for k, f in fields.items() if not isinstance(f, BaseChannel)]
            if managed:
                name = getattr(schema, "__name__", str(schema))
                raise ValueError(
                    f"Invalid managed channels detected in {name}: {', '.join(managed)}. "
                    "Managed channels are not permitted in Input/Output schema."
                )
        self.schemas[schema] = fields
        for key, field in fields.items():
            old = self.channels.get(key)
            if old is None:
                self.channels[key] = field
            elif not (
                same_field(old, field)
                or isinstance(field, LastValue)
                or (isinstance(old, type) and issubclass(old, ManagedValue) and old is field)
            ):
                raise ValueError(f"Channel '{key}' already exists with a different type")

    # -- nodes -----------------------------------------------------------------------------

    def set_node_defaults(
        self,
        *,
        retry_policy: Any = None,
        cache_policy: Any = None,
        error_handler: Callable[..., Any] | None = None,
        timeout: Any = None,
    ) -> Self:
        """Policies for every node that sets none of its own, applied at ``compile()``.

        ``retry_policy`` and ``timeout`` apply to every node, error handlers included;
        ``error_handler`` and ``cache_policy`` to every regular node without one. Chainable.
        """
        defaults = self.node_defaults
        if cache_policy is not None:
            defaults.cache_policy = checked_policy(cache_policy, "set_node_defaults")
        if retry_policy is not None:
            defaults.retry = retry_policies(retry_policy, "set_node_defaults")
        if error_handler is not None:
            defaults.error_handler = error_handler
        if timeout is not None:
            defaults.timeout = TimeoutPolicy.coerce(timeout)
        return self

    def add_node(
        self,
        node: str | Callable[..., Any] | Any,
        action: Callable[..., Any] | Any = None,
        *,
        defer: bool = False,
        metadata: dict[str, Any] | None = None,
        input_schema: Any = None,
        retry_policy: Any = None,
        cache_policy: Any = None,
        error_handler: Callable[..., Any] | None = None,
        destinations: dict[str, str] | tuple[str, ...] | None = None,
        timeout: Any = None,
        trace_policy: Any = None,
        **deprecated: Any,
    ) -> Self:
        """Add a node; its name defaults to the function's (or graph's) name. The action is
        a function, a compiled graph or a LangChain Runnable."""
        if "input" in deprecated:
            input_schema = input_schema or deprecated.pop("input")
        refuse_unsupported("add_node", {"trace_policy": trace_policy})
        cache = checked_policy(cache_policy, "add_node")
        refuse_deprecated("add_node", deprecated, {"retry": "retry_policy"})
        if not isinstance(node, str):
            action, node = node, _callable_name(node)
        if action is None:
            raise RuntimeError(f"Node `{node}` has no action")
        if self.compiled:
            log.warning("Adding a node to a graph that has already been compiled.")
        if node in self.nodes:
            raise ValueError(f"Node `{node}` already present.")
        if node in (START, END):
            raise ValueError(f"Node `{node}` is reserved.")
        for char in RESERVED_CHARS:
            if char in node:
                raise ValueError(
                    f"'{char}' is a reserved character and is not allowed in the node names."
                )
        schema = input_schema or _first_param_schema(action) or self.state_schema
        self._add_schema(schema)
        if destinations is None:
            destinations = _command_destinations(action)
        retry = retry_policies(retry_policy, "add_node")
        policy = NodePolicy(retry, TimeoutPolicy.coerce(timeout))
        if error_handler is not None:
            handler = self._add_error_handler(node, error_handler, schema)
            policy = replace(policy, error_handler=handler)
        spec = NodeSpec(node, action, schema, metadata, defer, destinations, policy)
        spec.cache_policy = cache
        self.nodes[node] = spec
        return self

    def _add_error_handler(self, node: str, handler: Callable[..., Any], schema: Any) -> str:
        """Add the node that handles ``node``'s failures (it receives ``node``'s input)."""
        name = error_handler_name(node)
        if name in self.nodes:
            raise ValueError(f"Auto-generated error handler node `{name}` already exists.")
        self.nodes[name] = NodeSpec(name, handler, schema, is_error_handler=True)
        return name

    def add_edge(self, start_key: str | Sequence[str], end_key: str) -> Self:
        """Connect nodes; a list of sources waits for all of them (a join)."""
        if self.compiled:
            log.warning("Adding an edge to a graph that has already been compiled.")
        if isinstance(start_key, str):
            if start_key == END:
                raise ValueError("END cannot be a start node")
            if end_key == START:
                raise ValueError("START cannot be an end node")
            self.edges.add((start_key, end_key))
            return self
        for start in start_key:
            if start == END:
                raise ValueError("END cannot be a start node")
            if start not in self.nodes:
                raise ValueError(f"Need to add_node `{start}` first")
        if end_key == START:
            raise ValueError("START cannot be an end node")
        if end_key != END and end_key not in self.nodes:
            raise ValueError(f"Need to add_node `{end_key}` first")
        self.waiting_edges.add((tuple(start_key), end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any],
        path_map: dict[Hashable, str] | list[str] | None = None,
    ) -> Self:
        """Route from ``source`` to whatever ``path(state)`` returns."""
        if self.compiled:
            log.warning("Adding an edge to a graph that has already been compiled.")
        name = _callable_name(path)
        if name == "<lambda>":
            name = "condition"
        if name in self.branches[source]:
            shown = None if name == "condition" else name
            raise ValueError(f"Branch with name `{shown}` already exists for node `{source}`")
        mapping: dict[Hashable, str] | None
        if isinstance(path_map, dict):
            mapping = dict(path_map)
        elif isinstance(path_map, list):
            mapping = {name_: name_ for name_ in path_map}
        else:
            mapping = _literal_map(path)
        schema = _first_param_schema(path)
        if schema is not None:
            self._add_schema(schema)
        self.branches[source][name] = BranchSpec(name, path, mapping, schema)
        return self

    def add_sequence(self, nodes: Sequence[Callable[..., Any] | tuple[str, Any]]) -> Self:
        """Add nodes and chain them with edges, in order."""
        if len(nodes) < 1:
            raise ValueError("Sequence requires at least one node.")
        previous: str | None = None
        for item in nodes:
            name, action = item if isinstance(item, tuple) else (_callable_name(item), item)
            if name in self.nodes:
                raise ValueError(
                    f"Node names must be unique: node with the name '{name}' already exists. "
                    "If you need to use two different runnables/callables with the same name "
                    "(for example, using `lambda`), please provide them as tuples "
                    "(name, runnable/callable)."
                )
            self.add_node(name, action)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    def set_entry_point(self, key: str) -> Self:
        """Same as ``add_edge(START, key)``."""
        return self.add_edge(START, key)

    def set_conditional_entry_point(
        self, path: Callable[..., Any], path_map: dict[Hashable, str] | list[str] | None = None
    ) -> Self:
        """Same as ``add_conditional_edges(START, path, path_map)``."""
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> Self:
        """Same as ``add_edge(key, END)``."""
        return self.add_edge(key, END)

    # -- validation and compile ------------------------------------------------------------

    def validate(self, interrupt: Sequence[str] | None = None) -> Self:
        """Check the graph's structure; raise ``ValueError`` with LangGraph's wording."""
        sources = {src for src, _ in self.edges}
        for starts, _ in self.waiting_edges:
            sources.update(starts)
        sources.update(self.branches)
        for source in sorted(sources):
            if source not in self.nodes and source != START:
                raise ValueError(f"Found edge starting at unknown node '{source}'")
        if START not in sources:
            raise ValueError(
                "Graph must have an entrypoint: add at least one edge from START to another node"
            )
        targets = {dst for _, dst in self.edges} | {dst for _, dst in self.waiting_edges}
        for source, branches in self.branches.items():
            for branch in branches.values():
                for target in (branch.path_map or {}).values():
                    if target != END and target not in self.nodes:
                        raise ValueError(
                            f"At '{source}' node, '{branch.name}' branch found unknown "
                            f"target '{target}'"
                        )
        for target in sorted(targets):
            if target not in self.nodes and target != END:
                raise ValueError(f"Found edge ending at unknown node `{target}`")
        for name in interrupt or ():
            if name not in self.nodes:
                raise ValueError(f"Interrupt node `{name}` not found")
        return self

    def compile(
        self,
        checkpointer: Any = None,
        *,
        interrupt_before: Sequence[str] | Literal["*"] | None = None,
        interrupt_after: Sequence[str] | Literal["*"] | None = None,
        name: str | None = None,
        cache: Any = None,
        store: Any = None,
        debug: bool = False,
        transformers: Sequence[Any] | None = None,
    ) -> CompiledStateGraph:
        """Check the graph and return a runnable compiled graph."""
        refuse_unsupported(
            "compile",
            {"transformers": transformers},
        )
        check_cache(cache)
        from sgdebug.runtime._compiled import CompiledStateGraph
        from sgdebug.runtime.graph._plan import CompileOptions

        check_checkpointer(checkpointer)

        before = interrupt_before or ()
        after = interrupt_after or ()
        checked = [n for n in (*_listed(before), *_listed(after)) if n != "*"]
        if after == "*" and before != "*":
            for node in before:
                if node not in self.nodes:
                    raise ValueError(f"Node {node} not in nodes")
            checked = []
        self._add_default_error_handler()
        self.validate(interrupt=checked)
        self.compiled = True
        graph = CompiledStateGraph(
            self,
            CompileOptions(
                checkpointer=checkpointer,
                interrupt_before="*" if before == "*" else tuple(before),
                interrupt_after="*" if after == "*" else tuple(after),
                name=name or "LangGraph",
                cache=cache,
                store=store,
            ),
        )
        graph.debug = debug
        return graph

    def _add_default_error_handler(self) -> None:
        """``set_node_defaults(error_handler=...)``'s node, added once at compile time."""
        handler = self.node_defaults.error_handler
        if handler is None:
            return
        known = self.nodes.get(DEFAULT_ERROR_HANDLER)
        if known is not None and not (known.is_error_handler and known.action is handler):
            raise ValueError(
                f"Auto-generated default error handler node `{DEFAULT_ERROR_HANDLER}` already "
                "exists."
            )
        self.nodes[DEFAULT_ERROR_HANDLER] = NodeSpec(
            DEFAULT_ERROR_HANDLER, handler, self.state_schema, is_error_handler=True
        )


def _listed(value: Sequence[str] | str) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def _callable_name(fn: Any) -> str:
    name = getattr(fn, "name", None)
    if isinstance(name, str) and name:
        return name
    name = getattr(fn, "__name__", None)
    if isinstance(name, str):
        return name
    return type(fn).__name__


def _type_hints(fn: Any) -> dict[str, Any]:
    target = fn
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        call = getattr(type(fn), "__call__", None)  # noqa: B004
        if call is None or not inspect.isfunction(call):
            return {}
        target = getattr(fn, "__call__", fn)  # noqa: B004
    try:
        return get_type_hints(target, include_extras=False)
    except Exception:
        return {}


def _first_param_schema(fn: Any) -> Any:
    """The class annotating ``fn``'s first parameter, when that class has annotations."""
    hints = _type_hints(fn)
    if not hints:
        return None
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    if not params:
        return None
    hint = hints.get(params[0])
    if isinstance(hint, type) and has_fields(hint):
        return hint
    return None


def _literal_map(path: Any) -> dict[Hashable, str] | None:
    ret = _type_hints(path).get("return")
    if ret is None or get_origin(ret) is not Literal:
        return None
    return {name: name for name in get_args(ret)}


def _command_destinations(action: Any) -> tuple[str, ...] | None:
    from sgdebug.runtime.graph._destinations import command_destinations

    return command_destinations(action) or None
