"""What views read of a graph, whichever engine runs it: the :class:`GraphModel` protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["GraphModel"]


class GraphModel(Protocol):
    """What views read of a graph: its nodes, channels and drawing (no run needed)."""

    @property
    def name(self) -> str: ...
    @property
    def nodes(self) -> tuple[str, ...]:
        """The nodes, in ``add_node`` order."""
        ...

    @property
    def user_fields(self) -> Mapping[str, Any]:
        """State key -> its channel (``sgdebug.runtime.channels``) or managed value class."""
        ...

    @property
    def channel_specs(self) -> Mapping[str, Any]:
        """Every channel, internal ones included (``branch:to:x``, ...)."""
        ...

    @property
    def state_keys(self) -> frozenset[str]: ...
    @property
    def stream_keys(self) -> str | tuple[str, ...]: ...
    @property
    def builder(self) -> Any:
        """The builder the graph was compiled from (read by ``inspect.topology``)."""
        ...

    @property
    def state_schema(self) -> Any: ...
    @property
    def interrupt_before_nodes(self) -> Sequence[str] | str: ...
    @property
    def interrupt_after_nodes(self) -> Sequence[str] | str: ...
    def get_graph(self, xray: bool | int = False) -> Any:
        """The drawable graph (``nodes``, ``edges``, ``draw_mermaid()``)."""
        ...
