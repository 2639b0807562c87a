"""Which compiled graph a node's function runs: LangGraph's subgraph detection.

A node that is a compiled graph runs that graph. A plain function may run one too
(``return research.invoke(state)``); LangGraph finds it by what the function can reach,
without running it, and so do we, from the function's code object:

1. a value captured in the function's closure that is itself a graph (even one only
   dead code names: the cell holds it);
2. else the first *reference chain* of its code, in order, that leads to a graph: a
   global or a captured name followed by attribute loads (``CHAIN.payload.graph``),
   each step read without running user code; a chain through a captured name may also
   sit in a function defined inside it (a global there is out of reach);
3. else the same, in turn, for the function it wraps (``__wrapped__``).

Reaching a graph through anything else (an item of a list, an attribute of ``self`` or
of a local) is not detected, as in LangGraph. The first graph found is the node's one
subgraph.
"""

from __future__ import annotations

import dis
import inspect
from collections.abc import AsyncIterator, Iterator, Mapping
from types import CodeType
from typing import Any

__all__ = ["aget_subgraphs", "find_subgraph", "get_subgraphs"]

NS_SEP = "|"

_BASES = frozenset(("LOAD_GLOBAL", "LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_NAME"))
"""Instructions that load a name a chain can start from."""
_ATTRS = frozenset(("LOAD_ATTR", "LOAD_METHOD"))
"""Instructions that continue a chain with an attribute."""
_MISSING = object()
_MAX_WRAPPED = 32
"""How many ``__wrapped__`` links are followed (a cycle stops there)."""


def get_subgraphs(
    graph: Any, *, namespace: str | None = None, recurse: bool = False
) -> Iterator[tuple[str, Any]]:
    """The graph's subgraphs as ``(namespace, graph)`` pairs, in node order.

    ``namespace``: only the subgraph there (``"research|review"``: whole node names,
    without task ids), found below the first level only with ``recurse``. Without it,
    every node's subgraph, and with ``recurse`` theirs after each, ``|``-joined.
    """
    head, below, rest = (namespace or "").partition(NS_SEP)
    for name, node in graph.nodes.items():
        if namespace is not None and name != head:
            continue
        for sub in node.subgraphs:
            if namespace is None or not below:
                yield name, sub
            if recurse and (namespace is None or below):
                deeper = None if namespace is None else rest
                for inner, found in get_subgraphs(sub, namespace=deeper, recurse=True):
                    yield f"{name}{NS_SEP}{inner}", found


async def aget_subgraphs(
    graph: Any, *, namespace: str | None = None, recurse: bool = False
) -> AsyncIterator[tuple[str, Any]]:
    """:func:`get_subgraphs`, as an async iterator."""
    for pair in get_subgraphs(graph, namespace=namespace, recurse=recurse):
        yield pair


def find_subgraph(action: Any, kind: type) -> Any | None:
    """The compiled graph (an instance of ``kind``) ``action`` runs, by LangGraph's rules
    (see the module doc)."""
    seen = 0
    while action is not None and seen < _MAX_WRAPPED:
        if _is_subgraph(action, kind):
            return action
        found = _in_function(action, kind)
        if found is not None:
            return found
        action = inspect.getattr_static(action, "__wrapped__", None)
        seen += 1
    return None


def _in_function(fn: Any, kind: type) -> Any | None:
    code = getattr(fn, "__code__", None)
    if not isinstance(code, CodeType):
        return None  # a builtin, a partial, a callable object: nothing to read
    closure = _closure(fn, code)
    for value in closure.values():
        if _is_subgraph(value, kind):
            return value
    scope = getattr(fn, "__globals__", None)
    globals_ = scope if isinstance(scope, dict) else {}
    for chain in _chains(code, nested=False):
        found = _follow(chain, closure, globals_, kind)
        if found is not None:
            return found
    return None


def _closure(fn: Any, code: CodeType) -> dict[str, Any]:
    """The function's captured values by name (empty cells left out)."""
    cells = getattr(fn, "__closure__", None) or ()
    out: dict[str, Any] = {}
    for name, cell in zip(code.co_freevars, cells, strict=False):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # a cell never assigned
            continue
    return out


def _chains(code: CodeType, *, nested: bool) -> Iterator[tuple[str, tuple[str, ...]]]:
    """The reference chains of ``code`` in order, then those of the functions defined in
    it: ``(opname of the base, (base name, attribute, ...))``. In nested code only chains
    on captured names count."""
    chain: list[str] = []
    base = ""
    for ins in dis.get_instructions(code):
        if ins.opname in _ATTRS and chain:
            chain.append(str(ins.argval))
            continue
        if chain:
            yield base, tuple(chain)
            chain = []
        if ins.opname in _BASES and not (nested and ins.opname != "LOAD_DEREF"):
            base, chain = ins.opname, [str(ins.argval)]
    if chain:
        yield base, tuple(chain)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _chains(const, nested=True)


def _follow(
    chain: tuple[str, tuple[str, ...]],
    closure: Mapping[str, Any],
    globals_: Mapping[str, Any],
    kind: type,
) -> Any | None:
    """The first graph along a chain, read without running code (``None`` if it breaks)."""
    opname, names = chain
    scope = closure if opname == "LOAD_DEREF" else globals_
    value = scope.get(names[0], _MISSING)
    for name in names[1:]:
        if value is _MISSING or _is_subgraph(value, kind):
            break
        try:
            value = inspect.getattr_static(value, name)
        except AttributeError:
            return None
    return value if _is_subgraph(value, kind) else None


def _is_subgraph(value: Any, kind: type) -> bool:
    """A compiled graph that counts as a subgraph (one compiled with ``checkpointer=False``
    does not, in LangGraph)."""
    if not isinstance(value, kind):
        return False
    options = getattr(value, "options", None)
    return getattr(options, "checkpointer", None) is not False
