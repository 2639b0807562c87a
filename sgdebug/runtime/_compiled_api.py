"""The compiled graph's Runnable-style API: ``with_config``, ``copy``, ``batch``/``abatch``,
``get_name``, and the channel views ``channels`` / ``input_channels`` / ``output_channels``
/ ``stream_channels``.

A config bound by ``with_config`` is merged under each run's own config as LangChain merges
configs: ``tags`` are concatenated (bound first), ``metadata`` and ``configurable`` are
merged key by key (the run's keys win), any other key is the run's when it gives one.
"""

from __future__ import annotations

import copy as copy_module
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import ROOT, START

if TYPE_CHECKING:
    from sgdebug.runtime._compiled import CompiledStateGraph
    from sgdebug.runtime.channels import BaseChannel

__all__ = [
    "abatch",
    "astream_events",
    "or_",
    "batch",
    "channels",
    "copy",
    "aclear_cache",
    "clear_cache",
    "get_name",
    "input_channels",
    "merged_config",
    "output_channels",
    "stream_channels",
    "with_config",
]

CONFIG_KEYS = frozenset(
    {"tags", "metadata", "callbacks", "run_name", "max_concurrency", "recursion_limit"}
    | {"configurable", "run_id"}
)
"""The keys of a LangChain ``RunnableConfig``."""


def merged_config(
    bound: Mapping[str, Any] | None, given: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``given`` over ``bound`` (see the module docstring); a new dict."""
    merged = dict(bound or {})
    for key, value in (given or {}).items():
        if key == "tags":
            merged[key] = [*(merged.get(key) or []), *(value or [])]
        elif key in ("metadata", "configurable"):
            merged[key] = {**(merged.get(key) or {}), **(value or {})}
        elif value is not None or key not in merged:
            merged[key] = value
    return merged


def with_config(
    graph: CompiledStateGraph, config: Mapping[str, Any] | None = None, **kwargs: Any
) -> CompiledStateGraph:
    """A copy of the graph whose runs start from ``config`` (and ``kwargs``) merged in."""
    for key in (*(config or {}), *kwargs):
        if key not in CONFIG_KEYS:
            raise TypeError(f"with_config() got an unexpected config key {key!r}")
    bound = merged_config(graph.config, {**(config or {}), **kwargs})
    return copy(graph, {"config": bound})


def copy(graph: CompiledStateGraph, update: Mapping[str, Any] | None = None) -> CompiledStateGraph:
    """A shallow copy of the graph, with the attributes ``update`` names replaced."""
    clone = copy_module.copy(graph)
    for name, value in (update or {}).items():
        if not hasattr(graph, name):
            raise TypeError(f"copy() got an unknown attribute {name!r}")
        setattr(clone, name, value)
    return clone


def _configs(config: Any, count: int) -> list[Any]:
    if isinstance(config, Sequence) and not isinstance(config, str | Mapping):
        if len(config) != count:
            raise ValueError("batch() needs one config per input, or one config for all")
        return list(config)
    return [config] * count


def batch(
    graph: CompiledStateGraph,
    inputs: Sequence[Any],
    config: Any = None,
    *,
    return_exceptions: bool = False,
    **kwargs: Any,
) -> list[Any]:
    """``invoke`` on each input in turn; the outputs in input order."""
    outputs: list[Any] = []
    for value, cfg in zip(inputs, _configs(config, len(inputs)), strict=True):
        try:
            outputs.append(graph.invoke(value, cfg, **kwargs))
        except Exception as exc:
            if not return_exceptions:
                raise
            outputs.append(exc)
    return outputs


async def abatch(
    graph: CompiledStateGraph,
    inputs: Sequence[Any],
    config: Any = None,
    *,
    return_exceptions: bool = False,
    **kwargs: Any,
) -> list[Any]:
    """``ainvoke`` on every input concurrently; the outputs in input order."""
    runs = [
        graph.ainvoke(value, cfg, **kwargs)
        for value, cfg in zip(inputs, _configs(config, len(inputs)), strict=True)
    ]
    import asyncio  # (not at import: a program that never awaits does not pay for it)

    return list(await asyncio.gather(*runs, return_exceptions=return_exceptions))


def get_name(
    graph: CompiledStateGraph, suffix: str | None = None, *, name: str | None = None
) -> str:
    """The graph's name (or ``name``), with ``suffix`` joined as LangChain joins it."""
    base = name or graph.name
    if not suffix:
        return base
    return base + suffix.title() if base[:1].isupper() else f"{base}_{suffix.lower()}"


NO_CACHE = "No cache is set for this graph. Cannot clear cache."


def clear_cache(graph: CompiledStateGraph, nodes: Sequence[str] | None = None) -> None:
    """Forget the cached results of ``nodes`` (every node when ``None`` or empty; names
    the graph lacks are skipped); without ``compile(cache=)``, LangGraph's ``ValueError``."""
    if graph.cache is None:
        raise ValueError(NO_CACHE)
    graph.cache.clear(_cache_namespaces(graph, nodes))


async def aclear_cache(graph: CompiledStateGraph, nodes: Sequence[str] | None = None) -> None:
    """Async :func:`clear_cache`."""
    if graph.cache is None:
        raise ValueError(NO_CACHE)
    await graph.cache.aclear(_cache_namespaces(graph, nodes))


def _cache_namespaces(graph: CompiledStateGraph, nodes: Sequence[str] | None) -> list[Any]:
    """The cache namespaces of ``nodes``' results (as LangGraph names them, whether or not
    the node has a cache policy)."""
    from sgdebug.runtime.cache._policy import node_namespace

    specs = graph.builder.nodes
    return [node_namespace(n, specs[n].action) for n in nodes or specs if n in specs]


def channels(graph: CompiledStateGraph) -> dict[str, BaseChannel]:
    """Every channel of the graph by name: the state's, then ``__start__`` and triggers."""
    return dict(graph.channel_specs)


def input_channels(graph: CompiledStateGraph) -> str:
    """The channel a run's input is written to."""
    return START


def output_channels(graph: CompiledStateGraph) -> str | list[str]:
    """The channels ``invoke`` returns (``__root__`` for a root-channel graph)."""
    return ROOT if graph.root else list(graph.output_keys)


def stream_channels(graph: CompiledStateGraph) -> str | list[str]:
    """The channels ``stream_mode="values"`` shows."""
    return ROOT if graph.root else list(graph.stream_keys)


def astream_events(
    graph: CompiledStateGraph,
    input: Any,
    config: dict[str, Any] | None = None,
    *,
    version: str = "v2",
    **kwargs: Any,
) -> Any:
    """LangChain's ``astream_events`` over a run of the graph: the graph's own chain events,
    each node's (``on_chain_start`` / ``_stream`` / ``_end``) and those of the chat models
    and tools nodes call (``on_chat_model_*``, ``on_tool_*``); not yet a subgraph's own
    graph and node runs (see ``_runnable_graph``)."""
    from sgdebug.runtime._runnable_graph import as_runnable

    return as_runnable(graph).astream_events(input, config, version=version, **kwargs)


def or_(graph: CompiledStateGraph, other: Any) -> Any:
    """``graph | other``: a LangChain ``RunnableSequence`` whose first step runs the graph."""
    from sgdebug.runtime._runnable_graph import as_runnable

    return as_runnable(graph) | other
