"""The engine: a run of a compiled graph, advanced superstep by superstep.

Who owns what:

* ``_calling``: calling one task's node (sync and async) and building its writes: its
  state writes, ``Command`` routes, static edges and conditional edges.
* ``_journal``: what a run asks of the persistence recording it (a protocol: ``persist``
  sits above the engine) and the in-place ``Mutation`` it reports.

The engine imports the graph plan (``graph``), the savers' data types and the channels
below it; never ``persist`` or the façade (``sgdebug.runtime._compiled``) above it.
"""

from __future__ import annotations
