"""sgdebug's runtime: a LangGraph-compatible StateGraph engine with superstep pause hooks.

Porting a LangGraph program is a change of imports::

    from sgdebug.runtime import END, START, StateGraph

The layout, top down (each layer imports only those below it; ``lint-imports`` keeps it so):

* The façade: ``_state_graph`` (the ``StateGraph`` builder, checked and compiled),
  ``_compiled`` (``CompiledStateGraph``: ``invoke``/``stream``/``get_state``/..., over a
  frozen plan of the graph; explicit keywords, an unsupported one refused by name through
  ``_keywords``), with ``_compiled_api``, ``_compiled_state``, ``_runnable_graph``,
  ``_stream_out``, ``_subgraph_runs`` and the drawing (``_draw*``, ``_schema_json``).
* ``persist``: saving a run's checkpoints, loading them back, threads and ``update_state``.
* ``engine``: ``Run``, the phase machine with one superstep loop; planning and applying
  writes as free functions; task calling, executors, streaming; ``PauseHook`` and the
  read-only ``RunView`` hooks see a run through.
* ``graph``: the compiled plan (nodes, readers, edges, schemas) the engine runs.
* ``channels``, ``checkpoint`` (the savers and their records), ``managed``, ``cache``,
  ``store``, ``types``, ``errors``: the pieces every layer above uses.

Each sub-package's docstring says which of its modules owns what.
"""

from __future__ import annotations

from sgdebug.runtime._compiled import CompiledStateGraph
from sgdebug.runtime._constants import END, START
from sgdebug.runtime._control import RunControl
from sgdebug.runtime._server_info import ServerInfo
from sgdebug.runtime._state_graph import StateGraph
from sgdebug.runtime.engine._context import (
    Runtime,
    get_config,
    get_store,
    get_stream_writer,
    interrupt,
)
from sgdebug.runtime.engine._hooks import BaseHook, PauseHook
from sgdebug.runtime.engine._records import ChannelChange, CommitRecord, TaskWrite
from sgdebug.runtime.engine._run import Run, Task
from sgdebug.runtime.engine._step_failure import (
    StepFailure,
    commit_failure,
    plan_failure,
    reducer_name,
)
from sgdebug.runtime.engine._view import RunView
from sgdebug.runtime.graph._messages import MessagesState, add_messages
from sgdebug.runtime.persist._threads import inspect_state
from sgdebug.runtime.types import (
    Command,
    Interrupt,
    Overwrite,
    PregelTask,
    Send,
    StateSnapshot,
    StreamWriter,
)

__all__ = [
    "END",
    "START",
    "BaseHook",
    "ChannelChange",
    "Command",
    "CommitRecord",
    "CompiledStateGraph",
    "InMemorySaver",
    "Interrupt",
    "MessagesState",
    "Overwrite",
    "PauseHook",
    "RunControl",
    "PregelTask",
    "Run",
    "RunView",
    "Runtime",
    "Send",
    "ServerInfo",
    "SqliteSaver",
    "StateGraph",
    "StateSnapshot",
    "StepFailure",
    "StreamWriter",
    "Task",
    "TaskWrite",
    "add_messages",
    "commit_failure",
    "get_config",
    "get_store",
    "get_stream_writer",
    "inspect_state",
    "interrupt",
    "plan_failure",
    "reducer_name",
]


def __getattr__(name: str) -> object:
    # The savers import sqlite3 and the serialiser: load them only when asked for.
    if name in ("InMemorySaver", "SqliteSaver"):
        from sgdebug.runtime import checkpoint

        return getattr(checkpoint, name)
    raise AttributeError(f"module 'sgdebug.runtime' has no attribute {name!r}")
