"""Keywords LangGraph accepts that sgdebug.runtime does not support (yet), refused by name.

Every public entry point spells out its keywords; one LangGraph knows and we do not
implement raises :class:`NotImplementedError` naming it (never ignored: a silently dropped
``subgraphs=True`` would return chunks of the wrong shape), and an unknown one raises
:class:`TypeError` as any Python function does. :class:`RunRequest` carries the keywords a
run does take from the façade to the run it starts.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from sgdebug.runtime._control import RunControl
    from sgdebug.runtime.engine._hooks import PauseHook
    from sgdebug.runtime.engine._stream import Emitter

__all__ = [
    "Interrupts",
    "RunRequest",
    "check_cache",
    "check_checkpointer",
    "check_durability",
    "refuse_deprecated",
    "refuse_run_keywords",
    "refuse_unsupported",
]

Interrupts = Sequence[str] | Literal["*"] | None
"""Nodes to stop before/after (``"*"``: all), for one run."""


def refuse_unsupported(call: str, given: Mapping[str, Any]) -> None:
    """Raise for the first keyword of ``given`` that is set (not ``None``/``False``/empty).

    ``given`` holds the caller's values of keywords whose default means "unused".
    """
    for name, value in given.items():
        if value is not None and value is not False and value != () and value != []:
            raise NotImplementedError(
                f"{call}({name}={value!r}) is not supported by sgdebug.runtime yet"
            )


def refuse_deprecated(call: str, given: Mapping[str, Any], known: Mapping[str, str]) -> None:
    """Raise for the first keyword of ``given`` (a ``**kwargs`` catch-all).

    ``known`` maps LangGraph's deprecated spellings to what they stand for: those raise
    :class:`NotImplementedError`; any other name raises :class:`TypeError`.
    """
    for name in given:
        if name in known:
            raise NotImplementedError(
                f"{call}({name}=...) (LangGraph's deprecated spelling of {known[name]}) is "
                "not supported by sgdebug.runtime"
            )
        raise TypeError(f"{call}() got an unexpected keyword argument {name!r}")


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What one ``invoke``/``stream``/``start`` call asks of its run."""

    context: Any = None
    """The run's context (``context=``), built into the context schema if it is a dict."""
    hooks: tuple[PauseHook, ...] = ()
    """Pause hooks (``start(hooks=)``)."""
    interrupt_before: Interrupts = None
    """Overrides the compiled ``interrupt_before`` when given."""
    interrupt_after: Interrupts = None
    """Overrides the compiled ``interrupt_after`` when given."""
    watch: str | Sequence[str] | None = None
    """Output keys whose change ``invoke`` reports."""
    emit: Emitter | None = None
    """Collects stream events (``stream``); ``None`` when nobody listens."""
    durability: str | None = None
    """When checkpoints are stored: ``"sync"``, ``"async"``, ``"exit"`` (``None``: LangGraph's
    default, every step)."""
    control: RunControl | None = None
    """Asks the run to stop between steps (``control=``); a subgraph's run takes its parent's."""


DURABILITIES = (None, "sync", "async", "exit")


def check_durability(call: str, durability: Any, checkpointer: Any) -> None:
    """Refuse an unknown ``durability=`` (LangGraph 1.2.22 ignores it); warn, as LangGraph
    does, when there is no checkpointer for it to act on."""
    if durability not in DURABILITIES:
        raise ValueError(
            f"{call}(durability={durability!r}): expected 'sync', 'async', 'exit' or None"
        )
    if durability is not None and checkpointer is None:
        warnings.warn("`durability` does nothing without a checkpointer", UserWarning, stacklevel=3)


def refuse_run_keywords(
    call: str,
    print_mode: Any,
    version: str,
    deprecated: Mapping[str, Any],
) -> None:
    """Refuse the run keywords LangGraph accepts and sgdebug.runtime does not support
    (``print_mode`` is not one; ``debug`` comes in ``deprecated`` for ``invoke``)."""
    if version not in ("v1", "v2"):
        raise NotImplementedError(
            f"{call}(version={version!r}) is not supported by sgdebug.runtime yet"
        )
    others = {k: v for k, v in deprecated.items() if k != "debug"}
    refuse_deprecated(call, others, {"checkpoint_during": "durability"})


def check_checkpointer(checkpointer: Any) -> None:
    """LangGraph's check: a saver, or ``True``/``False``/``None`` (subgraph inheritance)."""
    if checkpointer is None or checkpointer is True or checkpointer is False:
        return
    from sgdebug.runtime.checkpoint.base import BaseCheckpointSaver

    if not isinstance(checkpointer, BaseCheckpointSaver):
        _refuse_langgraph_saver(checkpointer)
        raise TypeError(
            "Invalid checkpointer provided. Expected an instance of `BaseCheckpointSaver`, "
            f"`True`, `False`, or `None`. Received {type(checkpointer).__name__}. Pass a "
            "proper saver (e.g., InMemorySaver, AsyncPostgresSaver)."
        )


def _refuse_langgraph_saver(checkpointer: Any) -> None:
    """A saver of LangGraph's own (``langgraph.checkpoint.*``): named, with what to use."""
    kind = type(checkpointer)
    theirs = next(
        (c for c in kind.__mro__ if c.__module__.startswith("langgraph.checkpoint")), None
    )
    if theirs is None:
        return
    raise TypeError(
        f"compile(checkpointer=...) got LangGraph's {kind.__name__} ({theirs.__module__}."
        f"{theirs.__name__}): sgdebug.runtime stores checkpoints through its own savers. Use "
        "sgdebug.runtime.InMemorySaver or sgdebug.runtime.SqliteSaver (a subclass may "
        "override put, put_writes, aput and aput_writes LangGraph's way), or run the graph "
        "on LangGraph itself (the debugger's langgraph engine)"
    )


def check_cache(cache: Any) -> None:
    """``compile(cache=)`` takes a cache: an object with LangGraph's ``BaseCache`` methods."""
    if cache is None:
        return
    methods = ("get", "aget", "set", "aset", "clear", "aclear")
    if not all(callable(getattr(cache, m, None)) for m in methods):
        raise TypeError(
            "compile(cache=...) takes a BaseCache (such as InMemoryCache), got "
            f"{type(cache).__name__}"
        )
