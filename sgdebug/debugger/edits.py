"""Verbs that edit state: ``set`` (replace, bypassing reducers) and ``update`` (through them).

``set_value(key, value)`` and ``set_values({key: value, ...})`` are ``set`` for a Python
value the caller already has (the REPL's ``state[KEY] = ...``): the same checks, the same
messages, no expression.

Every edit is checked first (known keys; the pydantic schema, if the state has one) and a
refused edit changes nothing. An accepted edit makes a new snapshot. Without ``as`` the
pending superstep keeps its nodes (they run again on the edited state); ``update ... as
NODE`` follows LangGraph's ``update_state``: the values are applied as if NODE returned
them, so NODE's edges decide what runs next.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sgdebug.debugger.core import SessionCore
from sgdebug.debugger.editing import EditError, as_updates, check_keys, replace_write, validate_edit
from sgdebug.debugger.engine import EngineRefused
from sgdebug.debugger.evaluation import ExpressionError
from sgdebug.debugger.events import Edited
from sgdebug.debugger.motion import MotionVerbs
from sgdebug.debugger.render import describe_failure
from sgdebug.debugger.results import Outcome, SessionStatus, Stop

__all__ = ["EditVerbs"]

Write = tuple[str, Any]


class EditVerbs:
    """Changing the state between supersteps."""

    def __init__(self, core: SessionCore, motion: MotionVerbs) -> None:
        self.core = core
        self.motion = motion

    def set(self, key: str, expr: str) -> Outcome:
        """Replace ``key``'s value by the value of ``expr`` (a reducer is bypassed)."""
        with self.core.lock:
            if reason := self.core.why_not("set"):
                return self.core.refuse("set", reason)
            try:
                check_keys(self.core.model, [key])
                value = self.core.evaluate(expr)
            except (ExpressionError, EditError) as exc:
                return self.core.refuse("set", f"{key} not changed: {exc}")
            return self._set_values({key: value}, f"{key} not changed")

    def set_value(self, key: str, value: Any) -> Outcome:
        """Replace ``key``'s value by the Python ``value``: ``set`` without an expression."""
        with self.core.lock:
            return self._set_values({key: value}, f"{key} not changed")

    def set_values(self, values: Mapping[str, Any]) -> Outcome:
        """Replace several keys at once (one edit, one snapshot; reducers are bypassed)."""
        with self.core.lock:
            if not values:
                return self.core.refuse("set", "state not changed: nothing to set")
            return self._set_values(values, "state not changed")

    def _set_values(self, values: Mapping[str, Any], prefix: str) -> Outcome:
        if reason := self.core.why_not("set"):
            return self.core.refuse("set", reason)
        graph = self.core.model
        try:
            check_keys(graph, list(values))
            writes = [replace_write(graph, key, value) for key, value in values.items()]
            validate_edit(graph, self.core.engine.values(), writes)
        except EditError as exc:
            return self.core.refuse("set", f"{prefix}: {exc}")
        return self._edit("set", writes)

    def update(self, expr: str, as_node: str | None = None) -> Outcome:
        """Apply the dict ``expr`` through the reducers (as if ``as_node`` returned it)."""
        with self.core.lock:
            if reason := self.core.why_not("update"):
                return self.core.refuse("update", reason)
            graph = self.core.model
            try:
                values = as_updates(self.core.evaluate(expr))
                check_keys(graph, list(values))
                validate_edit(graph, self.core.engine.values(), list(values.items()))
            except (ExpressionError, EditError) as exc:
                return self.core.refuse("update", f"state not changed: {exc}")
            if not values:
                return self.core.refuse("update", "state not changed: the update is empty")
            if as_node is None:
                return self._edit("update", list(values.items()))
            return self._update_as(values, as_node)

    def _edit(self, command: str, writes: Sequence[Write]) -> Outcome:
        before = self.core.status
        if failed := self.motion.ensure_live(command):
            return failed
        done = [t for t in self.core.engine.tasks() if t.done]
        if done and before == "interrupted":
            names = ", ".join(t.name for t in done)
            return self.core.refuse(
                command,
                f"state not changed: {names} already ran in this interrupted step and their "
                "writes are applied; `resume` first, or `goto` the snapshot to edit it",
            )
        try:
            rerun_count = self.core.engine.edit(writes)
        except EngineRefused as exc:
            return self.core.refuse(command, f"state not changed: {exc}")
        self.motion.track_plan()
        keys = tuple(k for k, _ in writes)
        rerun = (
            f"; {rerun_count} task(s) that had run in this step will run again"
            if rerun_count
            else ""
        )
        verb = "Set" if command == "set" else "Updated (through reducers)"
        message = f"{verb} {', '.join(keys)}{rerun}."
        return self._edited(command, keys, None, before, message)

    def _update_as(self, values: dict[str, Any], as_node: str) -> Outcome:
        try:
            self.core.engine.update_as(values, as_node)
        except EngineRefused as exc:
            return self.core.refuse("update", f"state not changed: {exc}")
        except Exception as exc:
            return self.motion.fail("update", exc)
        if failed := self.motion.ensure_live("update"):
            return failed
        self.motion.track_plan()
        keys = tuple(values)
        nxt = ", ".join(t.name for t in self.core.engine.tasks()) or "nothing"
        message = f"Updated {', '.join(keys)} as {as_node}; next: {nxt}."
        return self._edited("update", keys, as_node, "paused", message)

    def _edited(
        self,
        command: str,
        keys: tuple[str, ...],
        as_node: str | None,
        before: SessionStatus,
        message: str,
    ) -> Outcome:
        status: SessionStatus = "paused"
        failure = self.core.engine.failure()
        if failure is not None:  # the edited step's inputs cannot be built: edit again
            status, self.core.interrupts = "error", ()
            self.core.retry_step = failure.step
            message += "\n" + describe_failure(failure)
        elif not self.core.engine.tasks() and not self.core.engine.interrupts():
            status = "done"
        elif before == "interrupted":
            status = "interrupted"
        else:
            self.core.interrupts = ()
        self.core.status = status
        self.core.stop = Stop(
            "edit", self.core.engine.step, interrupts=self.core.interrupts, error=failure
        )
        self.core.bus.emit(Edited(keys, as_node, self.core.engine.checkpoint_id))
        branch = self.motion.branch_note()
        notes = (branch,) if branch else ()
        return self.core.publish(
            Outcome(command, True, status, message, self.core.stop, notes=notes)
        )
