"""The LangGraph engine's reading side: a thread's snapshots, each read once per position.

``get_state`` raises where the step after a checkpoint fails outside its nodes (its stored
writes are rejected at commit, or its tasks' inputs cannot be built), as the run did.
Views must never raise that again: such a snapshot is read from the checkpointer instead
(the values the step starts from), and :meth:`Snapshots.failure` says why the step fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.engine import EngineRefused
from sgdebug.debugger.engines import _lg_convert as convert
from sgdebug.debugger.engines import _lg_failure as failures
from sgdebug.debugger.engines import _lg_subgraphs as subgraphs
from sgdebug.debugger.engines._lg_async import Driver
from sgdebug.debugger.engines._lg_model import LangGraphModel, checkpoint_of, to_langgraph
from sgdebug.debugger.evaluation import describe_error
from sgdebug.debugger.history import config_for
from sgdebug.debugger.results import ErrorInfo
from sgdebug.runtime import CommitRecord, Overwrite, StateSnapshot
from sgdebug.runtime.channels import BinaryOperatorAggregate

__all__ = ["NONE", "Snapshots"]

NONE = StateSnapshot(None, (), {}, None, None, None, (), ())
"""No snapshot (before any run)."""


class Snapshots:
    """LangGraph's snapshots of the session's threads (cached until :meth:`forget`)."""

    def __init__(self, graph: Any, saver: Any, model: LangGraphModel, driver: Driver) -> None:
        self._graph, self._saver, self._model, self._driver = graph, saver, model, driver
        self._cache: dict[str, StateSnapshot] = {}
        self._histories: dict[str, list[StateSnapshot]] = {}
        self._stale: dict[str, list[StateSnapshot]] = {}
        """Histories read before the thread was written to: brought up to date from the
        session's new position (see :meth:`history`) instead of read again whole."""
        self._versions: dict[str, dict[str, int]] = {}
        """Checkpoint -> its channel versions, as numbers (a stored checkpoint's never change)."""
        self._unplanned: dict[str, Exception] = {}
        """Checkpoint -> why LangGraph cannot plan the step after it (a graph's plan of a
        stored checkpoint never changes: kept across :meth:`forget`)."""

    def forget(self, *, written: bool = True) -> None:
        """Read everything again (the thread moved); ``written=False``: only the session's
        place in it moved, so the threads' histories stay as read."""
        self._cache.clear()
        if written:
            self._stale.update(self._histories)
            self._histories.clear()

    def unplanned(self, checkpoint: str | None) -> Exception | None:
        """Why the step after ``checkpoint`` cannot be planned (once its snapshot was read)."""
        return self._unplanned.get(checkpoint or "")

    def why_not_edit(self, thread_id: str, checkpoint: str) -> str | None:
        """Why LangGraph cannot edit ``checkpoint``: ``update_state`` plans the step after
        it first, and where a task's input cannot be built that raises."""
        self.at(thread_id, checkpoint)
        unplanned = self._unplanned.get(checkpoint)
        if unplanned is None:
            return None
        return (
            "LangGraph cannot edit this snapshot: it plans the next step first, and building "
            f"a task's input fails ({describe_error(unplanned)}); edit it with `set` or "
            "`update` without `as` (made again from the snapshot before it), or `restart`"
        )

    def redo_with(
        self, thread_id: str, cursor: str, writes: Sequence[tuple[str, Any]]
    ) -> tuple[Any, str] | None:
        """Edit ``cursor`` where LangGraph cannot plan the step after it (``update_state``
        there raises): from its parent instead, the step that made ``cursor`` is applied
        again (``update_state`` as its one task) with the edit merged into that task's
        writes. Returns the new checkpoint's config and that task's node; ``None`` when
        ``cursor`` can be planned (edit it as usual). ``EngineRefused``: the step had
        several tasks, or the edit adds to a key that task wrote too."""
        snap = self.at(thread_id, cursor)
        if snap is None or cursor not in self._unplanned:
            return None
        parent_id = checkpoint_of(snap.parent_config) if snap.parent_config else ""
        parent = self.at(thread_id, parent_id) if parent_id else None
        done = [t for t in parent.tasks if t.result is not None] if parent else []
        loop = (snap.metadata or {}).get("source") == "loop"
        if parent is None or not loop or len(done) != 1 or done[0].path[:1] != ("__pregel_pull",):
            raise EngineRefused(
                "LangGraph cannot edit this snapshot: it plans the next step first, and "
                f"building a task's input fails ({describe_error(self._unplanned[cursor])}); "
                "it was not made by one node's step, which could be made again with the edit: "
                "`goto` an earlier snapshot, or `restart`"
            )
        task = done[0]
        merged = {k: v for k, v in (task.result or {}).items() if k in self._model.state_keys}
        for key, value in writes:
            adds = isinstance(self._model.channel_specs.get(key), BinaryOperatorAggregate)
            if key in merged and adds and not isinstance(value, Overwrite):
                raise EngineRefused(
                    f"{task.name} also wrote {key!r} in the step that made this snapshot, "
                    f"which LangGraph cannot plan from: `set {key} = ...` replaces it"
                )
            merged[key] = to_langgraph(value)
        try:
            config = self._driver.update_state(parent.config, merged, as_node=task.name)
        except Exception as exc:
            raise EngineRefused(describe_error(exc)) from exc
        return config, task.name

    def at(self, thread_id: str, checkpoint: str) -> StateSnapshot | None:
        """The snapshot of ``checkpoint``, as ``get_state`` of its id gives it."""
        found = self._cache.get(checkpoint)
        if found is None:
            config = config_for(thread_id, checkpoint)
            try:
                found = convert.snapshot(self._graph.get_state(config))
            except Exception as exc:  # the next step's inputs cannot be built
                found = failures.stored_snapshot(self._saver, config, self._model)
                if found is None:
                    raise
                self._unplanned[checkpoint] = exc
            self._cache[checkpoint] = found
        return found

    def versions(self, thread_id: str, checkpoint: str) -> dict[str, int]:
        """The channel versions stored with ``checkpoint`` (the channel table's ``ver``),
        as numbers: LangGraph's ``"000…0003.0.52…"`` is 3."""
        found = self._versions.get(checkpoint)
        if found is None:
            stored = self._saver.get_tuple(config_for(thread_id, checkpoint))
            raw = stored.checkpoint.get("channel_versions", {}) if stored is not None else {}
            found = {key: convert.version_number(v) for key, v in raw.items()}
            self._versions[checkpoint] = found
        return found

    def thread(self, thread_id: str, cursor: str) -> StateSnapshot:
        """The thread's head as ``get_state`` shows the thread (the writes of tasks that
        finished in the pending step applied); the head's own snapshot where that raises."""
        key = f"{cursor} thread"
        found = self._cache.get(key)
        if found is None:
            try:
                found = convert.snapshot(self._graph.get_state(_thread(thread_id)))
            except Exception:  # LangGraph cannot apply the writes stored for the step
                return self.at(thread_id, cursor) or NONE
            self._cache[key] = found
        return found

    def subgraph_states(self, thread_id: str, cursor: str) -> dict[str, StateSnapshot]:
        """Task id -> its subgraph's snapshot, at ``cursor`` (read once: it costs)."""
        key = f"{cursor} subgraphs"
        found = self._cache.get(key)
        if found is None:
            config = config_for(thread_id, cursor)
            try:
                found = convert.snapshot(self._graph.get_state(config, subgraphs=True))
            except Exception:  # (the step's inputs cannot be built: shown without them)
                return {}
            self._cache[key] = found
        return subgraphs.subgraph_states(found)

    def history(self, thread_id: str, cursor: str | None = None) -> list[StateSnapshot]:
        """Every snapshot of the thread, newest first (read once until it is written to).

        After a write at ``cursor`` (the session's position), the history read before is
        brought up to date: the snapshots from ``cursor`` up its parents to the first one
        already read (whose tasks' writes may have changed) are read; the rest is kept.
        Every checkpoint the engine makes is such an ancestor of the position it moves to.
        """
        found = self._histories.get(thread_id)
        if found is None:
            old = self._stale.pop(thread_id, None)
            if old is not None and cursor is not None:
                found = self._brought_up_to_date(thread_id, old, cursor)
            if found is None:
                found = self._read_history(thread_id)
            self._histories[thread_id] = found
        return found

    def _brought_up_to_date(
        self, thread_id: str, old: list[StateSnapshot], cursor: str
    ) -> list[StateSnapshot] | None:
        """``old`` with the snapshots written since (``None``: read it all again)."""
        position = {checkpoint_of(snap.config): i for i, snap in enumerate(old)}
        new: list[StateSnapshot] = []
        at: str | None = cursor
        while at is not None and at not in position:
            snap = self.at(thread_id, at)
            if snap is None or len(new) > len(old):
                return None
            new.append(snap)
            at = checkpoint_of(snap.parent_config) if snap.parent_config else None
        if at is None:
            return None  # a history that does not join the one read: read it again
        joined = self.at(thread_id, at)
        if joined is None:
            return None
        kept = list(old)
        kept[position[at]] = joined
        return [*new, *kept]

    def _read_history(self, thread_id: str) -> list[StateSnapshot]:
        try:
            return [convert.snapshot(s) for s in self._graph.get_state_history(_thread(thread_id))]
        except Exception:  # a checkpoint whose next step LangGraph cannot plan
            ids = [checkpoint_of(t.config) for t in self._saver.list(_thread(thread_id))]
            return [snap for c in ids if (snap := self.at(thread_id, c)) is not None]

    def commit_record(
        self,
        thread_id: str,
        cursor: str,
        parent: str,
        names: dict[str, str],
        change: tuple[int, Any, Any],
    ) -> CommitRecord:
        """What the step that made ``cursor`` did to each channel; ``parent``: where the
        session stood, ``names``: task id -> node, ``change``: the step, the values before
        and after it."""
        step, before, after = change
        # The checkpoint the step ran from: ``parent``, or the fork LangGraph made of it.
        made = self.at(thread_id, cursor) or NONE
        ran_from = checkpoint_of(made.parent_config) or parent
        stored = self._saver.get_tuple(config_for(thread_id, ran_from))
        writes = list(stored.pending_writes or ()) if stored is not None else []
        planned = self.at(thread_id, ran_from)
        names.update({t.id: t.name for t in planned.tasks} if planned is not None else {})
        versions = self._saver.get_tuple(config_for(thread_id, cursor))
        return convert.commit_record(
            step,
            before if isinstance(before, Mapping) else {},
            after if isinstance(after, Mapping) else {},
            writes,
            names,
            versions.checkpoint["channel_versions"] if versions else {},
        )

    def failure(self, thread_id: str, cursor: str, step: int, *, head: bool) -> ErrorInfo | None:
        """Why the step after ``cursor`` (superstep ``step``) fails outside its nodes, if it
        does; ``head``: ``cursor`` is the thread's newest checkpoint."""
        snap = self.at(thread_id, cursor)
        if snap is None:
            return None
        unplanned = self._unplanned.get(cursor)
        if unplanned is not None:
            return failures.plan_info(unplanned, step, snap.values)
        if not head:
            return None  # LangGraph applies the writes stored for a step at the head only
        try:
            self._graph.get_state(_thread(thread_id))
        except Exception as exc:
            return self.step_failure(exc, thread_id, cursor, step)
        return None

    def step_failure(
        self, exc: BaseException, thread_id: str, cursor: str, step: int
    ) -> ErrorInfo | None:
        """``exc`` as a step that failed outside its nodes: at commit (a channel rejects the
        writes stored at ``cursor``) or building a task's input; ``None`` for other errors."""
        snap = self.at(thread_id, cursor) or NONE
        if failures.plans(exc) or cursor in self._unplanned:
            return failures.plan_info(exc, step, snap.values)
        stored = self._saver.get_tuple(config_for(thread_id, cursor))
        return failures.commit_info(exc, step, snap, stored, self._model.channel_specs)


def _thread(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}
