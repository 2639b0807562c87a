"""The graph as compiled: what the engine runs, fixed at compile time.

Who owns what:

* ``_specs``: nodes and conditional edges as the builder recorded them, and the
  ``Blueprint`` protocol (what the plan reads of a builder).
* ``_schema``: a schema's fields (channels, managed values) and building values of it.
* ``_injection``: which of a node function's parameters the engine fills in.
* ``_destinations``: the nodes a ``-> Command[Literal[...]]`` annotation names.
* ``_policy``: a node's retry, cache, timeout and error-handler policies as compiled.
* ``_runnable``: LangChain Runnables (chains, lambdas, tools) as nodes.
* ``_subgraphs``: which compiled graph a node's function runs (subgraph detection).
* ``_node``: a compiled node: its reader (``Reader``: the state view it receives), its
  static edges and branches, and turning a return value into writes.
* ``_plan``: ``GraphPlan``, every channel and compiled node and the maps planning uses
  (trigger -> nodes, volatile channels); the public ``CompiledStateGraph`` extends it.
* ``_messages``: ``add_messages`` and ``MessagesState``.
"""

from __future__ import annotations
