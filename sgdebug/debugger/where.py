"""``where``: where the run stands, as pdb's ``where`` shows the stack.

One line per frame, outermost first: the root graph, then each subgraph the run stands in
(a pending task's subgraph that stopped inside), with the step it is about to run and its
tasks, each marked as the TUI's graph marks nodes (``✓`` ran, ``⚑`` asked, ``✗`` raised).
``>`` marks the frame the views show (``up``/``down`` move it). Then why the run stopped,
and which snapshot of which thread the session stands at.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sgdebug.debugger.results import Outcome, TaskInfo
from sgdebug.debugger.subframes import ROOT, SubgraphFrame, frame_tasks
from sgdebug.inspect.preview import preview
from sgdebug.inspect.tasks import error_text

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = ["WhereFrame", "where"]


@dataclass(frozen=True, slots=True)
class WhereFrame:
    """One line of ``where``: a graph the run stands in."""

    label: str
    """``parent``, or a subgraph's breadcrumb with its instance (see ``SubgraphFrame.label``)."""
    step: int | None
    """The superstep it is about to run (``None``: not known)."""
    tasks: tuple[str, ...]
    """Its pending tasks, each with its mark (``review ⚑ interrupt({...})``)."""
    shown: bool
    """The frame the views show."""


def where(session: Session) -> Outcome:
    """Where the run stands (``value``: the :class:`WhereFrame` s, outermost first)."""
    core = session.core
    with core.lock:
        if not core.started:
            return core.refuse("where", "no run yet: `restart` starts one")
        engine = core.engine
        chain = session.frames.chain()
        chosen = session.frames.selected(chain)
        frames = [WhereFrame(ROOT, engine.step, _marks(engine.tasks()), chosen is None)]
        frames += [_frame(f, f is chosen) for f in chain]
        width = max(len(f.label) for f in frames)
        lines = [_line(f, width) for f in frames]
        lines.append(_why(session))
        lines.append(_snapshot(session))
        return core.answer("where", tuple(frames), "\n".join(lines))


def _frame(frame: SubgraphFrame, shown: bool) -> WhereFrame:
    step = (frame.snapshot.metadata or {}).get("step")
    upcoming = step + 1 if isinstance(step, int) else None
    return WhereFrame(frame.label, upcoming, _marks(frame_tasks(frame)), shown)


def _marks(tasks: Sequence[TaskInfo]) -> tuple[str, ...]:
    return tuple(_mark(t) for t in tasks)


def _mark(task: TaskInfo) -> str:
    if task.interrupts and task.subgraph is not None:
        return f"{task.name} ⚑ (asked inside its subgraph, below)"
    if task.interrupts:
        asked = ", ".join(preview(i.value, 80) for i in task.interrupts)
        return f"{task.name} ⚑ interrupt({asked})"
    if task.error is not None:
        text = (error_text(task.error) or "").splitlines()[0]
        return f"{task.name} ✗ {text if len(text) <= 80 else text[:79] + '…'}"
    return f"{task.name} ✓" if task.done else task.name


def _line(frame: WhereFrame, width: int) -> str:
    mark = ">" if frame.shown else " "
    step = f"step {frame.step}" if frame.step is not None else "step ?"
    tasks = ", ".join(frame.tasks) or "nothing pending"
    return f"{mark} {frame.label:<{width}}  {step:<8} {tasks}"


def _why(session: Session) -> str:
    from sgdebug.debugger.render import describe_stop

    stop = session.stop
    if stop is not None:
        return describe_stop(stop).splitlines()[0]
    status = session.status
    return f"The run is {status}." if status != "paused" else "Paused."


def _snapshot(session: Session) -> str:
    engine = session.core.engine
    index = engine.snapshot_index()
    thread = engine.thread_id or "?"
    if index is None:
        return f"Thread {thread}: not at a stored snapshot."
    latest = "its latest" if engine.is_latest() else "not its latest: running from it forks"
    return f"Snapshot #{index} of thread {thread} ({latest})."
