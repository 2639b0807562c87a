"""``get_graph()``: the drawable graph of a compiled program, as LangGraph 1.2 draws it.

LangGraph does not draw the builder's edges directly: it dry-runs the superstep loop
with every writer firing and every declared conditional target taken, and records which
task's writes triggered which task. The result has quirks a user can see (a branch
without a path map draws no edges, a deferred node gets dotted edges from whatever ran
last, unreachable nodes float free), so sgdebug does the same dry run over a small model
of the trigger channels: ``branch:to:<node>`` (cleared each step, or held until the run
would finish for deferred nodes) and ``join:<a+b>:<node>`` barriers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sgdebug.runtime._constants import END, START, branch_channel, join_channel
from sgdebug.runtime._draw_model import CompiledLike, DrawableGraph, NodeSpecLike
from sgdebug.runtime.graph._destinations import command_destinations

__all__ = ["command_destinations", "get_graph"]

_STEP_LIMIT = 250
"""LangGraph stops the dry run after this many supersteps (cycles run until then)."""

_TriggerEdge = tuple[str, bool, str | None]
"""(channel written, conditional, label) — one write of a task, as the dry run sees it."""
_Edge = tuple[str, str, bool, str | None]
"""(source, target, conditional, label) — one discovered edge before assembly."""


@dataclass(slots=True)
class _Writer:
    """One writer of a node: writes made on every run, and conditional targets it declares."""

    writes: tuple[tuple[str, Any], ...] = ()
    static: tuple[tuple[str, str | None], ...] = ()


@dataclass(slots=True)
class _Proc:
    """A node of the dry run: the channels that trigger it and its writers."""

    triggers: list[str]
    writers: list[_Writer] = field(default_factory=list)


@dataclass(slots=True)
class _Channel:
    """A trigger channel: ``names`` makes it a barrier; ``deferred`` holds it until finish."""

    names: frozenset[str] | None = None
    deferred: bool = False
    full: bool = False
    seen: set[str] = field(default_factory=set)
    finished: bool = False

    def available(self) -> bool:
        ready = self.full if self.names is None else self.seen == self.names
        return ready and (self.finished or not self.deferred)

    def update(self, values: list[Any]) -> bool:
        if self.names is not None:
            new = {v for v in values if v in self.names} - self.seen
            self.seen |= new
            return bool(new)
        if values:
            self.full, self.finished = True, False
            return True
        if self.full and not self.deferred:
            self.full = False
            return True
        return False

    def consume(self) -> bool:
        if not self.available() or not (self.deferred or self.names is not None):
            return False
        self.full, self.seen, self.finished = False, set(), False
        return True

    def finish(self) -> bool:
        ready = self.full if self.names is None else self.seen == self.names
        if not self.deferred or self.finished or not ready:
            return False
        self.finished = True
        return True


def _procs(compiled: CompiledLike) -> tuple[dict[str, _Proc], dict[str, _Channel]]:
    builder = compiled.builder
    procs = {START: _Proc([START])}
    channels = {START: _Channel()}
    for name, spec in builder.nodes.items():
        procs[name] = _Proc([branch_channel(name)], [_Writer(static=_node_static(spec))])
        channels[branch_channel(name)] = _Channel(deferred=spec.defer)
    for start, end in builder.edges:
        if end != END:
            procs[start].writers.append(_Writer(writes=((branch_channel(end), None),)))
    for starts, end in builder.waiting_edges:
        if end != END:
            channel = join_channel(tuple(starts), end)
            channels[channel] = _Channel(frozenset(starts), builder.nodes[end].defer)
            procs[end].triggers.append(channel)
            for start in starts:
                procs[start].writers.append(_Writer(writes=((channel, start),)))
    for start, branches in builder.branches.items():
        for branch in branches.values():
            path_map = branch.path_map or {}
            static = tuple((_target_channel(t), str(k)) for k, t in path_map.items())
            procs[start].writers.append(_Writer(static=static))
    return procs, channels


def _node_static(spec: NodeSpecLike) -> tuple[tuple[str, str | None], ...]:
    ends = spec.destinations
    if ends is None:
        ends = command_destinations(spec.action)
    if isinstance(ends, dict):
        return tuple((_target_channel(k), label) for k, label in ends.items())
    return tuple((_target_channel(e), None) for e in ends)


def _target_channel(target: str) -> str:
    return target if target == END else branch_channel(target)


@dataclass(slots=True)
class _Task:
    """One task of a dry-run step and the writes its writers made."""

    name: str
    triggers: tuple[str, ...]
    writes: list[tuple[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class _Loop:
    """The superstep bookkeeping of the dry run: channel versions and what each node saw."""

    procs: dict[str, _Proc]
    channels: dict[str, _Channel]
    versions: dict[str, int] = field(default_factory=dict)
    seen: dict[str, dict[str, int]] = field(default_factory=dict)
    triggered_by: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, proc in self.procs.items():
            for channel in proc.triggers:
                self.triggered_by.setdefault(channel, []).append(name)

    def start(self) -> list[_Task]:
        """Write the (empty) input and return the first tasks."""
        self.channels[START].update([{}])
        self.versions[START] = 1
        return self.next_tasks({START})

    def next_tasks(self, updated: set[str]) -> list[_Task]:
        if updated:
            names: Iterable[str] = sorted(
                {n for c in updated for n in self.triggered_by.get(c, ())}
            )
        else:
            names = self.procs
        return [
            _Task(name, tuple(sorted(self.procs[name].triggers)))
            for name in names
            if self._triggered(name)
        ]

    def _triggered(self, name: str) -> bool:
        seen = self.seen.get(name)
        for channel in self.procs[name].triggers:
            if not self.channels[channel].available():
                continue
            if seen is None or self.versions.get(channel, 0) > seen.get(channel, 0):
                return True
        return False

    def apply(self, tasks: list[_Task]) -> set[str]:
        """Commit a step's writes; the channels that became (newly) available."""
        version = max(self.versions.values(), default=0) + 1
        for task in tasks:
            seen = self.seen.setdefault(task.name, {})
            seen.update({c: self.versions[c] for c in task.triggers if c in self.versions})
        for read in {c for task in tasks for c in task.triggers}:
            if self.channels[read].consume():
                self.versions[read] = version
        pending: dict[str, list[Any]] = defaultdict(list)
        for task in tasks:
            for written, value in task.writes:
                if written in self.channels:
                    pending[written].append(value)
        updated = self._bump(pending.items(), version, set())
        idle: list[tuple[str, list[Any]]] = [
            (k, []) for k, ch in self.channels.items() if ch.available() and k not in updated
        ]
        updated = self._bump(idle, version, updated)
        if updated.isdisjoint(self.triggered_by):
            for key, channel in self.channels.items():
                if channel.finish():
                    self.versions[key] = version
                    if channel.available():
                        updated.add(key)
        return updated

    def _bump(
        self, writes: Iterable[tuple[str, list[Any]]], version: int, updated: set[str]
    ) -> set[str]:
        for name, values in writes:
            channel = self.channels[name]
            if channel.update(values):
                self.versions[name] = version
                if channel.available():
                    updated.add(name)
        return updated


@dataclass(slots=True)
class _DryRun:
    """What the dry run found: edges, and the sources of its last superstep."""

    edges: set[_Edge] = field(default_factory=set)
    last_sources: dict[str, set[_TriggerEdge]] = field(default_factory=dict)
    sources: dict[str, set[_TriggerEdge]] = field(default_factory=dict)
    declared: defaultdict[str, set[_TriggerEdge]] = field(default_factory=lambda: defaultdict(set))
    declared_seen: set[tuple[str, int]] = field(default_factory=set)

    def run(self, loop: _Loop) -> None:
        tasks = loop.start()
        for _ in range(-1, _STEP_LIMIT):
            if not tasks:
                break
            self._collect_sources(loop, tasks)
            tasks = loop.next_tasks(loop.apply(tasks))
            self._collect_edges(tasks)

    def _collect_sources(self, loop: _Loop, tasks: list[_Task]) -> None:
        conditionals: dict[tuple[str, str, Any], str | None] = {}
        for task in tasks:
            for index, writer in enumerate(loop.procs[task.name].writers):
                task.writes.extend(writer.writes)
                if (task.name, index) in self.declared_seen:
                    continue
                self.declared_seen.add((task.name, index))
                for channel, label in writer.static:
                    if channel == END:
                        self.edges.add((task.name, END, True, label))
                        continue
                    conditionals[(task.name, channel, None)] = label
                    self.declared[task.name].add((channel, True, label))
                    task.writes.append((channel, None))
        self.last_sources = {}
        for task in tasks:
            found: set[_TriggerEdge] = set()
            for channel, value in task.writes:
                key = (task.name, channel, value or None)
                found.add((channel, key in conditionals, conditionals.get(key)))
            self.last_sources[task.name] = found | self.declared.get(task.name, set())
        self.sources.update(self.last_sources)

    def _collect_edges(self, tasks: list[_Task]) -> None:
        by_trigger: defaultdict[str, set[tuple[str, bool, str | None]]] = defaultdict(set)
        for source, written in self.sources.items():
            for channel, conditional, label in written:
                by_trigger[channel].add((source, conditional, label))
        for task in tasks:
            from_this_step = False
            for trigger in task.triggers:
                for source, conditional, label in sorted(by_trigger[trigger]):
                    self.edges.add((source, task.name, conditional, label))
                    if (trigger, conditional, label) in self.last_sources.get(source, set()):
                        from_this_step = True
                    else:
                        self.sources[source].discard((trigger, conditional, label))
            if not from_this_step:
                for source in self.last_sources:
                    self.edges.add((source, task.name, True, None))


def get_graph(compiled: CompiledLike, *, xray: int | bool = False) -> DrawableGraph:
    """The drawable graph of ``compiled``: what LangGraph's ``get_graph()`` returns for it.

    ``xray`` inlines the drawings of subgraph nodes (``True``: all levels; ``n``: n levels).
    """
    procs, channels = _procs(compiled)
    dry = _DryRun()
    dry.run(_Loop(procs, channels))
    graph = DrawableGraph()
    builder = compiled.builder
    for name in procs:
        spec = builder.nodes.get(name)
        graph.add_node(
            spec.action if spec is not None else None,
            name,
            metadata=_node_metadata(compiled, name, spec),
        )
    for source, target, conditional, label in sorted(dry.edges):
        _add_edge(graph, source, target, label if label != target else None, conditional)
    targets = {t for _, t, _, _ in dry.edges if t != END}
    termini = targets.difference(s for s, _, _, _ in dry.edges)
    if termini:
        for source in sorted(termini):
            _add_edge(graph, source, END)
    elif len(dry.last_sources) == 1 and not any(t == END for _, t, _, _ in dry.edges):
        for source in dry.last_sources:
            _add_edge(graph, source, END, conditional=True)
    if xray:
        _inline_subgraphs(graph, compiled, xray)
    return graph


def _node_metadata(
    compiled: CompiledLike, name: str, spec: NodeSpecLike | None
) -> dict[str, Any] | None:
    metadata = dict((spec.metadata if spec is not None else None) or {})
    if spec is not None and spec.defer:
        metadata["defer"] = True
    before = name in compiled.interrupt_before_nodes  # a '*' string matches by substring,
    after = name in compiled.interrupt_after_nodes  # so '*' marks no node, as in LangGraph
    if before or after:
        metadata["__interrupt"] = ",".join(
            w for w, on in (("before", before), ("after", after)) if on
        )
    tools = getattr(spec.action, "tools_by_name", None) if spec is not None else None
    if isinstance(tools, Mapping) and tools:
        metadata["__tools"] = list(tools)
    return metadata or None


def _add_edge(
    graph: DrawableGraph,
    source: str,
    target: str,
    data: str | None = None,
    conditional: bool = False,
) -> None:
    if any(e.source == source and e.target == target for e in graph.edges):
        return
    if target == END and target not in graph.nodes:
        graph.add_node(None, END)
    graph.add_edge(graph.nodes[source], graph.nodes[target], data, conditional)


def _inline_subgraphs(graph: DrawableGraph, compiled: CompiledLike, xray: int | bool) -> None:
    """Draw each subgraph (a node's own graph, or the one its function runs: see
    ``graph/_subgraphs.py``) inside its node, ``xray`` levels deep."""
    depth: int | bool = xray if isinstance(xray, bool) or xray <= 0 else xray - 1
    for name in compiled.builder.nodes:
        found = compiled.nodes[name].subgraphs
        if not found:
            continue
        sub = get_graph(found[0], xray=depth)
        if len(sub.nodes) <= 1 or name not in graph.nodes:
            continue
        if not (sub.first_node() and sub.last_node()):
            continue
        sub.trim_first_node()
        sub.trim_last_node()
        del graph.nodes[name]
        first, last = graph.extend(sub, prefix=name)
        for index, edge in enumerate(graph.edges):
            if edge.source == name and last is not None:
                edge = edge.copy(source=last.id)
            if edge.target == name and first is not None:
                edge = edge.copy(target=first.id)
            graph.edges[index] = edge
