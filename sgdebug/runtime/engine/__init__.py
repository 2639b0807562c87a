"""The engine: a run of a compiled graph, advanced superstep by superstep.

Who owns what (lower modules first; none imports one above it, ``lint-imports`` checks):

* ``_task``: a task, its id source, path order.
* ``_records``: what a commit did (``CommitRecord``), as hooks receive it.
* ``_view``: ``RunView``, the read-only protocol hooks, the stream, persistence and task
  calling see a run through; ``_journal``: what a run asks of the persistence recording it
  (a protocol: ``persist`` sits above the engine) and the ``Mutation`` it reports.
* ``_hooks``: the public ``PauseHook`` protocol; ``_observer``: the observer a run reports
  its pause points to, whose no-op form (no hooks) is the fast path.
* ``_plan``: planning a step (``plan_tasks``) as free functions; ``_apply``: applying
  writes to channels (``apply_writes``) and describing a commit, as free functions.
* ``_branches``: routing writes and the local state conditional edges see (sync and
  async sharing everything but the call); ``_calling``: running a task's node.
* ``_executor``: running a step's tasks in parallel (an async step's: ``_aexecutor``),
  ``_watchdog`` looking at its running steps (tasks that wait for each other); ``_stream``:
  stream events.
* ``_run``: ``Run``, the state and the ONE superstep loop that sequences the above.

The engine imports the graph plan (``graph``), the savers' data types and the channels
below it; never ``persist`` or the façade (``sgdebug.runtime._compiled``) above it.
"""

from __future__ import annotations
