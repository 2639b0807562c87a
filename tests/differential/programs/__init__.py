"""The graph programs of the differential suite, grouped by topic.

Importing this package registers every runtime-core program in ``harness.CORE``; the
checkpoint/interrupt programs (``programs.checkpoint``) register in ``harness.CHECKPOINT``
and are imported by their own test module.
"""

from __future__ import annotations

from . import (
    asyncio_,
    builder,
    cache,
    channels,
    edges,
    finish_order,
    messages,
    messages_stream,
    nested_parallel,
    parent_command,
    policies,
    reducers,
    runnables,
    runtime,
    samples,
    schemas,
    send_command,
    start_order,
    subgraph_detection,
    subgraph_streams,
    subgraphs,
    tools_stream,
    waiting_siblings,
)

__all__ = [
    "asyncio_",
    "builder",
    "cache",
    "channels",
    "edges",
    "finish_order",
    "messages",
    "messages_stream",
    "nested_parallel",
    "parent_command",
    "policies",
    "reducers",
    "runnables",
    "runtime",
    "samples",
    "schemas",
    "send_command",
    "start_order",
    "subgraph_detection",
    "subgraph_streams",
    "subgraphs",
    "tools_stream",
    "waiting_siblings",
]
