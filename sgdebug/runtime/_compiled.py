"""``CompiledStateGraph``: the runnable graph, with invoke / stream over a :class:`Run`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import aclosing
from dataclasses import replace
from functools import partial
from typing import Any, Literal, Protocol

from sgdebug.runtime import _compiled_api as _api
from sgdebug.runtime import _compiled_state as _state
from sgdebug.runtime import _schema_json as _json
from sgdebug.runtime import _stream_out as _out
from sgdebug.runtime import _subgraph_runs as _subruns
from sgdebug.runtime._attributes import check_assignment
from sgdebug.runtime._constants import (
    DEFAULT_RECURSION_LIMIT,
    INTERRUPT,
)
from sgdebug.runtime._keywords import (
    Interrupts,
    RunRequest,
    check_durability,
    refuse_run_keywords,
)
from sgdebug.runtime._runnable_graph import as_runnable, starts_graph_run
from sgdebug.runtime.engine._context import SCOPE
from sgdebug.runtime.engine._drain import inherited_control
from sgdebug.runtime.engine._forward import astream_events, nested_emitter, stream_events
from sgdebug.runtime.engine._hooks import PauseHook
from sgdebug.runtime.engine._inner_breaks import InnerBreaks, inherited, with_inner_breaks
from sgdebug.runtime.engine._nesting import current_parent
from sgdebug.runtime.engine._run import Run, RunOptions, Task
from sgdebug.runtime.engine._stream import Emitter, anested_output, nested_output
from sgdebug.runtime.errors import (
    EmptyInputError,
    InvalidUpdateError,
)
from sgdebug.runtime.graph import _subgraphs
from sgdebug.runtime.graph._plan import CompileOptions, GraphPlan
from sgdebug.runtime.graph._schema import is_dataclass_type, is_pydantic_model
from sgdebug.runtime.graph._specs import Blueprint
from sgdebug.runtime.persist._async_face import async_stores
from sgdebug.runtime.persist._threads import get_state, get_state_history, update_state
from sgdebug.runtime.types import Command, StateSnapshot

__all__ = ["CompileOptions", "CompiledStateGraph"]

StreamMode = Literal[
    "values", "updates", "custom", "tasks", "debug", "checkpoints", "messages", "tools"
]


class Builder(Blueprint, Protocol):
    """The builder a compiled graph came from (``StateGraph``): it can compile it again."""

    def compile(
        self,
        checkpointer: Any = None,
        *,
        interrupt_before: Sequence[str] | Literal["*"] | None = None,
        interrupt_after: Sequence[str] | Literal["*"] | None = None,
        name: str | None = None,
        store: Any = None,
        cache: Any = None,
    ) -> CompiledStateGraph:
        """A compiled graph of this builder."""
        ...


class CompiledStateGraph(GraphPlan):
    """A graph ready to run; build it with ``StateGraph.compile()``.

    The public façade (invoke / stream / get_state / ...) over the graph's plan.
    """

    config: dict[str, Any] | None = None
    """Bound by ``with_config``: merged under every run's own config."""

    builder: Builder
    _sealed: bool = False
    """Set once compiled: from then on only the settings ``_attributes`` allows are set."""

    def __init__(self, builder: Builder, options: CompileOptions) -> None:
        super().__init__(builder, options)
        # (Set as an attribute, not through ``self.__dict__``: asking for the dict makes
        # Python keep one, and every later read of the graph's attributes then looks it up.)
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, name: str, value: Any) -> None:
        """Only LangGraph's settings sgdebug honours (see ``_attributes``) once compiled."""
        if self._sealed:
            check_assignment(self, name, value)
        super().__setattr__(name, value)

    # -- public API ------------------------------------------------------------------------

    def _new_run(self, input: Any, config: dict[str, Any] | None, request: RunRequest) -> Run:
        """A run positioned to start: input written, or restored from its thread.

        A root run without options, the usual ``invoke``, calls into none of the modules
        for subgraphs, streams, breakpoints, control or savers: each is asked only when its
        part is there (a cold run pays for every module it touches; see ``benchmarks``)."""
        given = config
        config = _api.merged_config(self.config, config) if self.config or config else {}
        parent = None if SCOPE.get() is None else current_parent()
        if parent is not None and _subruns.runs_nested(parent, given):
            parent, config = _subruns.nested_run(self, parent, config)
        else:
            parent = None
        limit = config.get("recursion_limit", DEFAULT_RECURSION_LIMIT)
        if limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        context = request.context
        if context is None and parent is not None:  # a subgraph's run shares its parent's
            context = parent.run.context
        schema = self.builder.context_schema
        if isinstance(context, dict) and (is_dataclass_type(schema) or is_pydantic_model(schema)):
            context = schema(**context)
        durability = request.durability
        if durability is None and parent is not None:  # a subgraph's run inherits it
            durability = parent.run.durability
        before = request.interrupt_before or self.interrupt_before_nodes
        after = request.interrupt_after or self.interrupt_after_nodes
        inner, emit, control = None, request.emit, request.control
        if parent is not None:  # (a root run asks none of these modules: see the docstring)
            inner = inherited(parent)
            emit = nested_emitter(emit, parent, self.stream_keys)
            control = control or inherited_control(parent)
            if inner is not None:
                frame = _subruns.recast(parent.namespace)
                before, after = with_inner_breaks(inner, frame, before, after)
        run = Run(
            self,
            RunOptions(
                config, limit, tuple(request.hooks), context, emit,
                before if isinstance(before, str) else tuple(before),
                after if isinstance(after, str) else tuple(after),
                _watch(request.watch), durability, parent,
                control, inner,
                self.store if parent is None else parent.run.store,
            ),
        )  # fmt: skip
        where = None
        if parent is not None or self.checkpointer is not None:
            where = _subruns.storage(self, parent, config)
        if where is None:
            if isinstance(input, Command) and input.resume is not None:
                raise RuntimeError("Cannot use Command(resume=...) without checkpointer")
            if isinstance(input, Command) and input.graph == Command.PARENT:
                raise InvalidUpdateError("There is no parent graph")
            if input is None:
                raise EmptyInputError("Received no input for __start__")
            run.write_input(input)
        elif parent is None:
            _subruns.start_root(self, run, input, config)
        else:
            _subruns.start_nested(run, input, *where)
        return run

    def start(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        hooks: Sequence[PauseHook] = (),
        context: Any = None,
        emit: Emitter | None = None,
        inner_breaks: InnerBreaks | None = None,
        inner_emit: Emitter | None = None,
    ) -> Run:
        """A run of this graph on ``input``, not yet advanced (for debuggers); it stops at
        ``inner_breaks`` (nodes of subgraphs by path) too; ``inner_emit`` collects the events
        of the subgraphs its tasks run when ``emit`` does not (``RunOptions.inner_emit``)."""
        run = self._new_run(input, config, RunRequest(context, tuple(hooks), emit=emit))
        if inner_breaks is not None:
            run.options.inner_breaks = inner_breaks
        if inner_emit is not None:
            run.options.inner_emit = inner_emit
        return run

    def next_tasks(self, config: dict[str, Any]) -> list[Task]:
        """The tasks (with inputs and triggers) of the step after the checkpoint ``config``
        names, planned, not run, nothing saved; ``ValueError`` if it is not stored."""
        from sgdebug.runtime.persist._persist import Persistence

        saver = self._saver()
        configurable = config.get("configurable", {})
        thread_id = configurable.get("thread_id")
        record = saver.get_record(thread_id, configurable.get("checkpoint_id"))
        if record is None:
            raise ValueError(f"no checkpoint of thread {thread_id!r} matches {configurable}")
        persist = Persistence(saver, thread_id)
        run = Run(self, RunOptions({}, DEFAULT_RECURSION_LIMIT))
        run.restore(persist, persist.load(record))
        return run.next_tasks()

    # -- checkpoints -----------------------------------------------------------------------

    def _saver(self) -> Any:
        if self.checkpointer is None:
            raise ValueError("No checkpointer set")
        return self.checkpointer

    def get_state(self, config: dict[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest snapshot, or the checkpoint the config names (a subgraph's
        when its ``checkpoint_ns`` names one); ``subgraphs``: with its subgraphs' states."""
        self._saver()
        snap = get_state(*_subruns.target(self, config))
        return _subruns.with_subgraph_states(self, snap) if subgraphs else snap

    def get_state_history(
        self,
        config: dict[str, Any],
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[StateSnapshot]:
        """Every snapshot of the thread, newest first."""
        self._saver()
        plan, config = _subruns.target(self, config)
        return get_state_history(plan, config, filter=filter, before=before, limit=limit)

    def update_state(
        self,
        config: dict[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Apply ``values`` as if ``as_node`` returned them; returns the new checkpoint's config."""
        self._saver()
        plan, target = _subruns.target(self, config, strict=True)
        return update_state(plan, target, values, as_node, task_id)

    get_subgraphs, aget_subgraphs = _subgraphs.get_subgraphs, _subgraphs.aget_subgraphs
    aget_state = _state.aget_state
    aget_state_history = _state.aget_state_history
    aupdate_state = _state.aupdate_state
    bulk_update_state = _state.bulk_update_state
    abulk_update_state = _state.abulk_update_state
    with_config, copy, get_name = _api.with_config, _api.copy, _api.get_name
    clear_cache, aclear_cache = _api.clear_cache, _api.aclear_cache
    batch, abatch = _api.batch, _api.abatch
    astream_events, __or__ = _api.astream_events, _api.or_
    channels, input_channels = property(_api.channels), property(_api.input_channels)
    output_channels, stream_channels = (
        property(_api.output_channels),
        property(_api.stream_channels),
    )
    get_input_jsonschema, get_output_jsonschema = _json.input_jsonschema, _json.output_jsonschema
    get_context_jsonschema = _json.context_jsonschema

    def invoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: StreamMode | Sequence[StreamMode] = "values",
        print_mode: StreamMode | Sequence[StreamMode] = (),
        output_keys: str | Sequence[str] | None = None,
        interrupt_before: Interrupts = None,
        interrupt_after: Interrupts = None,
        durability: str | None = None,
        control: Any = None,
        subgraphs: bool = False,
        version: str = "v1",
        **deprecated: Any,
    ) -> Any:
        """Run the graph to the end and return its output (by default the output state)."""
        if deprecated or version != "v1":  # (the usual call checks nothing: no call made)
            refuse_run_keywords("invoke", print_mode, version, deprecated)
        if durability is not None:
            check_durability("invoke", durability, self.checkpointer)
        tracer = config and config.get("callbacks")
        if tracer and starts_graph_run(config):  # a tracer sees the graph's run, its nodes within
            return as_runnable(self).invoke(
                input, config, context=context, stream_mode=stream_mode, print_mode=print_mode,
                output_keys=output_keys, interrupt_before=interrupt_before,
                interrupt_after=interrupt_after, durability=durability, control=control,
                subgraphs=subgraphs, version=version, **deprecated,
            )  # fmt: skip
        debug = deprecated.get("debug")
        if print_mode or version != "v1" or (self.debug if debug is None else debug):
            stream = partial(
                self.stream, input, config, context=context, print_mode=print_mode,
                output_keys=output_keys, interrupt_before=interrupt_before,
                interrupt_after=interrupt_after, durability=durability,
                debug=debug, subgraphs=subgraphs, control=control,
            )  # fmt: skip
            return _out.invoke_streamed(stream, stream_mode, version)
        keys = self.output_keys if output_keys is None else output_keys
        if stream_mode != "values" or subgraphs:
            chunks = self.stream(
                input, config, context=context,
                stream_mode=["updates", "values"] if stream_mode == "values" else stream_mode,
                output_keys=keys if stream_mode == "values" else output_keys,
                interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                durability=durability, subgraphs=subgraphs, control=control,
            )  # fmt: skip
            return nested_output(chunks) if stream_mode == "values" else list(chunks)
        request = RunRequest(
            context, (), interrupt_before, interrupt_after, keys, durability=durability,
            control=control,
        )  # fmt: skip
        run = self._new_run(input, config, request)
        run.advance()
        return self._output(run, keys)

    def _output(self, run: Run, keys: str | Sequence[str]) -> Any:
        if run.options.parent is not None:  # (a subgraph's run stops its parent's task)
            _subruns.raise_stop(run)
        result = run.read_values(keys) if run.watched_changed else None
        if run.interrupts:  # (a state that is not a dict, e.g. a list, is left out)
            values = result if isinstance(result, dict) else {}
            result = {**values, INTERRUPT: list(run.interrupts)}
        return result

    def stream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: StreamMode | Sequence[StreamMode] | None = None,
        print_mode: StreamMode | Sequence[StreamMode] = (),
        output_keys: str | Sequence[str] | None = None,
        interrupt_before: Interrupts = None,
        interrupt_after: Interrupts = None,
        durability: str | None = None,
        control: Any = None,
        subgraphs: bool = False,
        debug: bool | None = None,
        version: str = "v1",
        **deprecated: Any,
    ) -> Iterator[Any]:
        """Run the graph, yielding the chunks of ``stream_mode`` as each superstep ends."""
        refuse_run_keywords("stream", print_mode, version, deprecated)
        check_durability("stream", durability, self.checkpointer)
        request = RunRequest(
            context, (), interrupt_before, interrupt_after, durability=durability, control=control
        )
        shape = _out.shape_of(self, stream_mode, print_mode, debug, version, subgraphs)
        run, emit = self._streamed(input, config, request, shape.modes, output_keys, subgraphs)
        try:
            yield from shape.chunks(stream_events(partial(run.advance, one_step=True), emit))
            _subruns.raise_stop(run)
        finally:
            _closed(run)

    def _streamed(
        self,
        input: Any,
        config: dict[str, Any] | None,
        request: RunRequest,
        stream_mode: str | Sequence[str] | None,
        output_keys: str | Sequence[str] | None,
        subgraphs: bool,
    ) -> tuple[Run, Emitter]:
        """A run whose events go to an emitter (``stream`` and ``astream``)."""
        modes = "updates" if stream_mode is None else stream_mode
        keys = self.stream_keys if output_keys is None else output_keys
        emit = Emitter(modes, keys, update_keys=output_keys, subgraphs=subgraphs)
        return self._new_run(input, config, replace(request, emit=emit)), emit

    async def ainvoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: StreamMode | Sequence[StreamMode] = "values",
        print_mode: StreamMode | Sequence[StreamMode] = (),
        output_keys: str | Sequence[str] | None = None,
        interrupt_before: Interrupts = None,
        interrupt_after: Interrupts = None,
        durability: str | None = None,
        control: Any = None,
        subgraphs: bool = False,
        version: str = "v1",
        **deprecated: Any,
    ) -> Any:
        """Async :meth:`invoke`: async nodes run on the caller's event loop."""
        refuse_run_keywords("ainvoke", print_mode, version, deprecated)
        check_durability("ainvoke", durability, self.checkpointer)
        if starts_graph_run(config):
            return await as_runnable(self).ainvoke(
                input, config, context=context, stream_mode=stream_mode, print_mode=print_mode,
                output_keys=output_keys, interrupt_before=interrupt_before,
                interrupt_after=interrupt_after, durability=durability, control=control,
                subgraphs=subgraphs, version=version, **deprecated,
            )  # fmt: skip
        debug = deprecated.get("debug")
        if print_mode or version != "v1" or (self.debug if debug is None else debug):
            astream = partial(
                self.astream, input, config, context=context, print_mode=print_mode,
                output_keys=output_keys, interrupt_before=interrupt_before,
                interrupt_after=interrupt_after, durability=durability,
                debug=debug, subgraphs=subgraphs, control=control,
            )  # fmt: skip
            return await _out.ainvoke_streamed(astream, stream_mode, version)
        keys = self.output_keys if output_keys is None else output_keys
        if stream_mode != "values" or subgraphs:
            chunks = self.astream(
                input, config, context=context,
                stream_mode=["updates", "values"] if stream_mode == "values" else stream_mode,
                output_keys=keys if stream_mode == "values" else output_keys,
                interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                durability=durability, subgraphs=subgraphs, control=control,
            )  # fmt: skip
            if stream_mode == "values":
                return await anested_output(chunks)
            return [c async for c in chunks]
        request = RunRequest(
            context, (), interrupt_before, interrupt_after, keys, durability=durability,
            control=control,
        )  # fmt: skip
        with async_stores(self.channel_specs, config):
            run = self._new_run(input, config, request)
        await run.aadvance()
        return self._output(run, keys)

    async def astream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: StreamMode | Sequence[StreamMode] | None = None,
        print_mode: StreamMode | Sequence[StreamMode] = (),
        output_keys: str | Sequence[str] | None = None,
        interrupt_before: Interrupts = None,
        interrupt_after: Interrupts = None,
        durability: str | None = None,
        control: Any = None,
        subgraphs: bool = False,
        debug: bool | None = None,
        version: str = "v1",
        **deprecated: Any,
    ) -> AsyncIterator[Any]:
        """Async :meth:`stream`."""
        refuse_run_keywords("astream", print_mode, version, deprecated)
        check_durability("astream", durability, self.checkpointer)
        request = RunRequest(
            context, (), interrupt_before, interrupt_after, durability=durability, control=control
        )
        shape = _out.shape_of(self, stream_mode, print_mode, debug, version, subgraphs)
        with async_stores(self.channel_specs, config):
            run, emit = self._streamed(input, config, request, shape.modes, output_keys, subgraphs)
        try:
            events = astream_events(partial(run.aadvance, one_step=True), emit)
            async with aclosing(events):  # (a reader closing this stream closes the run's)
                async for event in events:
                    for chunk in shape.chunks((event,)):
                        yield chunk
            _subruns.raise_stop(run)
        finally:
            _closed(run)
            if run.persist is not None and run.persist.astore is not None:
                await run.persist.astore()

    def get_graph(self, xray: bool | int = False) -> Any:
        """A drawable view of the graph (``.draw_mermaid()``)."""
        from sgdebug.runtime._draw import get_graph

        return get_graph(self, xray=xray)


def _closed(run: Run) -> None:
    """A stream ended, maybe closed by its reader between steps: with ``durability="exit"``
    the checkpoint the run reached is stored (as LangGraph does); else nothing is left."""
    if run.persist is not None and run.options.durability == "exit":
        run.persist.finish()


def _watch(keys: str | Sequence[str] | None) -> frozenset[str]:
    if keys is None:
        return frozenset()
    return frozenset([keys] if isinstance(keys, str) else keys)
