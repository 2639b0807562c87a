"""The engine: a run of a compiled graph, advanced superstep by superstep.

Who owns what (lower modules first; none imports one above it, ``lint-imports`` checks):

* The run's parts, read by everything else:
  ``_task`` (a task, its id source, path order), ``_options`` (how a run is driven: its
  config, limit, hooks, stream, breakpoints), ``_records`` (what a commit did:
  ``CommitRecord``, as hooks receive it), ``_view`` (``RunView``, the read-only protocol
  hooks, the stream, persistence and task calling see a run through), ``_journal`` (what a
  run asks of the persistence recording it: a protocol, since ``persist`` sits above the
  engine; and the ``Mutation`` it reports).
* Watching a run: ``_hooks`` (the public ``PauseHook`` protocol), ``_observer`` (the
  observer a run reports its pause points to, whose no-op form, no hooks, is the fast
  path), ``_inner_breaks`` (breakpoints on a subgraph's nodes named from the root),
  ``_drain`` (stopping between steps on a ``RunControl``'s request), ``_step_failure`` (a
  step failing outside its tasks, kept by a watched run).
* Planning and committing, as free functions: ``_plan`` (``plan_tasks``: which tasks the
  channels trigger), ``_apply`` (``apply_writes``: writes into channels through their
  reducers, and the commit's record), ``_state`` (a run's channels, versions, step and
  tasks, and how a commit or an interrupt changes them).
* Calling a task: ``_calling`` (a node's call and its return value as writes),
  ``_branches`` (static edges, joins and conditional edges after a task's own writes; sync
  and async share all but the call), ``_context`` and ``_runtime`` (what a running node
  can reach: config, writer, ``interrupt()``, ``Runtime``), ``_response_schema`` (the shape an
  ``interrupt()`` answer must have), ``_nesting`` (a run started inside a task: a
  subgraph, and where it sits).
* A node's policies: ``_retry`` (retry policies), ``_timeouts`` (an async attempt's time
  limits), ``_error_handlers`` (error handler nodes), ``_cached`` (node caching),
  ``_idle_callbacks`` (callback events that count as progress for ``idle_timeout``).
* Running a step's tasks: ``_executor`` (sync tasks in the calling thread and a pool),
  ``_aexecutor`` (an async step's), ``_watchdog`` (one thread looking at running steps, so
  tasks that wait for each other never wait for a thread that will not come).
* Streaming: ``_stream`` (collecting events for the modes asked), ``_finish_order``
  (parallel tasks reported as they finish), ``_forward`` (a subgraph's events passed to its
  parent), ``_messages_mode``, ``_tools_mode`` and ``_streaming_handler`` (the ``messages``
  and ``tools`` modes, through langchain-core callbacks), ``_node_runs`` (each task as a
  LangChain chain run, for a config's callbacks and ``astream_events``).
* ``_run``: ``Run``, which sequences all of the above in the ONE superstep loop
  (``advance``); ``_async_run`` is that loop with a step's tasks on the event loop.

The engine imports the graph plan (``graph``), the savers' data types and the channels
below it; never ``persist`` or the façade (``sgdebug.runtime._compiled``) above it.
"""

from __future__ import annotations
