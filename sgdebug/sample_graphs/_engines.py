"""The same graph program on either engine: sgdebug's runtime or LangGraph.

Sample graphs, differential tests and benchmarks build their graphs from an
:class:`EngineAPI`, so one program runs unchanged on both engines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Engine = Literal["sgdebug", "langgraph"]
ENGINES: tuple[Engine, ...] = ("sgdebug", "langgraph")


@dataclass(frozen=True, slots=True)
class EngineAPI:
    """The public names a StateGraph program uses, taken from one engine."""

    name: Engine
    StateGraph: Any
    START: str
    END: str
    Send: Any
    Command: Any
    Overwrite: Any
    interrupt: Any
    get_config: Any
    get_stream_writer: Any
    add_messages: Any
    MessagesState: Any
    InMemorySaver: Any
    RemainingSteps: Any
    IsLastStep: Any
    LastValue: Any
    BinaryOperatorAggregate: Any
    EphemeralValue: Any
    Topic: Any
    LastValueAfterFinish: Any
    UntrackedValue: Any
    InvalidUpdateError: Any
    GraphRecursionError: Any
    EmptyInputError: Any
    StateUpdate: Any


def api(engine: Engine = "sgdebug") -> EngineAPI:
    """The names of ``engine``; LangGraph is imported only when asked for."""
    if engine == "langgraph":
        return _langgraph_api()
    return _sgdebug_api()


def _sgdebug_api() -> EngineAPI:
    from sgdebug import runtime as rt
    from sgdebug.runtime import channels as ch
    from sgdebug.runtime import errors as er
    from sgdebug.runtime import managed as mv
    from sgdebug.runtime import types as ty

    return EngineAPI(
        name="sgdebug",
        StateGraph=rt.StateGraph,
        START=rt.START,
        END=rt.END,
        Send=rt.Send,
        Command=rt.Command,
        Overwrite=rt.Overwrite,
        interrupt=rt.interrupt,
        get_config=rt.get_config,
        get_stream_writer=rt.get_stream_writer,
        add_messages=rt.add_messages,
        MessagesState=rt.MessagesState,
        InMemorySaver=rt.InMemorySaver,
        RemainingSteps=mv.RemainingSteps,
        IsLastStep=mv.IsLastStep,
        LastValue=ch.LastValue,
        BinaryOperatorAggregate=ch.BinaryOperatorAggregate,
        EphemeralValue=ch.EphemeralValue,
        Topic=ch.Topic,
        LastValueAfterFinish=ch.LastValueAfterFinish,
        UntrackedValue=ch.UntrackedValue,
        InvalidUpdateError=er.InvalidUpdateError,
        GraphRecursionError=er.GraphRecursionError,
        EmptyInputError=er.EmptyInputError,
        StateUpdate=ty.StateUpdate,
    )


def _langgraph_api() -> EngineAPI:
    from langgraph import channels as ch
    from langgraph import errors as er
    from langgraph import managed as mv
    from langgraph import types as ty
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_config, get_stream_writer
    from langgraph.graph import END, START, MessagesState, StateGraph, add_messages

    return EngineAPI(
        name="langgraph",
        StateGraph=StateGraph,
        START=START,
        END=END,
        Send=ty.Send,
        Command=ty.Command,
        Overwrite=ty.Overwrite,
        interrupt=ty.interrupt,
        get_config=get_config,
        get_stream_writer=get_stream_writer,
        add_messages=add_messages,
        MessagesState=MessagesState,
        InMemorySaver=InMemorySaver,
        RemainingSteps=mv.RemainingSteps,
        IsLastStep=mv.IsLastStep,
        LastValue=ch.LastValue,
        BinaryOperatorAggregate=ch.BinaryOperatorAggregate,
        EphemeralValue=ch.EphemeralValue,
        Topic=ch.Topic,
        LastValueAfterFinish=ch.LastValueAfterFinish,
        UntrackedValue=ch.UntrackedValue,
        InvalidUpdateError=er.InvalidUpdateError,
        GraphRecursionError=er.GraphRecursionError,
        EmptyInputError=er.EmptyInputError,
        StateUpdate=ty.StateUpdate,
    )
