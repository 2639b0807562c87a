"""A superstep that fails outside its tasks' bodies, and how a watched run keeps it.

LangGraph raises such an error from ``invoke``/``stream`` (and again from ``get_state`` of
the checkpoint that holds the step's writes): a channel rejecting the step's writes at
commit (two writes to a ``LastValue``: ``InvalidUpdateError``; a reducer that raises), or
the next step's tasks whose inputs cannot be built (a pydantic state rejecting a value). A
run watched by hooks may keep such a step alive instead, like a failed task
(:meth:`PauseHook.on_step_error`): the run goes back to the checkpoint the step started
from, so it can be edited and run again, and a :class:`StepFailure` says which channel (or
which node's input) failed and whose writes reached it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sgdebug.runtime.channels import BaseChannel, operator_name
from sgdebug.runtime.engine._task import path_key

if TYPE_CHECKING:
    from sgdebug.runtime.engine._run import Run

__all__ = [
    "StepFailure",
    "before_task",
    "commit_failure",
    "keep_failure",
    "plan_failure",
    "reducer_name",
]

_BEFORE_TASK = re.compile(r"^Before task with name '(.+)' and path ")
"""The note LangGraph (and this runtime) adds to an error raised building a task's input."""


@dataclass(frozen=True, slots=True)
class StepFailure:
    """Why a superstep failed outside its tasks' bodies."""

    phase: Literal["plan", "commit"]
    """``commit``: applying the step's writes raised; ``plan``: building a task's input did."""
    step: int
    """The superstep that failed (nothing of it was committed)."""
    error: BaseException
    """The exception, as ``invoke`` would raise it."""
    channel: str | None = None
    """The channel whose writes raised at commit, or whose value the schema rejected at plan
    (``None`` when not known)."""
    channel_type: str = ""
    """Its channel class (``LastValue``, ``BinaryOperatorAggregate``, ...)."""
    reducer: str | None = None
    """Its reducer's name (``operator.add``), for a reducer channel."""
    writers: tuple[str, ...] = ()
    """``commit``: the nodes whose writes reached ``channel``, in the order applied;
    ``plan``: the node whose input could not be built."""


def before_task(error: BaseException) -> str | None:
    """The node of a ``Before task with name ...`` note on ``error``, if it has one."""
    for note in getattr(error, "__notes__", ()):
        found = _BEFORE_TASK.match(str(note))
        if found:
            return found.group(1)
    return None


def reducer_name(channel: BaseChannel) -> str | None:
    """``operator.add``, ``add_messages``, ... for a reducer channel; ``None`` otherwise."""
    operator = getattr(channel, "operator", None)
    if operator is None:
        return None
    name = operator_name(operator)
    module = getattr(operator, "__module__", "")
    return f"operator.{name}" if module in ("_operator", "operator") else name


def commit_failure(
    channels: Mapping[str, BaseChannel],
    writes: Iterable[tuple[str, str, Any]],
    step: int,
    error: BaseException,
) -> StepFailure:
    """Which channel rejects the step's ``writes`` (``(node, channel, value)`` in the order
    they are applied), found by applying each channel's writes alone to ``channels`` (fresh
    channels holding the values the step started from: they are changed)."""
    grouped: dict[str, list[tuple[str, Any]]] = {}
    for node, key, value in writes:
        if key in channels:
            grouped.setdefault(key, []).append((node, value))
    for key, items in grouped.items():
        channel = channels[key]
        try:
            channel.update([value for _, value in items])
        except Exception:
            writers = tuple(dict.fromkeys(node for node, _ in items))
            kind = type(channel).__name__
            return StepFailure("commit", step, error, key, kind, reducer_name(channel), writers)
    return StepFailure("commit", step, error)


def plan_failure(step: int, error: BaseException) -> StepFailure:
    """A task of ``step`` whose input could not be built (its node from the error's note,
    the first rejected key from a pydantic error)."""
    node = before_task(error)
    return StepFailure("plan", step, error, _rejected_key(error), writers=(node,) if node else ())


def _rejected_key(error: BaseException) -> str | None:
    errors = getattr(error, "errors", None)
    if not callable(errors):
        return None
    try:
        found = errors()
        loc = found[0].get("loc", ()) if found else ()
    except Exception:
        return None
    return str(loc[0]) if loc else None


def keep_failure(run: Run, phase: str, error: Exception) -> bool:
    """Ask ``run``'s observer whether to keep a step that failed outside its tasks.

    A commit failure first takes the run back to the checkpoint the step started from
    (the failed commit may have changed some channels); without one it is not kept.
    Kept: the run's ``failure`` is set and its status is ``error``.
    """
    if not run.observer.watched:
        return False
    persist = run.persist
    record = persist.record if persist is not None else None
    if phase == "commit":
        if persist is None or record is None:
            return False
        values = persist.load(record)
        fresh = {k: c.from_checkpoint(values[k]) if k in values else c.copy()
                 for k, c in run.graph.channel_specs.items()}  # fmt: skip
        ordered = sorted(run.tasks, key=path_key)
        writes = [(t.name, k, v) for t in ordered for k, v in t.writes]
        failure = commit_failure(fresh, writes, run.step, error)
        run.rollback()
    else:
        failure = plan_failure(run.step, error)
    if not run.observer.step_failed(run, failure):
        return False
    run.failure, run.status = failure, "error"
    return True
