"""Error handler nodes (``add_node(error_handler=...)``, ``set_node_defaults(error_handler=)``).

When a node that has one fails for good (its retries spent), its handler runs at once, in the
same superstep and the same thread, as a task of its own: it receives the input the node
received and, in a parameter ``error: NodeError``, which node failed with what. The failed
task stays recorded with its error (the step's checkpoint shows it, the ``tasks`` stream
reports it) but writes nothing and no longer fails the step; the handler's writes and
``Command`` routes are committed in its place. The failed node's own edges do not fire.
An interrupt is not a failure; a handler that fails fails the run (handlers are never
handled). A node without a handler never comes here (``CompiledNode.policy``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from sgdebug.runtime._constants import PUSH
from sgdebug.runtime.errors import GraphDrained, NodeError, ParentCommand

if TYPE_CHECKING:
    from sgdebug.runtime.checkpoint.base import PendingWrite
    from sgdebug.runtime.engine._calling import TaskOwner
    from sgdebug.runtime.engine._task import Task, TaskIds

__all__ = ["ahand_over", "hand_over", "handler_task", "resume_handlers", "with_handlers"]

ERROR = "__error__"
"""The pending write a checkpoint records a task's failure in (``persist._payloads``)."""
HANDLER_PATH = "node_error_handler"
"""The path segment of a handler task: ``(*failed.path[:3], HANDLER_PATH, False)``."""


class _Step(Protocol):
    """What a handler task is added to: the run's pending step (a ``Run`` is one)."""

    @property
    def ids(self) -> TaskIds: ...
    @property
    def tasks(self) -> list[Task]: ...


def handler_task(run: TaskOwner, failed: Task) -> Task | None:
    """The task of ``failed``'s error handler, now in the run's step; ``None`` when its node
    has none or its error is not one a handler takes (the step then fails as usual)."""
    policy = failed.node.policy
    error = failed.error
    if policy is None or policy.error_handler is None or not isinstance(error, Exception):
        return None
    if isinstance(error, GraphDrained | ParentCommand):
        return None  # a subgraph stopped on request, or a command on its way up: no failure
    return _handed_over(run, failed, policy.error_handler, error)


def _handed_over(run: TaskOwner, failed: Task, handler: str, error: Any) -> Task:
    node = run.graph.nodes[handler]
    path = (*failed.path[:3], HANDLER_PATH, False)
    step = cast("_Step", run)
    task = step.ids.task(node, path, failed.input, (PUSH,))
    task.node_error = NodeError(failed.name, error)
    failed.writes, failed.done, failed.handler = [], True, task
    step.tasks.append(task)
    return task


def resume_handlers(run: TaskOwner, prefill: Mapping[str, list[PendingWrite]]) -> set[str]:
    """A step resumed from a checkpoint that recorded a failure of a node with an error
    handler (the handler then failed, or the run stopped before the step's end): the node
    is not run again; its handler's task is made again, to run (or, if it had finished, with
    its recorded writes). Its ``NodeError.error`` is the failure as the checkpoint stored it
    (its ``repr``). Returns the ids of the handler tasks that had finished."""
    from sgdebug.runtime.engine._plan import apply_prefill

    step = cast("_Step", run)
    made: list[Task] = []
    for failed in list(step.tasks):
        policy = failed.node.policy
        recorded = prefill.get(failed.id) or ()
        stored = next((w.value for w in recorded if w.channel == ERROR), None)
        if policy is None or policy.error_handler is None or stored is None or failed.done:
            continue
        made.append(_handed_over(run, failed, policy.error_handler, stored))
    return apply_prefill(made, prefill) if made else set()


RunOne = Callable[["TaskOwner", "Task"], None]
"""Runs a task in this thread (``_calling.run_task``)."""
ARunOne = Callable[["TaskOwner", "Task"], Awaitable[None]]
"""Runs an async task on the event loop (``_calling.arun_task``)."""


def hand_over(run: TaskOwner, failed: Task, run_task: RunOne) -> None:
    """Run ``failed``'s error handler here, if it has one."""
    task = handler_task(run, failed)
    if task is not None:
        run_task(run, task)


async def ahand_over(run: TaskOwner, failed: Task, run_task: RunOne, arun_task: ARunOne) -> None:
    """:func:`hand_over` on the event loop (a sync handler runs in place)."""
    task = handler_task(run, failed)
    if task is None:
        return
    if task.node.injection.is_async:
        await arun_task(run, task)
    else:
        run_task(run, task)


def with_handlers(ran: Sequence[Task]) -> list[Task]:
    """``ran`` followed by the handler tasks its failures were handed to (once each: ``ran``
    may be the whole step, handlers included)."""
    out = list(ran)
    out.extend(t.handler for t in ran if t.handler is not None and t.handler not in ran)
    return out
