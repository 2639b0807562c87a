"""Edits in a subgraph frame: ``set`` and ``update`` change the subgraph's own state.

When the views show a subgraph's frame (see :mod:`~.subframes`), an edit goes to that
subgraph: through ``update_state`` on the subgraph's config (its ``checkpoint_ns``), which
stores a new checkpoint of the subgraph; resuming the run re-enters the subgraph from it.
An engine that can do it has ``edit_frame``; the others refuse, saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sgdebug.debugger.editing import EditError, as_updates, check_keys, replace_write
from sgdebug.debugger.evaluation import ExpressionError
from sgdebug.debugger.results import Outcome
from sgdebug.debugger.subframes import FrameCursor, SubgraphFrame

if TYPE_CHECKING:
    from sgdebug.debugger.core import SessionCore

__all__ = ["FrameEditor", "SubgraphEdits"]


@runtime_checkable
class FrameEditor(Protocol):
    """An engine that can edit a subgraph's state where the run stands inside it."""

    def edit_frame(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]]) -> None:
        """Apply ``writes`` to the subgraph checkpoint ``config`` names (its own namespace)."""
        ...


class SubgraphEdits:
    """``set``/``update`` while a subgraph frame is shown (``None``: not in one, edit as usual)."""

    def __init__(self, core: SessionCore, frames: FrameCursor) -> None:
        self.core = core
        self.frames = frames

    def set(
        self, values: Mapping[str, Any] | None, key: str = "", expr: str = ""
    ) -> Outcome | None:
        """``set KEY = EXPR`` (``values`` None) or ``set_values(values)`` in the shown frame."""
        chosen = self._shown()
        if chosen is None:
            return None
        with self.core.lock:
            try:
                given = dict(values) if values is not None else {key: self.core.evaluate(expr)}
            except ExpressionError as exc:
                return self.core.refuse("set", f"{key} not changed: {exc}")
            return self._apply("set", chosen, given, replace=True)

    def update(self, expr: str, as_node: str | None) -> Outcome | None:
        """``update DICT`` in the shown frame (through the subgraph's reducers)."""
        chosen = self._shown()
        if chosen is None:
            return None
        with self.core.lock:
            if as_node is not None:
                return self.core.refuse(
                    "update", "state not changed: `update ... as NODE` edits the parent "
                    "graph's frame only (`up` first)"
                )  # fmt: skip
            try:
                values = as_updates(self.core.evaluate(expr))
            except (ExpressionError, EditError) as exc:
                return self.core.refuse("update", f"state not changed: {exc}")
            return self._apply("update", chosen, values, replace=False)

    def _shown(self) -> SubgraphFrame | None:
        return self.frames.selected(self.frames.chain())

    def _apply(
        self, command: str, chosen: SubgraphFrame, values: dict[str, Any], *, replace: bool
    ) -> Outcome:
        where = chosen.label
        engine = self.core.engine
        if reason := self.core.why_not(command):
            return self.core.refuse(command, reason)
        if not isinstance(engine, FrameEditor):
            name = engine.capabilities.engine
            return self.core.refuse(
                command, f"state not changed: editing a subgraph's state ({where}) is not "
                f"available on the {name} engine"
            )  # fmt: skip
        model = chosen.model
        if model is None:
            return self.core.refuse(command, f"state not changed: {where}'s graph is not known")
        if not values:
            return self.core.refuse(command, "state not changed: nothing to change")
        try:
            check_keys(model, list(values))
        except EditError as exc:
            return self.core.refuse(command, f"state not changed in {where}: {exc}")
        writes = [replace_write(model, k, v) if replace else (k, v) for k, v in values.items()]
        try:
            engine.edit_frame(chosen.snapshot.config, writes)
        except Exception as exc:
            return self.core.refuse(command, f"state not changed in {where}: {exc}")
        verb = "Set" if replace else "Updated (through reducers)"
        message = f"{verb} {', '.join(values)} in frame {where} (the subgraph's own checkpoint)."
        return self.core.publish(Outcome(command, True, self.core.status, message, self.core.stop))
