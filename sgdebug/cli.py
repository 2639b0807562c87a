"""The ``sgdebug`` command line.

::

    sgdebug TARGET [OPTIONS]                 open the debugger (TUI) on a graph
    sgdebug repl TARGET [OPTIONS]            the REPL
    sgdebug run TARGET --script FILE|- ...   debugger commands from a file or stdin, headless
    sgdebug graph TARGET [--format text|mermaid]
    sgdebug demo [NAME] [--list]             the debugger on a bundled sample graph

``TARGET`` is ``package.module:attr`` or ``path/to/file.py:attr``. ``sgdebug TARGET`` is
the ``open`` command: a first argument that is not a command name is a target (a target
always has a colon, a command name never does).

Exit status: 0 when the run ended normally, 1 when the graph raised, 2 for usage and
loading errors.

Front ends plug in through their package: ``sgdebug.tui`` (and ``sgdebug.repl``) defines
``launch(session) -> int``, given the ready :class:`~sgdebug.debugger.Session`, returning
the exit status. Until a package defines it, the command says the front end is not
available. This module imports typer and the package root only: everything else is
imported inside the commands, so ``sgdebug --help`` stays instant.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, NoReturn

import typer
from typer.core import TyperGroup

from sgdebug import __version__

if TYPE_CHECKING:
    from collections.abc import Callable

    from typer._click import Context

    from sgdebug.debugger import Outcome, ParsedCommand, Session
    from sgdebug.debugger.loading import LoadedTarget
    from sgdebug.debugger.session_file import SessionFile, SessionRecord

__all__ = ["EXIT_GRAPH_ERROR", "EXIT_OK", "EXIT_USAGE", "LaunchOptions", "app", "main"]

EXIT_OK = 0
EXIT_GRAPH_ERROR = 1
EXIT_USAGE = 2
DEFAULT_COMMAND = "open"
FrontEnd = Literal["tui", "repl"]
_FRONT_END_NAMES: dict[FrontEnd, str] = {"tui": "TUI", "repl": "REPL"}


class DefaultCommandGroup(TyperGroup):
    """A group where ``sgdebug TARGET ...`` means ``sgdebug open TARGET ...``."""

    def __init__(self, **attrs: Any) -> None:
        attrs["subcommand_metavar"] = "TARGET | COMMAND [ARGS]..."
        super().__init__(**attrs)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        own = {
            opt for param in self.get_params(ctx) for opt in (*param.opts, *param.secondary_opts)
        }
        if args and args[0] not in self.commands and args[0] not in own:
            first = args[0]
            if ":" not in first and not first.startswith("-"):
                import difflib

                close = difflib.get_close_matches(first, list(self.commands), n=1)
                if close:  # `sgdebug rnu app:graph`: a typo, not a target
                    ctx.fail(f"No such command {first!r}. Did you mean {close[0]!r}?")
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)


app = typer.Typer(
    name="sgdebug",
    cls=DefaultCommandGroup,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


# -- options shared by the commands --------------------------------------------------------

TargetArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="TARGET",
        help="The graph: package.module:attr or path/to/file.py:attr (a compiled graph, a "
        "StateGraph, or a function returning one). Optional with an existing --session.",
        show_default=False,
    ),
]
InputOption = Annotated[
    str | None,
    typer.Option("--input", "-i", metavar="JSON|@FILE", help="The run's input: JSON text, "
                 "or @path to a JSON file.", show_default=False),
]  # fmt: skip
BreakBeforeOption = Annotated[
    list[str] | None,
    typer.Option("--break-before", "-b", metavar="NODE", help="Pause before NODE runs "
                 "(repeatable).", show_default=False),
]  # fmt: skip
BreakAfterOption = Annotated[
    list[str] | None,
    typer.Option("--break-after", "-a", metavar="NODE", help="Pause after NODE ran "
                 "(repeatable).", show_default=False),
]  # fmt: skip
SessionOption = Annotated[
    Path | None,
    typer.Option("--session", metavar="FILE", help="Keep the session in this SQLite file; "
                 "an existing file is reopened where it stopped.", show_default=False),
]  # fmt: skip
RecursionOption = Annotated[
    int | None,
    typer.Option("--recursion-limit", metavar="N", min=1, help="Maximum supersteps per run "
                 "(default 25, as LangGraph).", show_default=False),
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class LaunchOptions:
    """The command-line options every debugging command takes."""

    target: str | None
    """TARGET as given (``None``: take it from the session file)."""
    input: str | None
    """``--input`` as given: JSON text or ``@file``."""
    break_before: tuple[str, ...] = ()
    """``--break-before`` nodes."""
    break_after: tuple[str, ...] = ()
    """``--break-after`` nodes."""
    session: Path | None = None
    """``--session`` file."""
    recursion_limit: int | None = None
    """``--recursion-limit``."""


@dataclass(frozen=True, slots=True)
class Prepared:
    """Everything checked and loaded, before a session is created."""

    target: LoadedTarget
    input: Any
    """The input value (``None`` when none was given)."""
    options: LaunchOptions
    session_file: SessionFile | None
    """An existing session file being reopened (a new one is created later)."""
    record: SessionRecord | None
    """What the reopened session file holds."""


def _options(
    target: str | None,
    input: str | None,
    break_before: list[str] | None,
    break_after: list[str] | None,
    session: Path | None,
    recursion_limit: int | None,
) -> LaunchOptions:
    return LaunchOptions(
        target, input, tuple(break_before or ()), tuple(break_after or ()), session,
        recursion_limit,
    )  # fmt: skip


# -- the commands --------------------------------------------------------------------------


def _print_version(value: bool) -> None:
    """Print the version and exit, when ``--version`` is given."""
    if value:
        typer.echo(f"sgdebug {__version__}")
        raise typer.Exit()


@app.callback(no_args_is_help=True)
def sgdebug(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Show the version and exit.",
        ),
    ] = False,
) -> None:
    """A debugger, REPL and fast LangGraph-compatible runtime for StateGraph programs.

    sgdebug TARGET opens the debugger on TARGET, a graph named as package.module:attr or
    path/to/file.py:attr, e.g. sgdebug my_app.graphs:graph. Exit status: 0 when the run
    ended normally, 1 when the graph raised, 2 for usage and loading errors.
    """


@app.command(DEFAULT_COMMAND)
def open_(
    target: TargetArgument = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
) -> None:
    """Open the debugger (TUI) on TARGET; also what `sgdebug TARGET` does."""
    options = _options(target, input, break_before, break_after, session, recursion_limit)
    _launch("tui", _prepare(options))


@app.command()
def repl(
    target: TargetArgument = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
) -> None:
    """Open the REPL on TARGET: pdb-like commands and Python expressions."""
    options = _options(target, input, break_before, break_after, session, recursion_limit)
    _launch("repl", _prepare(options))


@app.command()
def run(
    target: TargetArgument = None,
    script: Annotated[
        str | None,
        typer.Option(
            "--script", "-s", metavar="FILE|-", show_default=False,
            help="Debugger commands, one per line (# starts a comment); - reads stdin "
            "(the default when stdin is not a terminal).",
        ),
    ] = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
) -> None:  # fmt: skip
    """Run debugger commands headless and print what they show (for scripts and CI)."""
    lines = _read_script(script)
    options = _options(target, input, break_before, break_after, session, recursion_limit)
    raise typer.Exit(_run_script(_prepare(options), lines))


class GraphFormat(enum.StrEnum):
    """How ``sgdebug graph`` draws."""

    TEXT = "text"
    MERMAID = "mermaid"


@app.command("graph")
def graph_(
    target: Annotated[str, typer.Argument(metavar="TARGET", show_default=False,
                                          help="The graph: package.module:attr or "
                                          "path/to/file.py:attr.")],
    format: Annotated[GraphFormat, typer.Option("--format", "-f", help="text: boxes and "
                      "arrows; mermaid: a Mermaid flowchart, as LangGraph draws it.")]
    = GraphFormat.TEXT,
) -> None:  # fmt: skip
    """Draw the graph: boxes and arrows, or Mermaid."""
    loaded = _load(target)
    if format is GraphFormat.MERMAID:
        typer.echo(loaded.graph.get_graph().draw_mermaid(), nl=False)
    else:
        typer.echo(_draw_text(loaded))


@app.command()
def demo(
    name: Annotated[str | None, typer.Argument(metavar="[NAME]", show_default=False,
                                               help="A sample graph (see --list).")] = None,
    list_: Annotated[bool, typer.Option("--list", "-l", help="List the samples.")] = False,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
) -> None:  # fmt: skip
    """Open the debugger on a bundled sample graph (default: linear), with its example input."""
    from sgdebug import sample_graphs

    if list_:
        for sample, module in sample_graphs.SAMPLES.items():
            doc = (sample_graphs.load(sample).__doc__ or "").strip().splitlines()
            typer.echo(f"{sample:<14}{doc[0] if doc else module}")
        return
    name = name or next(iter(sample_graphs.SAMPLES))
    if name not in sample_graphs.SAMPLES:
        _fail(f"no sample graph {name!r}; samples: {', '.join(sample_graphs.SAMPLES)}")
    target = f"{sample_graphs.SAMPLES[name]}:graph"
    options = _options(target, input, break_before, break_after, session, recursion_limit)
    example = sample_graphs.load(name).EXAMPLE_INPUT
    _launch("tui", _prepare(options, default_input=example))


def main() -> None:
    """Run the command line (the ``sgdebug`` console script)."""
    app(prog_name="sgdebug")


# -- preparing: load, check, reopen --------------------------------------------------------


def _fail(message: str) -> NoReturn:
    """Print ``message`` as a usage/loading error and exit with status 2."""
    typer.echo(f"Error: {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def _load(spec: str, cwd: str | None = None) -> LoadedTarget:
    from sgdebug.debugger.loading import TargetError, load_target

    try:
        return load_target(spec, cwd=cwd)
    except TargetError as exc:
        _fail(str(exc))


def _prepare(options: LaunchOptions, *, default_input: Any = None) -> Prepared:
    """Load the target, read the input, check breakpoints, reopen an existing session."""
    session_file, record = _reopen(options.session)
    if options.target is not None:
        target = _load(options.target)
        if record is not None and record.target != target.spec:
            _fail(
                f"the session in {options.session} debugs {record.target}, not "
                f"{target.spec}; leave out TARGET to reopen it, or choose another --session"
            )
    elif record is not None:
        target = _load(record.target, record.cwd)
    elif options.session is not None:
        _fail(f"missing TARGET: {options.session} does not exist yet, so it names no graph")
    else:
        _fail("missing TARGET (package.module:attr or path/to/file.py:attr)")
    if record is not None and options.input is not None:
        _fail(
            f"the session in {options.session} already has its input; leave out --input to "
            f"continue it, or use the `restart INPUT` command to run with another"
        )
    if session_file is not None:
        record = session_file.record  # again, now that the program's classes are imported
    if record is not None:
        value = record.input
    else:
        value = default_input if options.input is None else _parse_input(options.input)
    nodes = sorted(target.graph.builder.nodes)
    for flag, names in (("--break-before", options.break_before),
                        ("--break-after", options.break_after)):  # fmt: skip
        for node in names:
            if node not in nodes:
                _fail(f"{flag}: no node {node!r} in {target.label}; nodes: {', '.join(nodes)}")
    return Prepared(target, value, options, session_file, record)


def _reopen(path: Path | None) -> tuple[SessionFile | None, SessionRecord | None]:
    """The existing session file at ``path`` and its record (new files are created later)."""
    if path is None or not path.exists():
        return None, None
    from sgdebug.debugger.session_file import SessionFile, SessionFileError

    try:
        session_file = SessionFile.open(path)
    except SessionFileError as exc:
        _fail(str(exc))
    return session_file, session_file.record


def _parse_input(text: str) -> Any:
    """``--input``: JSON text or ``@file``; errors point at the line and column."""
    import json

    where = "--input"
    if text.startswith("@"):
        path = Path(text[1:]).expanduser()
        where = f"--input {text}"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            _fail(f"{where}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        line = text.splitlines()[exc.lineno - 1] if text.strip() else ""
        pointer = f"\n  {line}\n  {' ' * (exc.colno - 1)}^" if line else ""
        _fail(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno}, "
              f"column {exc.colno}{pointer}")  # fmt: skip


def _read_script(script: str | None) -> list[str]:
    """The script's lines (from a file, or stdin for ``-`` or when no file is given)."""
    import sys

    if script is None and sys.stdin.isatty():
        _fail("give the commands with --script FILE, or pipe them in (--script -)")
    if script is None or script == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(script).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            _fail(f"--script: cannot read {script}: {getattr(exc, 'strerror', None) or exc}")
    return text.splitlines()


# -- front ends ----------------------------------------------------------------------------


def _launch(front_end: FrontEnd, prepared: Prepared) -> NoReturn:
    """Hand a ready session to the front end, or say it is not available."""
    import importlib

    launch = getattr(importlib.import_module(f"sgdebug.{front_end}"), "launch", None)
    if launch is None:
        name = _FRONT_END_NAMES[front_end]
        _fail(
            f"the {name} is not available in this version of sgdebug ({__version__}). "
            f"Run debugger commands headless instead: "
            f"sgdebug run {prepared.target.label} --script FILE (or --script - to read stdin)"
        )
    opened = _open_session(prepared)
    try:
        if front_end == "tui":
            # The TUI suspends into the REPL with `!`; it may not import the REPL itself.
            from sgdebug.repl import run_repl

            code = launch(opened.session, repl=run_repl)
        else:
            code = launch(opened.session)
    finally:
        if opened.store is not None:
            opened.store.close()
    raise typer.Exit(code)


# -- graph text ----------------------------------------------------------------------------


def _draw_text(loaded: LoadedTarget) -> str:
    """The graph drawn with box-drawing characters, as wide as the terminal allows."""
    import shutil

    from sgdebug.inspect.drawing import draw
    from sgdebug.inspect.topology import topology

    graph = loaded.graph
    width = shutil.get_terminal_size((100, 40)).columns
    lines = [draw(topology(graph), width=width, height=10_000).text]
    for kind, nodes in (("before", graph.interrupt_before_nodes),
                        ("after", graph.interrupt_after_nodes)):  # fmt: skip
        if nodes:
            shown = "every node" if nodes == "*" else ", ".join(nodes)
            lines.append(f"compiled with interrupt_{kind}: {shown}")
    return "\n".join(lines)


# -- sessions and headless runs ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opened:
    """A session ready for a front end or a script."""

    session: Session
    started: Outcome
    """What starting (or reopening) the run did."""
    store: SessionFile | None
    """The session file, if any (close it when done)."""


def _open_session(prepared: Prepared) -> Opened:
    """A started session for ``prepared`` (its session file created or reopened).

    A reopened session stands where it stopped (its saved thread, breakpoints and input);
    a new one starts a run on the input. Breakpoints from the command line are added.
    """
    import os

    from sgdebug.debugger import Breakpoint, Session, SessionOptions, Target
    from sgdebug.debugger.session_file import SessionFile, SessionFileError, SessionRecord

    options, record, loaded = prepared.options, prepared.record, prepared.target
    store = prepared.session_file
    limit = options.recursion_limit or (record.recursion_limit if record else None)
    try:
        if store is None and options.session is not None:
            store = SessionFile.open(options.session)
        if store is not None and record is None:
            store.save(SessionRecord(loaded.spec, os.getcwd(), prepared.input, (), None, limit))
        elif store is not None and options.recursion_limit is not None:
            store.save_recursion_limit(limit)
    except SessionFileError as exc:
        _fail(str(exc))
    session = Session(
        Target(loaded.graph, loaded.namespace, loaded.label),
        input=prepared.input,
        saver=store.saver if store is not None else None,
        store=store,
        breakpoints=[Breakpoint.from_dict(b) for b in record.breakpoints] if record else None,
        options=SessionOptions(recursion_limit=limit),
    )
    for node in options.break_before:
        session.break_("before", node)
    for node in options.break_after:
        session.break_("after", node)
    if store is not None:
        store.save_breakpoints([b.to_dict() for b in session.breakpoints])
    if record is not None and record.thread_id is not None:
        return Opened(session, session.attach(record.thread_id, input=record.input), store)
    return Opened(session, session.restart(prepared.input), store)


def _run_script(prepared: Prepared, lines: list[str]) -> int:
    """Run the script's commands on a started session; print each outcome; the exit status.

    Every line is parsed first: a malformed one stops everything before anything runs. A
    command the session refuses (not available now, a bad expression) ends the script.
    """
    from sgdebug.debugger import ParseError, parse

    commands, errors = [], []
    for number, line in enumerate(lines, 1):
        if line.strip() and not line.strip().startswith("#"):
            try:
                commands.append(parse(line))
            except ParseError as exc:
                errors.append(f"line {number}: {line.strip()}\n  {exc}")
    if errors:
        _fail("the script has errors; nothing was run:\n" + "\n".join(errors))
    opened = _open_session(prepared)
    try:
        return _execute(opened, commands)
    finally:
        if opened.store is not None:
            opened.store.close()


def _execute(opened: Opened, commands: list[ParsedCommand]) -> int:
    from sgdebug.debugger import execute

    show = _printer()
    outcome = opened.started
    show(None, outcome)
    if not outcome.ok:
        _fail(f"cannot start the run: {outcome.message}")
    status = outcome.status
    for command in commands:
        outcome = execute(opened.session, command)
        show(command.line, outcome)
        if command.spec.name == "quit":
            break
        if outcome.status != "aborted" or status not in _GRAPH_RAISED:
            status = outcome.status  # aborting a run that raised still counts as raised
        if not outcome.ok:
            if status in _GRAPH_RAISED:
                return EXIT_GRAPH_ERROR
            _fail(f"`{command.line}` was refused; the script stopped there")
    return EXIT_GRAPH_ERROR if status in _GRAPH_RAISED else EXIT_OK


_GRAPH_RAISED = frozenset({"error", "failed"})


def _printer() -> Callable[[str | None, Outcome], None]:
    """Prints a command and its outcome: with rich on a terminal, plain text otherwise."""
    from rich.console import Console
    from rich.text import Text

    from sgdebug.debugger import format_outcome

    console = Console(highlight=False)

    def show(line: str | None, outcome: Outcome) -> None:
        if line is not None:
            console.print(Text(f"(sgdebug) {line}", style="bold cyan"), soft_wrap=True)
        stop = outcome.stop.kind if outcome.stop is not None else None
        style = "red" if not outcome.ok or stop in ("exception", "failed") else ""
        style = "yellow" if stop in ("breakpoint", "interrupt") else style
        text = format_outcome(outcome)
        if text:
            console.print(Text(text, style=style), soft_wrap=True)

    return show
