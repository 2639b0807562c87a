"""A compiled graph as a LangChain Runnable: ``graph | other``, ``other | graph`` and
``astream_events``.

LangGraph's compiled graph is a Runnable; sgdebug's is not (the runtime does not need
langchain-core). :func:`as_runnable` gives one that runs the graph as a chain run named as
the graph (``"LangGraph"`` by default): callbacks in the config see its start, each chunk
it streams and its end, whose output is the run's final state. ``astream_events`` is
langchain-core's, over that run.

The graph's run passes its callbacks on to its tasks: each node is a chain run, child of
the graph's, and the models and tools a node calls are children of the node's run (see
``engine._node_runs``), so ``astream_events`` shows them as LangGraph does. Not yet: a
subgraph's own graph run and node runs (its models' and tools' runs are children of the
parent's node run).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.runtime._constants import INTERRUPT

if TYPE_CHECKING:
    from sgdebug.runtime._compiled import CompiledStateGraph

__all__ = ["as_runnable", "starts_graph_run"]

_CHILDREN: weakref.WeakSet[Any] = weakref.WeakSet()
"""The callback managers a graph's own run hands its run (see :func:`starts_graph_run`)."""


def _graph_metadata(config: Any) -> dict[str, Any]:
    """The graph's own run's metadata, besides the config's (LangGraph's): the lifted
    configurable keys and ``ls_integration``."""
    from sgdebug.runtime.engine._messages_mode import lifted

    meta = config.get("metadata") or {}
    return {**lifted(config.get("configurable") or {}, meta), "ls_integration": "langgraph"}


def as_runnable(graph: CompiledStateGraph) -> Any:
    """A Runnable that runs ``graph``."""
    return _runnable_class()(graph)


def _modes(stream_mode: Any) -> tuple[list[str], bool]:
    """The modes to stream (``"values"`` added, to know the final state) and whether the
    caller asked for a list of modes."""
    multi = isinstance(stream_mode, Sequence) and not isinstance(stream_mode, str)
    asked = list(stream_mode) if multi else ["updates" if stream_mode is None else stream_mode]
    return ([*asked, "values"] if "values" not in asked else asked), multi


def _chunks(events: Iterator[tuple[str, Any]], asked: Any, out: list[Any]) -> Iterator[Any]:
    """The caller's chunks of ``(mode, payload)`` events; the last state goes in ``out``."""
    modes, multi = _modes(asked)
    wanted = set(modes) if multi or asked == "values" else set(modes) - {"values"}
    for mode, payload in events:
        if mode == "values":
            out[:] = [_settled(payload)]
        if mode in wanted:
            yield (mode, payload) if multi else payload


def _settled(values: Any) -> Any:
    """A ``values`` chunk as the run's output: without the interrupts it stopped at."""
    if isinstance(values, dict) and INTERRUPT in values:
        return {k: v for k, v in values.items() if k != INTERRUPT}
    return values


@functools.cache
def _runnable_class() -> type:
    from langchain_core.callbacks.manager import (
        AsyncCallbackManager,
        CallbackManager,
    )
    from langchain_core.runnables import Runnable
    from langchain_core.runnables.config import ensure_config, patch_config

    class GraphRunnable(Runnable[Any, Any]):
        """A compiled sgdebug graph as a Runnable (see the module docstring)."""

        def __init__(self, graph: CompiledStateGraph) -> None:
            self.graph = graph
            self.name = graph.get_name()

        def _bound_callbacks(self) -> Any:
            """Callbacks bound by the graph's ``with_config`` (run with the caller's)."""
            return (self.graph.config or {}).get("callbacks")

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return self._call_with_config(
                lambda value, config: self.graph.invoke(value, _own(config), **kwargs),
                input,
                config,
            )

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            async def run(value: Any, config: Any) -> Any:
                return await self.graph.ainvoke(value, _own(config), **kwargs)

            return await self._acall_with_config(run, input, config)

        def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]:
            config = ensure_config(config)
            manager = CallbackManager.configure(
                config.get("callbacks"), self._bound_callbacks(), False, config.get("tags"),
                None, config.get("metadata"), _graph_metadata(config),
            )  # fmt: skip
            run = manager.on_chain_start(
                None, input, name=config.get("run_name") or self.name,
                run_id=config.pop("run_id", None),
            )  # fmt: skip
            child = _own(patch_config(config, callbacks=run.get_child()))
            asked = kwargs.pop("stream_mode", None)
            modes, _ = _modes(asked)
            final: list[Any] = []
            try:
                events = self.graph.stream(input, child, stream_mode=modes, **kwargs)  # type: ignore[arg-type]
                chunks = _tapped(run, _chunks(iter(events), asked, final))
                yield from chunks
            except BaseException as exc:
                run.on_chain_error(exc)
                raise
            run.on_chain_end(final[0] if final else None)

        async def astream(
            self, input: Any, config: Any = None, **kwargs: Any
        ) -> AsyncIterator[Any]:
            config = ensure_config(config)
            manager = AsyncCallbackManager.configure(
                config.get("callbacks"), self._bound_callbacks(), False, config.get("tags"),
                None, config.get("metadata"), _graph_metadata(config),
            )  # fmt: skip
            run = await manager.on_chain_start(
                None, input, name=config.get("run_name") or self.name,
                run_id=config.pop("run_id", None),
            )  # fmt: skip
            child = _own(patch_config(config, callbacks=run.get_child()))
            asked = kwargs.pop("stream_mode", None)
            modes, _ = _modes(asked)
            final: list[Any] = []
            try:
                events = self.graph.astream(input, child, stream_mode=modes, **kwargs)  # type: ignore[arg-type]
                async for chunk in _atapped(run, _achunks(events, asked, final)):
                    yield chunk
            except BaseException as exc:
                await run.on_chain_error(exc)
                raise
            await run.on_chain_end(final[0] if final else None)

    return GraphRunnable


def starts_graph_run(config: Any) -> bool:
    """Whether ``invoke`` / ``ainvoke`` with ``config`` runs as a chain run of the graph
    (as LangGraph's, a Runnable): the config has callbacks (a tracer) that are not the
    graph's own run's, and no task of another run is running (a subgraph's run is not a
    chain run of its own yet: see the module docstring)."""
    callbacks = (config or {}).get("callbacks")
    if not callbacks or callbacks in _CHILDREN:
        return False
    from sgdebug.runtime.engine._nesting import current_parent

    return current_parent() is None


def _own(config: Any) -> dict[str, Any]:
    """The parts of a Runnable config the graph's run takes (its callbacks: the graph's
    run's child manager, marked as such)."""
    callbacks = config.get("callbacks") if config else None
    if callbacks is not None and not isinstance(callbacks, list):
        _CHILDREN.add(callbacks)
    keys = ("tags", "metadata", "configurable", "recursion_limit", "callbacks")
    return {k: config[k] for k in keys if config and config.get(k) is not None}


def _tapped(run: Any, chunks: Iterator[Any]) -> Iterator[Any]:
    """``chunks``, shown to the handlers that watch a run's stream (``astream_events``)."""
    for handler in run.handlers:
        if hasattr(handler, "tap_output_iter"):
            return iter(handler.tap_output_iter(run.run_id, chunks))
    return chunks


async def _achunks(events: Any, asked: Any, out: list[Any]) -> AsyncIterator[Any]:
    modes, multi = _modes(asked)
    wanted = set(modes) if multi or asked == "values" else set(modes) - {"values"}
    async for mode, payload in events:
        if mode == "values":
            out[:] = [_settled(payload)]
        if mode in wanted:
            yield (mode, payload) if multi else payload


def _atapped(run: Any, chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    for handler in run.handlers:
        if hasattr(handler, "tap_output_aiter"):
            tapped: AsyncIterator[Any] = handler.tap_output_aiter(run.run_id, chunks)
            return tapped
    return chunks
