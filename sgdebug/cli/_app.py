"""The typer application: the commands, their options, and the hand-off to a front end."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from sgdebug import __version__
from sgdebug.cli._attach import (
    ApiKeyOption,
    AttachOption,
    AttachOptions,
    GraphOption,
    TimeoutOption,
    attach_front_end,
    refuse_with_attach,
    run_attached,
)
from sgdebug.cli._front_ends import open_demo, open_front_end
from sgdebug.cli._headless import read_script, run_headless
from sgdebug.cli._setup import LaunchOptions, fail, load
from sgdebug.cli._startup import resume_collector

if TYPE_CHECKING:
    from typer._click import Context

    from sgdebug.debugger.loading import LoadedTarget

__all__ = ["app"]

DEFAULT_COMMAND = "open"


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
                 "or @path to a JSON file (data only, never evaluated).", show_default=False),
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
                 "an existing file is reopened where it stopped. Opening one evaluates "
                 "nothing: without TARGET, sgdebug shows the program it names and asks "
                 "before importing it (refused without a terminal: give TARGET or --trust), "
                 "and its breakpoint conditions stay disabled until `enable N`.",
                 show_default=False),
]  # fmt: skip
TrustOption = Annotated[
    bool,
    typer.Option("--trust", help="Trust the --session file: import its program without "
                 "asking and keep its breakpoint conditions enabled (they are Python, run at "
                 "each stop). Only for files you wrote or trust."),
]  # fmt: skip


class EngineChoice(enum.StrEnum):
    """Which engine runs the graph (``--engine``)."""

    NATIVE = "native"
    LANGGRAPH = "langgraph"


EngineOption = Annotated[
    EngineChoice | None,
    typer.Option("--engine", "-e", help="What runs the graph: langgraph (LangGraph itself; "
                 "the default for a LangGraph program) or native (sgdebug's runtime: task "
                 "stepping, in-place mutation reports; the default for an sgdebug.runtime "
                 "program).", show_default=False),
]  # fmt: skip
ThreadOption = Annotated[
    str | None,
    typer.Option("--thread", metavar="ID", help="Open thread ID of the graph's own "
                 "checkpointer (its history, to browse, fork and re-run) instead of starting "
                 "a run.", show_default=False),
]  # fmt: skip
RecursionOption = Annotated[
    int | None,
    typer.Option("--recursion-limit", metavar="N", min=1, help="Maximum supersteps per run "
                 "(default 10007, as LangGraph 1.2).", show_default=False),
]  # fmt: skip


def _options(
    target: str | None,
    input: str | None,
    break_before: list[str] | None,
    break_after: list[str] | None,
    session: Path | None,
    recursion_limit: int | None,
    engine: EngineChoice | None = None,
    thread: str | None = None,
    trust: bool = False,
) -> LaunchOptions:
    return LaunchOptions(
        target, input, tuple(break_before or ()), tuple(break_after or ()), session,
        recursion_limit, engine.value if engine is not None else None, thread, trust,
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

    What runs Python: your program; the REPL's expressions, print and set; breakpoint and
    watch conditions; and the commands of a `run` script (like a pdb rc file: run only
    scripts you trust). What never does: opening a --session file (its program is imported
    only once you confirm it, give TARGET or pass --trust; its conditions stay disabled
    until `enable N`) and --input, which is JSON data.

    sgdebug TARGET opens the debugger on TARGET, a graph named as package.module:attr or
    path/to/file.py:attr, e.g. sgdebug my_app.graphs:graph.

    Exit status: 0 when the run ended normally (run: the script ran to its end); 1 when
    the graph raised; 2 for usage and loading errors; 3 (run) when the script ends with
    the run stopped at a breakpoint or waiting at an interrupt(); 130 (run) after Ctrl-C;
    143 or 129 (the TUI) after SIGTERM or SIGHUP.
    """


@app.command(DEFAULT_COMMAND, short_help="Open the debugger (TUI) on TARGET (the default).")
def open_(
    target: TargetArgument = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
    engine: EngineOption = None,
    thread: ThreadOption = None,
    trust: TrustOption = False,
) -> None:
    """Open the debugger (TUI) on TARGET; also what `sgdebug TARGET` does."""
    options = _options(
        target, input, break_before, break_after, session, recursion_limit, engine, thread, trust
    )
    raise typer.Exit(open_front_end("tui", options))


@app.command(short_help="Open the REPL on TARGET.")
def repl(
    target: TargetArgument = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
    engine: EngineOption = None,
    thread: ThreadOption = None,
    trust: TrustOption = False,
) -> None:
    """Open the REPL on TARGET: pdb-like commands and Python expressions."""
    options = _options(
        target, input, break_before, break_after, session, recursion_limit, engine, thread, trust
    )
    raise typer.Exit(open_front_end("repl", options))


@app.command(short_help="Run debugger commands headless (scripts, CI).")
def run(
    target: TargetArgument = None,
    script: Annotated[
        str | None,
        typer.Option(
            "--script", "-s", metavar="FILE|-", show_default=False,
            help="Debugger commands, one per line (# starts a comment); - reads stdin "
            "(the default when stdin is not a terminal). Like a pdb rc file, a script runs "
            "Python (print, set, conditions): run only scripts you trust.",
        ),
    ] = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
    engine: EngineOption = None,
    thread: ThreadOption = None,
    trust: TrustOption = False,
    attach: AttachOption = None,
    graph: GraphOption = None,
    api_key: ApiKeyOption = None,
    extra: Annotated[list[str] | None, typer.Argument(hidden=True, show_default=False)] = None,
) -> None:  # fmt: skip
    """Run debugger commands headless and print what they show (for scripts and CI).

    Exit status: 0 when the script ran to its end (the run finished, or stands where the
    script's steps left it); 1 when the graph raised; 2 for usage and loading errors, a
    malformed script (nothing runs) or a command the session refused (the script stops
    there); 3 when the script ends with the run stopped at a breakpoint or waiting at an
    interrupt() for its answer; 130 after Ctrl-C, which interrupts the running node and
    ends the script.
    """
    if extra:  # `sgdebug run app.py:graph steps.txt`, as pdb would take it
        fail(f"unexpected argument {extra[0]!r}: the script is given with -s "
             f"(sgdebug run {target or 'TARGET'} -s {extra[0]})")  # fmt: skip
    lines = read_script(script)
    if attach is not None:
        refuse_with_attach(target, session, engine, recursion_limit, trust)
        opts = AttachOptions(attach, graph, thread, input, api_key, tuple(break_before or ()),
                             tuple(break_after or ()))  # fmt: skip
        resume_collector()
        raise typer.Exit(run_attached(opts, lines))
    if graph is not None or api_key is not None:
        fail("--graph and --api-key go with --attach URL (a LangGraph server)")
    options = _options(
        target, input, break_before, break_after, session, recursion_limit, engine, thread, trust
    )
    resume_collector()
    raise typer.Exit(run_headless(options, lines))


# -- a LangGraph server ---------------------------------------------------------------------


@app.command("attach", short_help="Debug a thread of a graph on a LangGraph server.")
def attach_(
    url: Annotated[str, typer.Argument(metavar="URL", show_default=False,
                                       help="The server, e.g. http://127.0.0.1:2024.")],
    graph: GraphOption = None,
    thread: Annotated[str | None, typer.Option("--thread", metavar="ID", help="The thread "
                      "to open (default: choose from the graph's threads).",
                      show_default=False)] = None,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    api_key: ApiKeyOption = None,
    timeout: TimeoutOption = None,
    repl: Annotated[bool, typer.Option("--repl", help="Open the REPL instead of the TUI.")]
    = False,
) -> None:  # fmt: skip
    """Debug a thread of a graph on a LangGraph server: its state, history, steps and edits.

    With --thread ID it opens that thread; with --input JSON it starts a new run on a new
    thread; with neither it lists the graph's threads to choose from.
    """
    options = AttachOptions(url, graph, thread, input, api_key, tuple(break_before or ()),
                            tuple(break_after or ()), timeout)  # fmt: skip
    attach_front_end("repl" if repl else "tui", options)


class GraphFormat(enum.StrEnum):
    """How ``sgdebug graph`` draws."""

    TEXT = "text"
    MERMAID = "mermaid"


@app.command("graph", short_help="Draw the graph as text or Mermaid.")
def graph_(
    target: Annotated[str, typer.Argument(metavar="TARGET", show_default=False,
                                          help="The graph: package.module:attr or "
                                          "path/to/file.py:attr.")],
    format: Annotated[GraphFormat, typer.Option("--format", "-f", help="text: boxes and "
                      "arrows; mermaid: a Mermaid flowchart, as LangGraph draws it.")]
    = GraphFormat.TEXT,
) -> None:  # fmt: skip
    """Draw the graph: boxes and arrows, or Mermaid."""
    loaded = load(target)
    if format is GraphFormat.MERMAID:
        typer.echo(loaded.graph.get_graph().draw_mermaid(), nl=False)
    else:
        typer.echo(_draw_text(loaded))


@app.command(short_help="Open the debugger on a bundled sample graph.")
def demo(
    name: Annotated[str | None, typer.Argument(metavar="[NAME]", show_default=False,
                                               help="A sample graph (see --list).")] = None,
    list_: Annotated[bool, typer.Option("--list", "-l", help="List the samples.")] = False,
    input: InputOption = None,
    break_before: BreakBeforeOption = None,
    break_after: BreakAfterOption = None,
    session: SessionOption = None,
    recursion_limit: RecursionOption = None,
    engine: EngineOption = None,
    trust: TrustOption = False,
) -> None:  # fmt: skip
    """Open the debugger on a bundled sample graph (default: linear), with its example input.

    With --engine langgraph the sample is built with LangGraph's own classes and run by
    LangGraph.
    """
    if list_:
        from sgdebug import sample_graphs

        for sample, module in sample_graphs.SAMPLES.items():
            doc = (sample_graphs.load(sample).__doc__ or "").strip().splitlines()
            typer.echo(f"{sample:<14}{doc[0].replace('``', '') if doc else module}")
        return
    options = _options(
        None, input, break_before, break_after, session, recursion_limit, trust=trust
    )
    raise typer.Exit(open_demo(name, engine.value if engine is not None else None, options))


# -- graph text ----------------------------------------------------------------------------


def _draw_text(loaded: LoadedTarget) -> str:
    """The graph drawn with box-drawing characters, as wide as the terminal allows."""
    import shutil

    from sgdebug.inspect.drawing import draw, legend_for
    from sgdebug.inspect.topology import topology

    graph = loaded.graph
    width = shutil.get_terminal_size((100, 40)).columns
    drawing = draw(topology(graph), width=width, height=10_000)
    lines = [drawing.text]
    legend = legend_for(drawing)
    if legend:
        lines += ["", "   ".join(f"{symbol} {meaning}" for symbol, meaning in legend)]
    for kind, nodes in (("before", graph.interrupt_before_nodes),
                        ("after", graph.interrupt_after_nodes)):  # fmt: skip
        if nodes:
            shown = "every node" if nodes == "*" else ", ".join(nodes)
            lines.append(f"compiled with interrupt_{kind}: {shown}")
    return "\n".join(lines)
