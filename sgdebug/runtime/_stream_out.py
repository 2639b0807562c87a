"""What a stream hands out: ``print_mode`` / ``debug`` printing, ``version="v2"`` parts, and
``invoke(version="v2")``'s :class:`GraphOutput`.

A run's emitter collects ``(mode, payload)`` events for the modes asked for; this shapes
them as LangGraph 1.2 does:

* every event of a ``print_mode`` mode is printed as ``[mode] repr(payload)`` (the mode in
  bold), whether it is streamed or not; ``debug=True`` prints ``updates`` and ``values``;
* with ``version="v1"`` a chunk is the payload (or ``(mode, payload)`` when ``stream_mode``
  is a list); with ``"v2"`` every chunk is a dict ``{"type", "ns", "data"}``, a ``values``
  chunk also carries ``"interrupts"`` (taken out of its data), and for a pydantic or
  dataclass state its data is an instance of the output schema (of the state schema in
  ``checkpoints`` / ``debug`` payloads, except the first, input checkpoint's);
* ``invoke`` with ``print_mode``, ``debug`` or ``version="v2"`` runs as a stream, as
  LangGraph's does; with ``"v2"`` it returns a :class:`GraphOutput`.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from sgdebug.runtime._constants import INTERRUPT, START
from sgdebug.runtime.graph._schema import is_dataclass_type, is_pydantic_model
from sgdebug.runtime.types import Interrupt

if TYPE_CHECKING:
    from sgdebug.runtime.graph._plan import GraphPlan

__all__ = ["GraphOutput", "StreamShape", "ainvoke_streamed", "invoke_streamed", "shape_of"]

T = TypeVar("T")


class GraphOutputDeprecationWarning(DeprecationWarning):
    """Reading a :class:`GraphOutput` as the dict ``invoke`` returns with ``version="v1"``."""


@dataclass(frozen=True, slots=True)
class GraphOutput(Generic[T]):
    """What ``invoke`` / ``ainvoke`` return with ``version="v2"``."""

    value: T
    """The run's output (a dict, or the output schema's pydantic model / dataclass)."""
    interrupts: tuple[Interrupt, ...] = ()
    """The interrupts the run stopped at."""

    def __getitem__(self, key: str) -> Any:
        """Deprecated: ``result[key]`` as with ``version="v1"`` (``"__interrupt__"`` included)."""
        _deprecated("result[key]")
        if key == INTERRUPT:
            return self.interrupts
        if isinstance(self.value, dict):
            return self.value[key]
        try:
            return getattr(self.value, key)
        except AttributeError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        """Deprecated: ``key in result`` as with ``version="v1"``."""
        _deprecated("key in result")
        if key == INTERRUPT:
            return bool(self.interrupts)
        if isinstance(self.value, dict):
            return key in self.value
        return isinstance(key, str) and hasattr(self.value, key)


def _deprecated(use: str) -> None:
    warnings.warn(
        f"Accessing GraphOutput via `{use}` is deprecated. Use `result.value` for the output "
        "value, or `result.interrupts` for the interrupts.",
        GraphOutputDeprecationWarning,
        stacklevel=3,
    )


def _modes(mode: str | Sequence[str] | None) -> tuple[str, ...]:
    if mode is None:
        return ()
    return (mode,) if isinstance(mode, str) else tuple(mode)


class StreamShape:
    """How one stream's events become its chunks (see the module docstring)."""

    __slots__ = (
        "multi", "output_mapper", "print_modes", "state_mapper", "stream_modes", "subgraphs", "v2",
    )  # fmt: skip

    def __init__(
        self,
        stream_modes: tuple[str, ...],
        print_modes: tuple[str, ...],
        multi: bool,
        version: str,
        subgraphs: bool = False,
    ) -> None:
        self.stream_modes = frozenset(stream_modes)
        self.subgraphs = subgraphs
        """``stream(subgraphs=True)``: chunks carry the namespace they come from."""
        self.print_modes = frozenset(print_modes)
        self.multi = multi
        self.v2 = version == "v2"
        self.output_mapper: Callable[[dict[str, Any]], Any] | None = None
        self.state_mapper: Callable[[dict[str, Any]], Any] | None = None

    @property
    def modes(self) -> tuple[str, ...]:
        """Every mode the run's emitter must collect (streamed or printed)."""
        return tuple(self.stream_modes | self.print_modes)

    def chunks(self, events: Iterable[tuple[Any, ...]]) -> Iterator[Any]:
        """The chunks of ``events``, printing those of the print modes.

        An event is ``(mode, payload)``, or ``(mode, payload, namespace)`` when it comes
        from a subgraph (only collected with ``subgraphs=True``).
        """
        for event in events:
            mode, payload = event[0], event[1]
            if mode in self.print_modes:
                print(f"\033[1m[{mode}]\033[0m {payload!r}")
            if mode not in self.stream_modes:
                continue
            namespace = event[2] if len(event) == 3 else ()
            if self.v2:
                yield self._part(mode, payload, namespace)
            elif self.subgraphs:
                yield (namespace, mode, payload) if self.multi else (namespace, payload)
            else:
                yield (mode, payload) if self.multi else payload

    def _part(self, mode: str, payload: Any, namespace: tuple[str, ...]) -> dict[str, Any]:
        if mode == "values":
            interrupts: Any = ()
            if isinstance(payload, dict):
                interrupts = payload.pop(INTERRUPT, ())
                if self.output_mapper is not None:
                    payload = self.output_mapper(payload)
            return {"type": mode, "ns": namespace, "data": payload, "interrupts": interrupts}
        if mode in ("checkpoints", "debug") and self.state_mapper is not None:
            _map_checkpoint_values(payload, self.state_mapper)
        return {"type": mode, "ns": namespace, "data": payload}


def shape_of(
    graph: GraphPlan,
    stream_mode: str | Sequence[str] | None,
    print_mode: str | Sequence[str],
    debug: bool | None,
    version: str,
    subgraphs: bool = False,
) -> StreamShape:
    """The shape of a ``stream`` call's chunks (``stream_mode=None``: ``"updates"``)."""
    streamed = _modes(stream_mode) or ("updates",)
    if debug is None:
        debug = graph.debug
    printed = ("updates", "values") if debug else _modes(print_mode)
    multi = not (stream_mode is None or isinstance(stream_mode, str))
    shape = StreamShape(streamed, printed, multi, version, subgraphs)
    if shape.v2 and not graph.root:
        shape.output_mapper = _mapper(graph.builder.output_schema)
        shape.state_mapper = _mapper(graph.builder.state_schema)
    return shape


def _mapper(schema: Any) -> Callable[[dict[str, Any]], Any] | None:
    if is_pydantic_model(schema) or is_dataclass_type(schema):
        return lambda values: schema(**values)
    return None


def _map_checkpoint_values(payload: Any, mapper: Callable[[dict[str, Any]], Any]) -> None:
    """Make the ``values`` of a checkpoint payload (or of a debug checkpoint event) schema
    instances, in place; not the first checkpoint's (the input's: not every key is set)."""
    if not isinstance(payload, dict):
        return
    if payload.get("type") == "checkpoint" and isinstance(payload.get("payload"), dict):
        payload = payload["payload"]
    if isinstance(payload.get("values"), dict) and START not in payload.get("next", ()):
        payload["values"] = mapper(payload["values"])


def invoke_streamed(
    stream: Callable[..., Iterable[Any]], stream_mode: str | Sequence[str], version: str
) -> Any:
    """``invoke`` run as a stream: ``stream`` is ``graph.stream`` bound to everything but
    ``stream_mode`` and ``version``."""
    collected = _Collected(stream_mode, version)
    for chunk in stream(stream_mode=collected.asked, version=version):
        collected.add(chunk)
    return collected.result()


async def ainvoke_streamed(
    astream: Callable[..., AsyncIterable[Any]], stream_mode: str | Sequence[str], version: str
) -> Any:
    """Async :func:`invoke_streamed`."""
    collected = _Collected(stream_mode, version)
    async for chunk in astream(stream_mode=collected.asked, version=version):
        collected.add(chunk)
    return collected.result()


class _Collected:
    """The output ``invoke`` builds from the chunks of its stream."""

    __slots__ = ("asked", "chunks", "interrupts", "latest", "values", "version")

    def __init__(self, stream_mode: str | Sequence[str], version: str) -> None:
        self.values = stream_mode == "values"
        self.version = version
        self.asked: str | Sequence[str] = stream_mode
        if self.values and version == "v1":
            self.asked = ["updates", "values"]  # the interrupts come with the updates
        self.latest: Any = None
        self.chunks: list[Any] = []
        self.interrupts: list[Interrupt] = []

    def add(self, chunk: Any) -> None:
        if not self.values:
            self.chunks.append(chunk)
        elif self.version == "v2":
            self.latest = chunk["data"]
            self.interrupts.extend(chunk.get("interrupts", ()))
        else:  # (mode, payload), or (namespace, mode, payload) with subgraphs=True
            mode, payload = chunk[-2], chunk[-1]
            if mode == "values":
                self.latest = payload
            elif isinstance(payload, dict) and payload.get(INTERRUPT) is not None:
                self.interrupts.extend(payload[INTERRUPT])

    def result(self) -> Any:
        if not self.values:
            return self.chunks
        if self.version == "v2":
            return GraphOutput(self.latest, tuple(self.interrupts))
        if self.interrupts:
            values = self.latest if isinstance(self.latest, dict) else {}
            return {**values, INTERRUPT: self.interrupts}
        return self.latest
