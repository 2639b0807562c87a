"""A run started inside another run's task: a subgraph, and where it sits in its parent.

LangGraph treats any compiled graph that runs while a task of another graph runs as that
task's subgraph, whether it is the node itself or invoked by the node's code: its
checkpoints live under the parent's checkpoint namespace, its interrupts stop the parent,
its stream events reach the parent's stream. :func:`current_parent` finds that parent
through the running task's scope; a run keeps it as ``RunOptions.parent``.

A namespace is a tuple of parts, one per level, each ``"node:task_id"`` (the node of the
parent's task and that task's id); LangGraph's ``checkpoint_ns`` string joins them with
``|`` (:func:`checkpoint_ns`), and ``stream(subgraphs=True)`` yields the tuple itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from sgdebug.runtime.engine._context import SCOPE

if TYPE_CHECKING:
    from sgdebug.runtime.engine._task import Task
    from sgdebug.runtime.engine._view import RunView

__all__ = ["NS_SEP", "Parent", "checkpoint_ns", "current_parent"]

NS_SEP = "|"
"""Joins the levels of a checkpoint namespace."""


@dataclass(frozen=True, slots=True)
class Parent:
    """The run and task a (sub)graph's run is running inside."""

    run: RunView
    """The parent run (read-only)."""
    task: Task
    """The parent's task whose node runs this graph."""
    namespace: tuple[str, ...]
    """This run's namespace: the parent's parts plus ``"node:task_id"`` of :attr:`task`."""

    @property
    def checkpoint_ns(self) -> str:
        """The namespace as LangGraph's ``checkpoint_ns`` string."""
        return checkpoint_ns(self.namespace)


def checkpoint_ns(namespace: tuple[str, ...]) -> str:
    """``("a:1", "b:2")`` -> ``"a:1|b:2"``; the root graph's namespace is ``""``."""
    return NS_SEP.join(namespace)


def current_parent() -> Parent | None:
    """The run and task of the task running in this context, if one is running."""
    scope = SCOPE.get()
    while scope is not None and scope.task is None:
        scope = scope.outer  # a reused scope between tasks stands for the one before it
    if scope is None:
        return None
    # The owner of a task scope is always a run (``TaskOwner``: a view and a scope owner).
    run, task = cast("RunView", scope.owner), scope.task
    return Parent(run, task, (*run.namespace, f"{task.name}:{task.id}"))
