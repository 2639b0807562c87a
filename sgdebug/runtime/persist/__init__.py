"""Persistence: saving a run step by step, loading it back, and the threads of a saver.

Who owns what (it sits above the engine: it makes and restores runs, and a run records
itself through the engine's ``Journal`` protocol, which :class:`~._persist.Persistence`
implements):

* ``_persist``: ``Persistence``, one thread's recorder: which channels a save looks at,
  building and storing the checkpoint, task writes against it, loading it back.
* ``_blobs``: delta encoding: what to store per changed channel (shared append-only
  lists, append-deltas, whole values) and the shadows of what was stored.
* ``_mutations``: finding values a node changed in place (against those shadows).
* ``_pending``: the buffer of finished tasks' writes waiting for the step's save.
* ``_staged``: ``durability="exit"``: checkpoints kept here, only the last one stored.
* ``_metadata``: what of a run's config a checkpoint's metadata keeps.
* ``_payloads``: the ``checkpoints``/``debug`` stream payloads.
* ``_async_face``: an async run's saver when the user's saver stores LangGraph's way
  (its own ``aput``/``aput_writes``): held and awaited between phases, or awaited at once
  from a worker thread (``aupdate_state``, a subgraph node's run).
* ``_face``: what both faces share (the wrapped saver's ids, clock, lock, encoding).
* ``_sync_face``: a run's saver when the user's saver overrides LangGraph's sync
  ``put``/``put_writes``; ``_offers``: what either face hands such a saver, as LangGraph's
  loop does; ``_langgraph_reads``: reading a thread through a saver's own
  ``get_tuple``/``list`` where LangGraph does.
* ``_threads``: the thread-level API: starting or resuming runs, ``get_state``,
  history; ``_update``: ``update_state`` applied as nodes, one superstep per batch.
"""

from __future__ import annotations
