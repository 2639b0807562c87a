"""The command language: one registry shared by the REPL, the TUI's command line and scripts.

:data:`COMMANDS` defines every command once (:class:`~.command_spec.CommandSpec`: name,
aliases, arguments, help, TUI key, availability, completion, behaviour). :func:`parse` reads
a line (a :class:`~.parsing.ParseError` says what was expected), :func:`execute` runs it
(refusing, with the reason, a command that is not available now), :func:`run_line` does
both; :func:`complete`, :func:`available` and :func:`help_text` serve front ends.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sgdebug.debugger.command_spec import CommandSpec
from sgdebug.debugger.evaluation import ExpressionError, parse_input
from sgdebug.debugger.parsing import Arg, ParseError, parse_args, split_words
from sgdebug.debugger.results import Outcome

if TYPE_CHECKING:
    from sgdebug.debugger.session import Session

__all__ = [
    "COMMANDS",
    "CommandSpec",
    "ParseError",
    "ParsedCommand",
    "available",
    "complete",
    "execute",
    "help_text",
    "lookup",
    "parse",
    "run_line",
]

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
        text = help_text(a.get("command"), s)
    except ParseError as exc:
        return Outcome("help", False, s.status, str(exc))
    return Outcome("help", True, s.status, "", value=text)


def _delete(s: Session, a: Args) -> Outcome:
    number = a["number"]
    return s.delete(None if number == "all" else number)


def _pending(s: Session, typed: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(s.pending_tasks)) if not typed else []


_SPECS: list[CommandSpec] = [
    CommandSpec(
        "step", "Run N supersteps (default 1).",
        "Runs whole supersteps: plan, every task, commit. Stops sooner at a breakpoint, an "
        "exception, an interrupt() or the end of the run.",
        lambda s, a: s.step(a.get("count", 1)),
        (Arg("count", "int", optional=True),), ("s",), "s",
    ),
    CommandSpec(
        "task", "Run one pending task of this superstep.",
        "Runs one pending task (of NODE, else the first); the others stay pending. The "
        "superstep commits when its last task has run.",
        lambda s, a: s.task(a.get("node")),
        (Arg("node", "node", optional=True),), ("t",), "t", completer=_pending,
    ),
    CommandSpec(
        "continue", "Run until a breakpoint, an exception, an interrupt or the end.",
        "Runs supersteps until something stops the run. From another thread, "
        "request_pause() (the TUI's pause key) stops it at the next superstep.",
        lambda s, a: s.continue_(), (), ("c", "cont"), "c",
    ),
    CommandSpec(
        "until", "Run until NODE is about to run.",
        "Runs until a superstep that includes NODE is planned (breakpoints still stop it).",
        lambda s, a: s.until(a["node"]), (Arg("node", "node"),), ("u",), "u",
    ),
    CommandSpec(
        "retry", "Run the failed superstep again.",
        "After a node raised: runs the failed tasks again (the others keep their writes) "
        "and commits the step. Edit the state first to fix the cause.",
        lambda s, a: s.retry(), (), (), "R",
    ),
    CommandSpec(
        "abort", "Give up the current run.",
        "Ends the current run where it is. History stays: `goto` a snapshot to continue "
        "from it, or `restart`.",
        lambda s, a: s.abort(), (), (), "x",
    ),
    CommandSpec(
        "resume", "Answer interrupt() with EXPR and continue.",
        "Answers the pending interrupt() with the value of EXPR and continues. With several "
        "pending interrupts give a dict by interrupt id: resume {'<id>': value}. Without "
        "EXPR each pending interrupt gets None.",
        lambda s, a: s.resume(a.get("value")),
        (Arg("value", "expr", optional=True),), (), "a",
    ),
    CommandSpec(
        "restart", "Start a new run (with INPUT, else the last input).",
        "Starts a new run on a new thread, paused before its first superstep. INPUT is a "
        "Python expression (or JSON); by default the previous input.",
        _restart, (Arg("input", "expr", optional=True, placeholder="INPUT"),),
        ("start", "run"), "r", "session",
    ),
    CommandSpec(
        "break", "Break before or after the superstep that runs NODE.",
        "`break before NODE` stops before the superstep that runs NODE (no task of it has "
        "run); `break after NODE` stops after that superstep committed. NODE `*` matches "
        "every node. `if EXPR` makes it conditional on the state (`state[...]`).",
        _break(False), (_WHEN, _NODE_OR_ANY, _IF), ("b",), "b", "breakpoints",
    ),
    CommandSpec(
        "tbreak", "A breakpoint that is deleted after it fires once.",
        "Like `break`, but the breakpoint is deleted the first time it fires.",
        _break(True), (_WHEN, _NODE_OR_ANY, _IF), ("tb",), None, "breakpoints",
    ),
    CommandSpec(
        "watch", "Break after a superstep that changes CHANNEL.",
        "Stops after a superstep that changed CHANNEL. The condition may use `old` and "
        "`new` (the channel's values) and `state`.",
        lambda s, a: s.watch(a["channel"], a.get("condition")),
        (Arg("channel", "channel"), _IF), ("w",), "w", "breakpoints",
    ),
    CommandSpec(
        "delete", "Delete breakpoint N, or all of them.",
        "Deletes breakpoint N; `delete all` deletes every breakpoint but #0 (on "
        "exception), which can only be disabled.",
        _delete, (Arg("number", "breakpoint", choices=("all",)),), ("d",), None, "breakpoints",
    ),
    CommandSpec(
        "disable", "Disable breakpoint N.",
        "Disables breakpoint N (kept, never fires). `disable 0` lets exceptions end the run.",
        lambda s, a: s.disable(a["number"]), (Arg("number", "breakpoint"),), (), None,
        "breakpoints",
    ),
    CommandSpec(
        "enable", "Enable breakpoint N.", "Enables breakpoint N again.",
        lambda s, a: s.enable(a["number"]), (Arg("number", "breakpoint"),), (), None,
        "breakpoints",
    ),
    CommandSpec(
        "breaks", "List breakpoints.",
        "Lists breakpoints: number, enabled, hits, what, and those given to compile().",
        lambda s, a: s.breaks(), (), ("bl",), "L", "breakpoints",
    ),
    CommandSpec(
        "state", "Show the current state.",
        "Shows every channel's current value (the state the pending superstep reads). A "
        "large value is outlined (its size and first items); `--all` prints all of it.",
        lambda s, a: s.state(whole=a.get("whole", False)), (_ALL,), ("st",), None, "state",
    ),
    CommandSpec(
        "tasks", "Show the pending superstep's tasks.",
        "Lists the tasks of the pending superstep with their state and input.",
        lambda s, a: s.tasks(), (), (), "T", "state",
    ),
    CommandSpec(
        "print", "Evaluate a Python expression.",
        "Evaluates EXPR with `state`, `snapshot`, `tasks`, `graph`, `interrupts`, `error` "
        "and the graph module's globals in scope. A large value is outlined (its size and "
        "first items); `print --all EXPR` prints all of it.",
        lambda s, a: s.print(a["expr"], whole=a.get("whole", False)),
        (_ALL, Arg("expr", "expr")), ("p",), None, "state",
    ),
    CommandSpec(
        "set", "Replace KEY's value (bypassing its reducer).",
        "Replaces the value of state key KEY by the value of EXPR, bypassing a reducer. A "
        "value the schema rejects, or an unknown key, changes nothing. Makes a snapshot.",
        lambda s, a: s.set(a["key"], a["value"]),
        (Arg("key", "channel", placeholder="KEY"), Arg("value", "expr", keyword="=")),
        (), None, "state",
    ),
    CommandSpec(
        "update", "Apply a dict through the reducers (as NODE).",
        "Applies the dict EXPR through each key's reducer. Without `as` the pending "
        "superstep keeps its nodes; `as NODE` applies it as if NODE returned it "
        "(LangGraph's update_state): NODE's edges decide what runs next. Makes a snapshot.",
        lambda s, a: s.update(a["values"], a.get("as_node")),
        (Arg("values", "expr", placeholder="DICT"), Arg("as_node", "node", True, "as")),
        (), None, "state",
    ),
    CommandSpec(
        "history", "List the snapshots (a tree: forks and edits branch).",
        "Lists every snapshot of the run's thread, oldest first, with its number (what "
        "goto/show/diff take), step, source and parent; `*` marks where you are.",
        lambda s, a: s.history(), (), ("hist",), "h", "history",
    ),
    CommandSpec(
        "show", "Show one snapshot.",
        "Shows snapshot SNAP (default: the current one): values, next nodes, metadata.",
        lambda s, a: s.show(a.get("snapshot")),
        (Arg("snapshot", "snapshot", optional=True),), (), None, "history",
    ),
    CommandSpec(
        "diff", "Diff two snapshots.",
        "`diff` compares the current snapshot with its parent, `diff A` A with the current "
        "one, `diff A B` A with B.",
        lambda s, a: s.diff(a.get("a"), a.get("b")),
        (Arg("a", "snapshot", optional=True), Arg("b", "snapshot", optional=True)),
        (), "D", "history",
    ),
    CommandSpec(
        "goto", "Go to a snapshot; running from it starts a new branch.",
        "Moves to snapshot SNAP. Stepping or editing from an older snapshot forks a new "
        "branch; the old branch stays in `history`.",
        lambda s, a: s.goto(a["snapshot"]), (Arg("snapshot", "snapshot"),), ("g",), None,
        "history",
    ),
    CommandSpec(
        "graph", "Show the graph (breakpoints and pending nodes marked).",
        "Lists nodes (B: break before, A: break after, *: pending) and edges.",
        lambda s, a: s.graph(), (), (), "G", "session",
    ),
    CommandSpec(
        "info", "Show the engine and what it can do.",
        "Names the engine running the graph (native: sgdebug's runtime; langgraph: "
        "LangGraph itself), the graph and the thread, and each command this engine cannot "
        "run, with the reason.",
        lambda s, a: s.info(), (), (), None, "session",
    ),
    CommandSpec(
        "help", "List commands, or explain one.", "Shows help for COMMAND, or lists all.",
        _help, (Arg("command", "command", optional=True),), ("?",), "question_mark",
        "session",
    ),
    CommandSpec(
        "quit", "Quit the debugger.", "Ends the session.",
        lambda s, a: s.quit(), (), ("q", "exit"), "q", "session",
    ),
]  # fmt: skip
COMMANDS: tuple[CommandSpec, ...] = tuple(_SPECS)
"""Every command, in help order."""


def _words() -> dict[str, CommandSpec]:
    table: dict[str, CommandSpec] = {}
    for spec in COMMANDS:
        for word in spec.words:
            if word in table:
                raise RuntimeError(f"command word {word!r} is defined twice")
            table[word] = spec
    return table


_BY_WORD = _words()


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    """A command line read against the registry."""

    spec: CommandSpec
    args: Mapping[str, Any]
    line: str


def lookup(word: str) -> CommandSpec:
    """The command a name or alias names; :class:`ParseError` (with a suggestion) if none."""
    spec = _BY_WORD.get(word)
    if spec is not None:
        return spec
    close = difflib.get_close_matches(word, list(_BY_WORD), n=1)
    hint = f"; did you mean {_BY_WORD[close[0]].name!r}?" if close else ""
    raise ParseError(f"unknown command {word!r}{hint} (type `help` for the list)")


def parse(line: str) -> ParsedCommand:
    """Read one command line; :class:`ParseError` says what was expected."""
    text = line.strip()
    if not text or text.startswith("#"):
        raise ParseError("expected a command (type `help` for the list)")
    word, _, rest = text.partition(" ")
    spec = lookup(word)
    return ParsedCommand(spec, parse_args(spec.name, spec.args, rest), text)


def execute(session: Session, parsed: ParsedCommand) -> Outcome:
    """Run a parsed command; one not available now is refused with the reason."""
    spec = parsed.spec
    if reason := spec.unavailable_reason(session):
        return Outcome(spec.name, False, session.status, f"{spec.name}: {reason}")
    return spec.run(session, parsed.args)


def run_line(session: Session, line: str) -> Outcome | None:
    """Parse and execute a line; ``None`` for a blank line or a ``#`` comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    try:
        parsed = parse(text)
    except ParseError as exc:
        return Outcome("parse", False, session.status, str(exc))
    return execute(session, parsed)


def available(session: Session) -> tuple[CommandSpec, ...]:
    """The commands that can run now."""
    return tuple(spec for spec in COMMANDS if spec.available(session))


def complete(session: Session, line: str) -> list[str]:
    """Candidates for the word being typed at the end of ``line``."""
    words = split_words(line)
    current = "" if not line or line[-1].isspace() else (words.pop() if words else "")
    if not words:
        return sorted(w for w in _BY_WORD if w.startswith(current))
    spec = _BY_WORD.get(words[0])
    if spec is None:
        return []
    return [c for c in spec.complete(session, words[1:]) if c.startswith(current)]


def help_text(name: str | None = None, session: Session | None = None) -> str:
    """Every command's usage and summary, or one command's full help; with ``session``,
    what its engine cannot run is marked, with the reason."""
    caps = session.engine.capabilities if session is not None else None

    def missing(spec: CommandSpec) -> str | None:
        return caps.why_not(spec.name) if caps is not None else None

    if name is None:
        width = max(len(s.usage) for s in COMMANDS)
        lines = []
        for spec in COMMANDS:
            off = " (unavailable on this engine)" if missing(spec) else ""
            lines.append(f"  {spec.usage:<{width}}  {spec.summary}{off}")
        return "Commands:\n" + "\n".join(lines) + "\nType `help COMMAND` for details."
    spec = lookup(name)
    lines = [f"usage: {spec.usage}", spec.summary]
    if spec.aliases:
        lines.append("aliases: " + ", ".join(spec.aliases))
    if spec.key:
        lines.append(f"key: {spec.key}")
    if (reason := missing(spec)) is not None and caps is not None:
        lines.append(f"unavailable on the {caps.engine} engine: {reason}")
    lines.extend(["", spec.help])
    return "\n".join(lines)
