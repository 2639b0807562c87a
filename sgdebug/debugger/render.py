"""Plain-text rendering of outcomes, for headless runs and as a fallback for front ends.

Front ends may draw the same data richer (through ``sgdebug.inspect``); this module keeps
the headless output readable with nothing but the standard library.
"""

from __future__ import annotations

import pprint
import reprlib
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.breakpoints import Breakpoint, held_notes
from sgdebug.debugger.results import (
    ErrorInfo,
    GraphSummary,
    HistoryEntry,
    Hit,
    Outcome,
    SessionView,
    Stop,
    TaskInfo,
)
from sgdebug.inspect.outline import outline
from sgdebug.runtime import StateSnapshot
from sgdebug.runtime.channels import MISSING

if TYPE_CHECKING:
    from sgdebug.inspect.step_diff import SnapshotDiff

__all__ = [
    "describe_failure",
    "describe_hit",
    "describe_stop",
    "format_breakpoints",
    "format_history",
    "format_outcome",
    "format_tasks",
    "format_value",
    "hit_count",
    "preview",
    "start_notes",
]

_SHORT = reprlib.Repr()
_SHORT.maxstring = 60
_SHORT.maxother = 60
_SHORT.maxlist = 6
_SHORT.maxdict = 6
_SHORT.maxlevel = 3


def preview(value: Any) -> str:
    """A one-line, bounded ``repr``."""
    if value is MISSING:
        return "(empty)"
    try:
        return _SHORT.repr(value)
    except Exception:
        return object.__repr__(value)


def format_value(value: Any, width: int = 100, *, whole: bool = False) -> str:
    """A pretty-printed ``repr`` (for ``print`` and ``state``): all of it when ``whole`` or
    when the value is small, else an outline (its size and first items) and how to get all
    of it."""
    text, outlined = _shown(value, width, whole)
    return f"{text}\n{WHOLE_HINT}" if outlined else text


WHOLE_HINT = "(an outline of a large value: `print --all EXPR` or `state --all` prints all of it)"


def _shown(value: Any, width: int, whole: bool) -> tuple[str, bool]:
    """The text of ``value`` and whether it is an outline."""
    if whole:
        try:
            return pprint.pformat(value, width=width, sort_dicts=False), False
        except Exception:
            return object.__repr__(value), False
    shown = outline(value, width)
    return shown.text, not shown.whole


def describe_hit(hit: Hit) -> str:
    """``breakpoint 2 (after node_1)``, the nodes of a ``*`` breakpoint (``breakpoint 1
    (before *) at a, b``), plus a watch's change."""
    bp = hit.breakpoint
    text = f"breakpoint {bp.number} ({bp.describe()})"
    if bp.kind == "watch":
        text += f": {bp.target} {preview(hit.old)} -> {preview(hit.new)}"
    elif hit.nodes and bp.kind != "exception" and tuple(hit.nodes) != (bp.target,):
        text += f" at {', '.join(hit.nodes)}"
    if hit.condition_error:
        text += f" [condition failed: {hit.condition_error}]"
    return text


def hit_count(hits: int) -> str:
    """``never hit``, ``hit once``, ``hit 3 times``."""
    if hits == 0:
        return "never hit"
    return "hit once" if hits == 1 else f"hit {hits} times"


def start_notes(view: SessionView) -> tuple[str, ...]:
    """What a front end opening on ``view`` should say besides where the run stands (the
    empty input; each breakpoint of a session file whose condition is held disabled; how
    the graph changed since the session was saved)."""
    held = (*view.notes, *(f"note: {line}" for line in held_notes(view.breakpoints)))
    if view.input == {} and view.thread_id is not None:
        return (
            "note: the run started on the empty input {}; `restart {...}` starts it again "
            "on another input",
            *held,
        )
    return held


def describe_failure(error: ErrorInfo) -> str:
    """What failed, in one sentence: the node that raised, or the step's commit (which
    channel rejected whose writes) or a task's input."""
    raised = f"{error.error_type}: {error.message}"
    if error.phase == "commit":
        if error.channel is None:
            return f"Step {error.step} could not commit its writes: {raised}"
        if error.reducer is not None:
            what = f"the reducer of {error.channel!r} ({error.reducer})"
        else:
            what = f"the channel {error.channel!r} ({error.channel_type or 'a plain key'})"
        who = ", ".join(error.writers) or "its tasks"
        return (
            f"Step {error.step} could not commit: {what} raised {error.error_type} on the "
            f"writes of {who}: {error.message}"
        )
    if error.phase == "plan":
        node = f"node {error.node!r}" if error.node else "a node"
        key = f" (the state schema rejects {error.channel!r})" if error.channel else ""
        return f"Step {error.step} could not start: the input of {node} failed{key}: {raised}"
    return f"Node {error.node!r} raised {raised}"


def describe_stop(stop: Stop) -> str:
    """One paragraph: why the run stopped and where."""
    kind = stop.kind
    error = stop.error
    if kind == "exception" and error is not None:
        done = "did not start" if error.phase == "plan" else "was committed"
        return (
            f"{describe_failure(error)}\n"
            f"Nothing of step {error.step} {done}: edit the state and `retry`, or `abort`."
        )
    if kind == "failed" and error is not None:
        if error.phase != "task":
            return f"The run failed: {describe_failure(error)}"
        where = f" in node {error.node!r}" if error.node else ""
        return f"The run failed{where} at step {error.step}: {error.error_type}: {error.message}"
    if kind == "interrupt":
        asked = "; ".join(f"{preview(i.value)} (id {i.id})" for i in stop.interrupts)
        how = (
            "`resume EXPR`"
            if len(stop.interrupts) < 2
            else "each by id, `resume {'<id>': value, ...}`"
        )
        return f"Interrupted at step {stop.step}: the graph asks {asked}. Answer {how}."
    hits = "; ".join(describe_hit(h) for h in stop.hits)
    if kind == "done":
        return f"The run finished. {hits}." if hits else "The run finished."
    if kind == "breakpoint" and not hits and stop.inside is not None:  # the subgraph's own
        where = _stopped_in(replace(stop, kind="step"))[len("Paused ") : -1]
        return f"Stopped {where}, at a breakpoint the subgraph was compiled with."
    if kind == "breakpoint" and not hits:  # (inside a subgraph compiled with it)
        return f"Stopped before step {stop.step} at a breakpoint a subgraph was compiled with."
    if kind == "breakpoint":
        return f"Stopped before step {stop.step} at {hits}."
    if stop.inside is not None or kind == "finish":
        return _stopped_in(stop)
    text = {
        "start": "Started: paused before step",
        "step": "Paused before step",
        "task": f"Ran task {stop.node}; at step" if stop.node else "Ran one task; at step",
        "until": f"Reached {stop.node}: paused before step",
        "pause": "Paused on request before step",
        "edit": "State edited; pending step",
        "goto": "Moved to the snapshot before step",
        "aborted": "Run aborted at step",
    }.get(kind, kind)
    return f"{text} {stop.step}."


def _stopped_in(stop: Stop) -> str:
    """``Paused in research before summarize (step 2 of research).``, after ``until`` or
    ``finish`` with what was reached or finished first."""
    inside = stop.inside
    if inside is None:
        where = f"paused before step {stop.step}"
    else:
        nxt = ", ".join(inside.next) or "its end"
        where = f"paused in {inside.where} before {nxt} (step {inside.step} of {inside.where})"
    if stop.kind == "until":
        return f"Reached {stop.node}: {where}."
    if stop.kind == "finish":
        return f"Finished {stop.node}: {where}."
    return f"{where[0].upper()}{where[1:]}."


def format_tasks(tasks: Iterable[TaskInfo]) -> str:
    """One line per task: state, name, input preview."""
    lines = [f"  [{t.state}] {t.name}  input={preview(t.input)}" for t in tasks]
    return "\n".join(lines) if lines else "  (no pending tasks)"


def format_breakpoints(breakpoints: Iterable[Breakpoint]) -> str:
    """A pdb-like breakpoint table."""
    lines = ["Num  Enabled  Hits  What"]
    for bp in breakpoints:
        what = bp.describe() + (" (temporary)" if bp.temporary else "")
        if bp.origin == "compile":
            what += " (from compile())"
        if bp.held:
            what += " (from the session file: `enable` to use)"
        lines.append(f"{bp.number:<4} {'yes' if bp.enabled else 'no':<8} {bp.hits:<5} {what}")
    return "\n".join(lines)


def format_history(entries: Iterable[HistoryEntry]) -> str:
    """One line per snapshot, oldest first; ``*`` marks the current one."""
    lines = []
    for e in entries:
        mark = "*" if e.current else " "
        parent = "" if e.parent_index is None else f" <- {e.parent_index}"
        ran = f" ran {', '.join(e.ran)}" if e.ran else ""
        lines.append(f"{mark}{e.index:>4}  step {e.step:<4} {e.source:<6}{ran}{parent}")
    return "\n".join(lines)


def _format_mapping(values: Any, *, whole: bool = False) -> str:
    if not isinstance(values, Mapping):
        return "  " + format_value(values, whole=whole)
    if not values:
        return "  (empty)"
    lines, outlined = [], False
    for key, value in values.items():
        text, cut = _shown(value, 100, whole)
        lines.append(f"  {key} = " + (text.replace("\n", "\n    ") if cut else text))
        outlined = outlined or cut
    return "\n".join([*lines, f"  {WHOLE_HINT}"] if outlined else lines)


def _format_diff(diff: SnapshotDiff) -> str:
    """Under the outcome's ``diff A -> B``: one signed line per change, keys by name."""
    from sgdebug.inspect.step_diff import snapshot_diff_lines

    if not diff.channels:
        return "  no change"
    return "\n".join(
        f"  {line.sign} {line.path}: {line.text}" for line in snapshot_diff_lines(diff)
    )


def _format_graph(graph: GraphSummary) -> str:
    lines = ["nodes:"]
    for node in graph.nodes:
        marks = "".join(
            m for m, on in (("B", node.before), ("A", node.after), ("*", node.pending)) if on
        )
        lines.append(f"  {node.name}" + (f"  [{marks}]" if marks else ""))
    lines.append("edges:")
    for edge in graph.edges:
        arrow = "-?->" if edge.conditional else "--->"
        lines.append(f"  {edge.source} {arrow} {edge.target}")
    return "\n".join(lines)


def _format_snapshot(snapshot: StateSnapshot) -> str:
    meta = snapshot.metadata or {}
    lines = [f"step {meta.get('step')} ({meta.get('source')}), next: {', '.join(snapshot.next)}"]
    lines.append(_format_mapping(snapshot.values))
    return "\n".join(lines)


def _format_value_of(outcome: Outcome) -> str:
    from sgdebug.inspect.step_diff import SnapshotDiff  # (not needed by the first screen)

    value = outcome.value
    command = outcome.command
    if isinstance(value, SnapshotDiff):
        return _format_diff(value)
    if isinstance(value, GraphSummary):
        return _format_graph(value)
    if isinstance(value, StateSnapshot):
        return _format_snapshot(value)
    if isinstance(value, Breakpoint):
        return ""
    if command == "state":
        return _format_mapping(value, whole=outcome.whole)
    if command == "tasks":
        return format_tasks(value)
    if command == "breaks":
        return format_breakpoints(value)
    if command == "history":
        return format_history(value)
    if command == "help" and isinstance(value, str):
        return value
    if command == "print":
        return format_value(value, whole=outcome.whole)
    return ""


def format_outcome(outcome: Outcome) -> str:
    """The text a headless run prints for one command."""
    parts = []
    if not outcome.ok:
        parts.append(f"*** {outcome.message}")
    else:
        body = _format_value_of(outcome)
        if outcome.message:
            parts.append(outcome.message)
        if body:
            parts.append(body)
        error = outcome.stop.error if outcome.stop is not None else None
        if error is not None and error.traceback:
            parts.append(error.traceback.rstrip())
    parts.extend(outcome.notes)
    return "\n".join((*outcome.ran, *parts))
