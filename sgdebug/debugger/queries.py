"""Verbs that look (state, tasks, print, history, show, diff, graph) and breakpoint verbs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from sgdebug.debugger.breakpoints import ANY_NODE, BreakpointError
from sgdebug.debugger.core import SessionCore
from sgdebug.debugger.evaluation import (
    ExpressionError,
    Provider,
    compile_expression,
    unknown_names,
)
from sgdebug.debugger.events import BreakpointsChanged
from sgdebug.debugger.history import SnapshotError, resolve
from sgdebug.debugger.results import (
    EdgeInfo,
    GraphSummary,
    HistoryEntry,
    NodeMark,
    Outcome,
)
from sgdebug.debugger.subgraphs import break_refusal, channel_refusal, is_path
from sgdebug.runtime import START, StateSnapshot

__all__ = ["QueryVerbs"]


class QueryVerbs:
    """Reading the session, and managing breakpoints."""

    def __init__(self, core: SessionCore) -> None:
        self.core = core

    # -- looking -------------------------------------------------------------------------

    def state(self, *, whole: bool = False) -> Outcome:
        """The current state values (``value``; ``whole``: to be printed in full)."""
        with self.core.lock:
            if reason := self.core.why_not("state"):
                return self.core.refuse("state", reason)
            return self.core.answer("state", self.core.engine.values(), whole=whole)

    def tasks(self) -> Outcome:
        """The pending superstep's tasks (``value``: tuple of ``TaskInfo``)."""
        with self.core.lock:
            if reason := self.core.why_not("tasks"):
                return self.core.refuse("tasks", reason)
            tasks = self.core.engine.tasks()
            return self.core.answer(
                "tasks", tasks, f"step {self.core.engine.step}: {len(tasks)} task(s)"
            )

    def print(
        self,
        expr: str,
        *,
        whole: bool = False,
        providers: Mapping[str, Provider] | None = None,
    ) -> Outcome:
        """The value of a Python expression over ``state``, ``snapshot``, ``tasks``, ``graph``
        (``whole``: to be printed in full; ``providers``: those names, when not the root
        graph's)."""
        with self.core.lock:
            if reason := self.core.why_not("print"):
                return self.core.refuse("print", reason)
            try:
                value = self.core.evaluate(expr, providers=providers)
                return self.core.answer("print", value, whole=whole)
            except ExpressionError as exc:
                return self.core.refuse("print", str(exc))

    def history(self) -> Outcome:
        """Every snapshot of the run's thread, oldest first (``value``: ``HistoryEntry`` s)."""
        with self.core.lock:
            if reason := self.core.why_not("history"):
                return self.core.refuse("history", reason)
            return self.core.answer("history", self._entries())

    def show(self, ref: str | None = None) -> Outcome:
        """One snapshot (``value``: its ``StateSnapshot``); the current one by default."""
        with self.core.lock:
            if reason := self.core.why_not("show"):
                return self.core.refuse("show", reason)
            try:
                entry = self._entry(ref)
                return self.core.answer("show", self._snapshot(entry), f"snapshot {entry.index}")
            except SnapshotError as exc:
                return self.core.refuse("show", str(exc))

    def diff(self, a: str | None = None, b: str | None = None) -> Outcome:
        """What changed between two snapshots (default: the current one and its parent)."""
        with self.core.lock:
            if reason := self.core.why_not("diff"):
                return self.core.refuse("diff", reason)
            try:
                new = self._entry(b)
                if a is None:
                    if new.parent_index is None:
                        return self.core.refuse(
                            "diff", "the first snapshot has no parent to compare"
                        )
                    old = self._entries()[new.parent_index]
                else:
                    old = self._entry(a)
            except SnapshotError as exc:
                return self.core.refuse("diff", str(exc))
            from sgdebug.inspect import snapshot_diff  # (imported with the first diff)

            change = snapshot_diff(self._snapshot(old), self._snapshot(new))
            return self.core.answer("diff", change, f"diff {old.index} -> {new.index}")

    def graph(self) -> Outcome:
        """The graph's nodes (breakpoint and pending marks) and edges."""
        with self.core.lock:
            drawing = self.core.model.get_graph()
            pending = set(self.core.pending_tasks)
            befores = {b.target for b in self.core.table.all if b.kind == "before" and b.enabled}
            afters = {b.target for b in self.core.table.all if b.kind == "after" and b.enabled}
            nodes = tuple(
                NodeMark(
                    name,
                    name != START and bool(befores & {name, ANY_NODE}),
                    name != START and bool(afters & {name, ANY_NODE}),
                    name in pending,
                )
                for name in drawing.nodes
            )
            edges = tuple(EdgeInfo(e.source, e.target, e.conditional) for e in drawing.edges)
            return self.core.answer("graph", GraphSummary(nodes, edges, drawing.draw_mermaid()))

    def info(self) -> Outcome:
        """The engine running the graph and what it can do (``value``: its ``Capabilities``)."""
        with self.core.lock:
            caps = self.core.engine.capabilities
            model = self.core.model
            lines = [
                f"Engine: {caps.engine}: {caps.description}",
                f"Graph: {self.core.label} ({_count(len(model.nodes), 'node')}, "
                f"{_count(len(self.core.channel_names), 'state key')})",
                f"Thread: {self.core.thread_id or '(no run yet)'}",
            ]
            if caps.missing:
                lines.append("Unavailable on this engine:")
                lines.extend(f"  {feature}: {reason}" for feature, reason in caps.missing)
            else:
                lines.append("Every command is available on this engine.")
            return self.core.answer("info", caps, "\n".join(lines))

    def _entries(self) -> tuple[HistoryEntry, ...]:
        return self.core.engine.history()

    def _entry(self, ref: str | None) -> HistoryEntry:
        entries = self._entries()
        if ref is None:
            current = [e for e in entries if e.current]
            if not current:
                raise SnapshotError("the session is not at a snapshot")
            return current[0]
        return resolve(entries, ref)

    def _snapshot(self, entry: HistoryEntry) -> StateSnapshot:
        snapshot = self.core.engine.snapshot(entry.checkpoint_id)
        if snapshot is None:
            raise SnapshotError(f"snapshot {entry.index} is no longer stored")
        return snapshot

    # -- breakpoints ---------------------------------------------------------------------

    def break_(
        self,
        when: Literal["before", "after"],
        node: str,
        condition: str | None = None,
        *,
        temporary: bool = False,
    ) -> Outcome:
        """Break ``before``/``after`` the superstep that runs ``node`` (``*``: any node)."""
        command = "tbreak" if temporary else "break"
        with self.core.lock:
            if reason := self.core.why_not(command):
                return self.core.refuse(command, reason)
            if problem := break_refusal(self.core, node, condition):
                return self.core.refuse(command, problem)
            if not is_path(node) and (reason := self._bad_condition(condition)):
                return self.core.refuse(command, reason)
            bp = self.core.table.add(when, node, condition, temporary=temporary)
            return self._changed(command, bp, f"Breakpoint {bp.number}: {bp.describe()}")

    def tbreak(
        self, when: Literal["before", "after"], node: str, condition: str | None = None
    ) -> Outcome:
        """A breakpoint deleted after it fires once."""
        return self.break_(when, node, condition, temporary=True)

    def watch(self, channel: str, condition: str | None = None) -> Outcome:
        """Break after a superstep that changes ``channel`` (``old``/``new`` in the condition)."""
        with self.core.lock:
            if reason := self.core.why_not("watch"):
                return self.core.refuse("watch", reason)
            if problem := channel_refusal(self.core, channel, condition):
                return self.core.refuse("watch", problem)
            extra = ("old", "new")  # (a subgraph's channel: its frame's names, checked above)
            if not is_path(channel) and (reason := self._bad_condition(condition, extra)):
                return self.core.refuse("watch", reason)
            bp = self.core.table.add("watch", channel, condition)
            return self._changed("watch", bp, f"Watchpoint {bp.number}: {bp.describe()}")

    def delete(self, number: int | None = None) -> Outcome:
        """Delete breakpoint ``number``, or every breakpoint but #0 when ``None``."""
        with self.core.lock:
            if reason := self.core.why_not("delete"):
                return self.core.refuse("delete", reason)
            if number is None:
                removed = self.core.table.clear()
                return self._changed("delete", removed, f"Deleted {len(removed)} breakpoint(s).")
            try:
                bp = self.core.table.delete(number)
            except BreakpointError as exc:
                return self.core.refuse("delete", str(exc))
            return self._changed("delete", bp, f"Deleted breakpoint {number}: {bp.describe()}")

    def enable(self, number: int) -> Outcome:
        """Enable breakpoint ``number``."""
        return self._toggle("enable", number, True)

    def disable(self, number: int) -> Outcome:
        """Disable breakpoint ``number`` (#0 stops pausing on exceptions)."""
        return self._toggle("disable", number, False)

    def breaks(self) -> Outcome:
        """Every breakpoint (``value``: tuple of ``Breakpoint``)."""
        with self.core.lock:
            return self.core.answer("breaks", self.core.table.all)

    def _toggle(self, command: str, number: int, enabled: bool) -> Outcome:
        with self.core.lock:
            if reason := self.core.why_not(command):
                return self.core.refuse(command, reason)
            try:
                bp = self.core.table.set_enabled(number, enabled)
            except BreakpointError as exc:
                return self.core.refuse(command, str(exc))
            word = "Enabled" if enabled else "Disabled"
            return self._changed(command, bp, f"{word} breakpoint {number}: {bp.describe()}")

    def _changed(self, command: str, value: object, message: str) -> Outcome:
        self.core.bus.emit(BreakpointsChanged(self.core.table.all))
        return self.core.finish(self.core.answer(command, value, message))

    def _bad_condition(self, condition: str | None, extra: tuple[str, ...] = ()) -> str | None:
        """Why ``condition`` cannot be a condition: it does not compile, or it reads a name
        nothing defines (checked now, not at every stop)."""
        if condition is None:
            return None
        try:
            compile_expression(condition)
        except ExpressionError as exc:
            return f"bad condition: {exc}"
        core = self.core
        providers = core.providers()
        values = core.engine.values() if core.started else {}
        known = core.evaluator.known_names(providers, values) | {*core.channel_names, *extra}
        unknown = unknown_names(condition, known)
        if not unknown:
            return None
        names = ", ".join(map(repr, unknown))
        channels = ", ".join(core.channel_names) or "(none)"
        others = ", ".join((*extra, *providers))
        return (
            f"bad condition: {names} is not defined (the state's channels: {channels}; "
            f"also: {others} and the module's names)"
        )


def _count(count: int, noun: str) -> str:
    """``1 node``, ``2 nodes``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
