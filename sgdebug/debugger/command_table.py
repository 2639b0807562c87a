"""Every command of the command language, defined once (see :mod:`~.commands`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.command_index import CommandIndex
from sgdebug.debugger.command_spec import CommandSpec
from sgdebug.debugger.evaluation import ExpressionError, parse_input
from sgdebug.debugger.parsing import Arg, ParseError
from sgdebug.debugger.results import Outcome
from sgdebug.debugger.subgraph_commands import FRAME_COMMANDS

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = ["COMMANDS", "INDEX"]

Args = Mapping[str, Any]
_IF = Arg("condition", "expr", optional=True, keyword="if")
_WHEN = Arg("when", "choice", choices=("before", "after"))
_NODE_OR_ANY = Arg("node", "node", choices=("*",))
_ALL = Arg("whole", "flag", optional=True, keyword="--all")


def _break(temporary: bool) -> Any:
    def run(s: Session, a: Args) -> Outcome:
        return s.break_(a["when"], a["node"], a.get("condition"), temporary=temporary)

    return run


def _restart(s: Session, a: Args) -> Outcome:
    if "input" not in a:
        return s.restart()
    try:
        value = parse_input(a["input"], s.evaluator)
    except ExpressionError as exc:
        return Outcome("restart", False, s.status, f"restart: bad input: {exc}")
    return s.restart(value)


def _help(s: Session, a: Args) -> Outcome:
    try:
        text = INDEX.help_text(a.get("command"), s)
    except ParseError as exc:
        return Outcome("help", False, s.status, str(exc))
    return Outcome("help", True, s.status, "", value=text)


def _delete(s: Session, a: Args) -> Outcome:
    number = a["number"]
    return s.delete(None if number == "all" else number)


def _pending(s: Session, typed: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(s.pending_tasks)) if not typed else []


def _answers(s: Session, typed: Sequence[str]) -> list[str]:
    """With several interrupts pending, a dict of their ids to fill in (nobody types a
    32-digit id); nothing to offer for one (its answer is any expression)."""
    pending = s.interrupts
    if typed or len(pending) < 2:
        return []
    return ["{" + ", ".join(f"{i.id!r}: " for i in pending) + "}"]


_SPECS: list[CommandSpec] = [
    CommandSpec(
        name="step",
        kind="motion",
        summary="Run N supersteps (default 1).",
        help="Runs whole supersteps: plan, every task, commit. Inside a subgraph (after a "
        "stop there) it runs one of the subgraph's supersteps, and when a task of the step "
        "runs a subgraph it stops before that subgraph's first node (step into; `next` runs "
        "it whole). Stops sooner at a breakpoint, an exception, an interrupt() or the end "
        "of the run.",
        run=lambda s, a: s.step(a.get("count", 1)),
        args=(Arg("count", "int", optional=True),),
        aliases=("s",),
        key="s",
        footer=True,
        key_help="Run one superstep (`step N` on the command line runs N)",
    ),
    CommandSpec(
        name="next",
        kind="motion",
        summary="Run N supersteps of the shown frame, its subgraphs whole (default 1).",
        help="Steps over subgraphs: runs the pending superstep of the graph the panes show "
        "(the root's, or after a stop inside a subgraph that subgraph's), a subgraph one of "
        "its tasks runs going through whole, and stops before that graph's next superstep "
        "(or, when it ends, its parent's). `step` instead goes into a subgraph. Stops "
        "sooner at a breakpoint, an exception or an interrupt().",
        run=lambda s, a: s.next(a.get("count", 1)),
        args=(Arg("count", "int", optional=True),),
        aliases=("n",),
        key="n",
        key_help="Run one superstep of the shown frame, its subgraphs whole",
    ),
    CommandSpec(
        name="finish",
        kind="motion",
        summary="Run to the end of the subgraph shown; stop in the frame above.",
        help="Steps out of a subgraph: runs the subgraph the panes show (after a stop inside "
        "it) to its end and stops before the next superstep of the graph that runs it. "
        "Stops sooner at a breakpoint, an exception or an interrupt().",
        run=lambda s, a: s.finish(),
        aliases=("fin",),
        key="f",
        key_help="Run to the end of the subgraph shown (step out)",
    ),
    CommandSpec(
        name="task",
        kind="motion",
        summary="Run one pending task of this superstep.",
        help="Runs one pending task (of NODE, else the first); the others stay pending. The "
        "superstep commits when its last task has run.",
        run=lambda s, a: s.task(a.get("node")),
        args=(Arg("node", "node", optional=True),),
        aliases=("t",),
        completer=_pending,
        key="t",
        footer=True,
        key_help="Run one pending task of this superstep (the first one)",
    ),
    CommandSpec(
        name="continue",
        kind="motion",
        summary="Run until a breakpoint, an exception, an interrupt or the end.",
        help="Runs supersteps until something stops the run. From another thread, "
        "request_pause() (the TUI's pause key) stops it at the next superstep.",
        run=lambda s, a: s.continue_(),
        aliases=("c", "cont"),
        key="c",
        footer=True,
    ),
    CommandSpec(
        name="until",
        kind="motion",
        summary="Run until NODE is about to run.",
        help="Runs until a superstep that includes NODE is planned (breakpoints still stop "
        "it). NODE may be a path into a subgraph (research/summarize).",
        run=lambda s, a: s.until(a["node"]),
        args=(Arg("node", "node"),),
        aliases=("u",),
        key="u",
        takes="node",
        key_help="Run until the selected node is about to run",
    ),
    CommandSpec(
        name="retry",
        kind="motion",
        summary="Run the failed superstep again.",
        help="After a node raised: runs the failed tasks again (the others keep their writes) "
        "and commits the step. Edit the state first to fix the cause.",
        run=lambda s, a: s.retry(),
        key="R",
        footer=True,
    ),
    CommandSpec(
        name="abort",
        kind="session",
        summary="Give up the current run.",
        help="Ends the current run where it is. History stays: `goto` a snapshot to continue "
        "from it, or `restart`.",
        run=lambda s, a: s.abort(),
        key="x",
    ),
    CommandSpec(
        name="resume",
        kind="motion",
        summary="Answer interrupt() with EXPR and continue.",
        help="Answers the pending interrupt() with the value of EXPR and continues. With "
        "several pending interrupts give a dict by interrupt id: resume {'<id>': value}. "
        "Without EXPR each pending interrupt gets None.",
        run=lambda s, a: s.resume(a.get("value")),
        args=(Arg("value", "expr", optional=True),),
        completer=_answers,
        key="a",
        label="Answer",
        footer=True,
        key_help="Answer the pending interrupt() (starts `resume ANSWER` on the command line)",
    ),
    CommandSpec(
        name="restart",
        kind="motion",
        needs="idle",
        summary="Start a new run (with INPUT, else the last input).",
        help="Starts a new run on a new thread, paused before its first superstep. INPUT is a "
        "Python expression (or JSON); by default the previous input.",
        run=_restart,
        args=(Arg("input", "expr", optional=True, placeholder="INPUT"),),
        aliases=("start", "run"),
        key="r",
        key_help="Start a new run with the same input (`restart INPUT` for another)",
    ),
    CommandSpec(
        name="break",
        kind="breakpoints",
        needs="idle",
        summary="Break before or after the superstep that runs NODE.",
        help="`break before NODE` stops before the superstep that runs NODE (no task of it "
        "has run); `break after NODE` stops after that superstep committed. NODE `*` matches "
        "every node. `if EXPR` makes it conditional on the state (`state[...]`).",
        run=_break(False),
        args=(_WHEN, _NODE_OR_ANY, _IF),
        aliases=("b",),
        key="b",
        takes="node",
        footer=True,
        key_help="Toggle a breakpoint before the selected node",
    ),
    CommandSpec(
        name="tbreak",
        kind="breakpoints",
        needs="idle",
        summary="A breakpoint that is deleted after it fires once.",
        help="Like `break`, but the breakpoint is deleted the first time it fires.",
        run=_break(True),
        args=(_WHEN, _NODE_OR_ANY, _IF),
        aliases=("tb",),
    ),
    CommandSpec(
        name="watch",
        kind="breakpoints",
        needs="idle",
        summary="Break after a superstep that changes CHANNEL.",
        help="Stops after a superstep that changed CHANNEL. The condition may use `old` and "
        "`new` (the channel's values) and `state`.",
        run=lambda s, a: s.watch(a["channel"], a.get("condition")),
        args=(Arg("channel", "channel", paths=True), _IF),
        aliases=("w",),
        key="w",
        takes="channel",
        key_help="Watch the selected channel (break when a step changes it)",
    ),
    CommandSpec(
        name="delete",
        kind="breakpoints",
        needs="idle",
        summary="Delete breakpoint N, or all of them.",
        help="Deletes breakpoint N; `delete all` deletes every breakpoint but #0 (on "
        "exception), which can only be disabled.",
        run=_delete,
        args=(Arg("number", "breakpoint", choices=("all",)),),
        aliases=("d",),
    ),
    CommandSpec(
        name="disable",
        kind="breakpoints",
        needs="idle",
        summary="Disable breakpoint N.",
        help="Disables breakpoint N (kept, never fires). `disable 0` lets exceptions end the run.",
        run=lambda s, a: s.disable(a["number"]),
        args=(Arg("number", "breakpoint"),),
    ),
    CommandSpec(
        name="enable",
        kind="breakpoints",
        needs="idle",
        summary="Enable breakpoint N.",
        help="Enables breakpoint N again.",
        run=lambda s, a: s.enable(a["number"]),
        args=(Arg("number", "breakpoint"),),
    ),
    CommandSpec(
        name="breaks",
        kind="breakpoints",
        needs="nothing",
        summary="List breakpoints.",
        help="Lists breakpoints: number, enabled, hits, what, and those given to compile().",
        run=lambda s, a: s.breaks(),
        aliases=("bl",),
        key="L",
    ),
    CommandSpec(
        name="state",
        kind="query",
        summary="Show the current state.",
        help="Shows every channel's current value (the state the pending superstep reads). A "
        "large value is outlined (its size and first items); `--all` prints all of it.",
        run=lambda s, a: s.state(whole=a.get("whole", False)),
        args=(_ALL,),
        aliases=("st",),
    ),
    CommandSpec(
        name="tasks",
        kind="query",
        summary="Show the pending superstep's tasks.",
        help="Lists the tasks of the pending superstep with their state and input.",
        run=lambda s, a: s.tasks(),
        key="T",
        pane="tasks",
        key_help="Show the tasks pane",
    ),
    CommandSpec(
        name="print",
        kind="query",
        needs="nothing",
        summary="Evaluate a Python expression.",
        help="Evaluates EXPR with `state`, `snapshot`, `tasks`, `graph`, `interrupts`, "
        "`error` and the graph module's globals in scope. A large value is outlined (its "
        "size and first items); `print --all EXPR` prints all of it.",
        run=lambda s, a: s.print(a["expr"], whole=a.get("whole", False)),
        args=(_ALL, Arg("expr", "expr")),
        aliases=("p",),
    ),
    CommandSpec(
        name="set",
        kind="edit",
        summary="Replace KEY's value (bypassing its reducer).",
        help="Replaces the value of state key KEY by the value of EXPR, bypassing a reducer. "
        "A value the schema rejects, or an unknown key, changes nothing. Makes a snapshot.",
        run=lambda s, a: s.set(a["key"], a["value"]),
        args=(Arg("key", "channel", placeholder="KEY"), Arg("value", "expr", keyword="=")),
        key="e",
        takes="channel",
        label="Edit",
        footer=True,
        key_help="Edit the selected channel's value (a Python literal; Ctrl+S saves)",
    ),
    CommandSpec(
        name="update",
        kind="edit",
        summary="Apply a dict through the reducers (as NODE).",
        help="Applies the dict EXPR through each key's reducer. Without `as` the pending "
        "superstep keeps its nodes; `as NODE` applies it as if NODE returned it "
        "(LangGraph's update_state): NODE's edges decide what runs next. Makes a snapshot.",
        run=lambda s, a: s.update(a["values"], a.get("as_node")),
        args=(Arg("values", "expr", placeholder="DICT"), Arg("as_node", "node", True, "as")),
    ),
    CommandSpec(
        name="history",
        kind="history",
        summary="List the snapshots (a tree: forks and edits branch).",
        help="Lists every snapshot of the run's thread, oldest first, with its number (what "
        "goto/show/diff take), step, source and parent; `*` marks where you are.",
        run=lambda s, a: s.history(),
        aliases=("hist",),
        key="h",
        pane="history",
        key_help="Show the history pane (Enter there goes to a snapshot)",
    ),
    CommandSpec(
        name="show",
        kind="history",
        summary="Show one snapshot.",
        help="Shows snapshot SNAP (default: the current one): values, next nodes, metadata.",
        run=lambda s, a: s.show(a.get("snapshot")),
        args=(Arg("snapshot", "snapshot", optional=True),),
    ),
    CommandSpec(
        name="diff",
        kind="history",
        summary="Diff two snapshots.",
        help="`diff` compares the current snapshot with its parent, `diff A` A with the "
        "current one, `diff A B` A with B.",
        run=lambda s, a: s.diff(a.get("a"), a.get("b")),
        args=(Arg("a", "snapshot", optional=True), Arg("b", "snapshot", optional=True)),
        key="D",
        key_help="Diff the current snapshot with its parent (in the log)",
    ),
    CommandSpec(
        name="goto",
        kind="history",
        summary="Go to a snapshot; running from it starts a new branch.",
        help="Moves to snapshot SNAP. Stepping or editing from an older snapshot forks a new "
        "branch; the old branch stays in `history`.",
        run=lambda s, a: s.goto(a["snapshot"]),
        args=(Arg("snapshot", "snapshot"),),
        aliases=("g",),
    ),
    CommandSpec(
        name="graph",
        kind="query",
        needs="nothing",
        summary="Show the graph (breakpoints and pending nodes marked).",
        help="Lists nodes (B: break before, A: break after, *: pending) and edges.",
        run=lambda s, a: s.graph(),
        key="G",
        pane="graph",
        key_help="Show the graph pane",
    ),
    CommandSpec(
        name="info",
        kind="session",
        needs="nothing",
        summary="Show the engine and what it can do.",
        help="Names the engine running the graph (native: sgdebug's runtime; langgraph: "
        "LangGraph itself), the graph and the thread, and each command this engine cannot "
        "run, with the reason.",
        run=lambda s, a: s.info(),
    ),
    CommandSpec(
        name="help",
        kind="session",
        needs="nothing",
        summary="List commands, or explain one.",
        help="Shows help for COMMAND, or lists all.",
        run=_help,
        args=(Arg("command", "command", optional=True),),
        completer=lambda s, typed: [] if typed else [c.name for c in INDEX],
        aliases=("?",),
        key="question_mark",
        footer=True,
        key_help="This help",
    ),
    CommandSpec(
        name="quit",
        kind="session",
        needs="nothing",
        summary="Quit the debugger.",
        help="Ends the session.",
        run=lambda s, a: s.quit(),
        aliases=("q", "exit"),
        key="q",
        footer=True,
        key_help="Quit (asks first when the session is not saved)",
    ),
]
_SPECS[_SPECS.index(next(s for s in _SPECS if s.name == "graph")) : 0] = FRAME_COMMANDS
COMMANDS: tuple[CommandSpec, ...] = tuple(_SPECS)
"""Every command, in help order."""
INDEX: CommandIndex = CommandIndex(COMMANDS)
"""The commands by name and alias (``help`` answers from it)."""
