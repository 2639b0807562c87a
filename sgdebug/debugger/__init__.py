"""The one session controller that both front ends drive.

Breakpoints, step/continue/run-to, state edits, forks, the history cursor, the
command language (parse and execute) and session files. It builds on
``sgdebug.inspect`` and ``sgdebug.runtime`` and imports no UI toolkit.
"""

from __future__ import annotations

from sgdebug.debugger.breakpoints import Breakpoint, BreakpointError
from sgdebug.debugger.command_spec import CommandSpec
from sgdebug.debugger.commands import (
    COMMANDS,
    ParsedCommand,
    available,
    complete,
    execute,
    help_text,
    lookup,
    parse,
    run_line,
)
from sgdebug.debugger.evaluation import ExpressionError
from sgdebug.debugger.events import (
    BreakpointsChanged,
    Closed,
    Edited,
    Errored,
    Event,
    HistoryChanged,
    Interrupted,
    Paused,
    Planned,
    Started,
    Stepped,
    TaskRan,
)
from sgdebug.debugger.parsing import Arg, ParseError
from sgdebug.debugger.render import describe_failure, format_outcome, start_notes
from sgdebug.debugger.results import (
    EdgeInfo,
    ErrorInfo,
    GraphSummary,
    HistoryEntry,
    Hit,
    Mutation,
    NodeMark,
    Outcome,
    SessionStatus,
    SessionView,
    Stop,
    StopKind,
    TaskInfo,
)
from sgdebug.debugger.session import (
    UNSET,
    LoadedTargetLike,
    Session,
    SessionOptions,
    SessionStore,
    Target,
    as_target,
)

__all__ = [
    "COMMANDS",
    "UNSET",
    "Arg",
    "Breakpoint",
    "BreakpointError",
    "BreakpointsChanged",
    "Closed",
    "CommandSpec",
    "EdgeInfo",
    "Edited",
    "ErrorInfo",
    "Errored",
    "Event",
    "ExpressionError",
    "GraphSummary",
    "HistoryChanged",
    "HistoryEntry",
    "Hit",
    "Interrupted",
    "LoadedTargetLike",
    "Mutation",
    "NodeMark",
    "Outcome",
    "ParseError",
    "ParsedCommand",
    "Paused",
    "Planned",
    "Session",
    "SessionOptions",
    "SessionStatus",
    "SessionStore",
    "SessionView",
    "Started",
    "Stepped",
    "Stop",
    "StopKind",
    "TaskInfo",
    "TaskRan",
    "Target",
    "as_target",
    "available",
    "complete",
    "execute",
    "format_outcome",
    "help_text",
    "lookup",
    "parse",
    "run_line",
    "describe_failure",
    "start_notes",
]
