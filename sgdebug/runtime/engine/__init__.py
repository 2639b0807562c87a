"""The engine: a run of a compiled graph, advanced superstep by superstep.

Who owns what:

* ``_calling``: calling one task's node (sync and async) and building its writes: its
  state writes, ``Command`` routes, static edges and conditional edges.

The engine imports the graph plan, channels and persistence below it, never the façade
(``sgdebug.runtime._compiled``) above it.
"""

from __future__ import annotations
