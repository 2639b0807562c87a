"""``sgdebug attach URL`` and ``sgdebug run --attach URL``: debug a graph on a LangGraph server.

The server is reached through ``langgraph-sdk`` (``pip install 'sgdebug[server]'``). With
``--thread`` the session opens that thread; with ``--input`` it starts a new run on a new
thread; with neither it lists the graph's threads and opens the one chosen (on a terminal)
or says how to choose one. The API key comes from ``--api-key`` or the environment and is
never printed or stored (there is no session file: the server keeps the history).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from sgdebug.cli._setup import Opened, fail

if TYPE_CHECKING:
    from sgdebug.debugger import Session

__all__ = [
    "ApiKeyOption",
    "AttachOption",
    "AttachOptions",
    "GraphOption",
    "TimeoutOption",
    "attach_front_end",
    "open_attached",
    "refuse_with_attach",
    "run_attached",
]

AttachOption = Annotated[
    str | None,
    typer.Option("--attach", metavar="URL", help="Debug a graph on a LangGraph server "
                 "(langgraph dev, the Agent Server) instead of TARGET; needs "
                 "pip install 'sgdebug[server]'.", show_default=False),
]  # fmt: skip
GraphOption = Annotated[
    str | None,
    typer.Option("--graph", "-g", metavar="NAME", help="The server's graph (its graph id or "
                 "an assistant id); needed when the server serves several.",
                 show_default=False),
]  # fmt: skip
ApiKeyOption = Annotated[
    str | None,
    typer.Option("--api-key", metavar="KEY", help="The server's API key (default: "
                 "LANGGRAPH_API_KEY, then LANGSMITH_API_KEY); never printed or stored.",
                 show_default=False),
]  # fmt: skip
TimeoutOption = Annotated[
    float | None,
    typer.Option("--timeout", metavar="SECONDS", min=0.1, help="How long a call to the "
                 "server may take (default 30).", show_default=False),
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class AttachOptions:
    """The command-line options of a session attached to a server."""

    url: str
    graph: str | None = None
    """``--graph``: a graph id or an assistant id (``None``: the server's only graph)."""
    thread: str | None = None
    """``--thread``: the thread to open."""
    input: str | None = None
    """``--input`` as given (JSON text or ``@file``): a new run on a new thread."""
    api_key: str | None = None
    """``--api-key`` (else ``LANGGRAPH_API_KEY`` / ``LANGSMITH_API_KEY``)."""
    break_before: tuple[str, ...] = ()
    break_after: tuple[str, ...] = ()
    timeout: float | None = None
    """``--timeout``: seconds a call to the server may take."""


def _server(options: AttachOptions) -> Any:
    from sgdebug.debugger.engines import Server
    from sgdebug.debugger.engines._remote_client import DEFAULT_TIMEOUT, api_key_from

    url = options.url.rstrip("/")
    if not url.startswith(("http://", "https://")):
        fail(f"{options.url!r} is not a server URL: give http://HOST:PORT (langgraph dev "
             "serves http://127.0.0.1:2024)")  # fmt: skip
    timeout = options.timeout or DEFAULT_TIMEOUT
    return Server(url, options.graph, api_key_from(options.api_key), timeout)


def _on_a_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _chosen_graph(server: Any) -> Any:
    """``server`` with the graph the user picks, when it serves several and none was named."""
    from dataclasses import replace

    from sgdebug.debugger.engines._remote_client import Link, ServerFault

    try:
        found = Link(server).call("listing the server's graphs",
                                  lambda c: c.assistants.search(limit=100))  # fmt: skip
    except ServerFault as exc:
        fail(f"cannot attach: {exc}")
    graphs = sorted({str(a.get("graph_id")) for a in found or ()})
    if len(graphs) < 2:
        return server
    listing = "\n".join(f"  {i}. {g}" for i, g in enumerate(graphs, 1))
    typer.echo(f"Graphs on {server.url}:\n{listing}")
    picked: int = typer.prompt("Debug graph", default=1, type=int)
    if not 1 <= picked <= len(graphs):
        fail(f"no graph number {picked} (1 to {len(graphs)})")
    return replace(server, graph=graphs[picked - 1])


def _session(options: AttachOptions, *, choose: bool = False) -> Session:
    """A session on the server's graph (errors: :func:`fail`, never the key); ``choose``:
    ask which graph on a terminal when the server serves several and none was named."""
    from sgdebug.debugger import Session, Target
    from sgdebug.debugger.engine import EngineRefused

    server = _server(options)
    if choose and server.graph is None and _on_a_terminal():
        server = _chosen_graph(server)
    try:
        session = Session(Target(server, {}, server.label))
    except EngineRefused as exc:
        fail(f"cannot attach: {exc}")
    nodes = session.node_names
    wanted = [("before", n) for n in options.break_before]
    wanted += [("after", n) for n in options.break_after]
    for kind, node in wanted:
        if node not in nodes:
            fail(f"--break-{kind}: no node {node!r} in {server.label}; nodes: {', '.join(nodes)}")
        session.break_("before" if kind == "before" else "after", node)
    return session


def open_attached(options: AttachOptions, *, choose: bool = False) -> Opened:
    """A session attached to the server, standing where the options say; ``choose``: ask
    which graph and which thread on a terminal when they are not given."""
    from sgdebug.cli._setup import _parse_input

    if options.thread is not None and options.input is not None:
        fail("give --thread (open a thread) or --input (a new run on a new thread), not both")
    session = _session(options, choose=choose)
    if options.input is not None:
        started = session.restart(_parse_input(options.input))
        if not started.ok:
            fail(f"cannot start a run on the server: {started.message}")
        return Opened(session, started, None)
    thread = options.thread or _chosen_thread(session, choose=choose)
    from sgdebug.debugger.engine import EngineRefused

    try:
        attached = session.attach(thread)
    except EngineRefused as exc:
        fail(f"--thread {thread}: {exc}")
    if not attached.ok:
        fail(f"--thread {thread}: {attached.message}")
    return Opened(session, attached, None)


def _chosen_thread(session: Session, *, choose: bool) -> str:
    """The thread to open when none was given: the user's pick of the graph's threads."""
    rows: tuple[tuple[str, str, str], ...] = session.engine.reads.thread_rows()  # type: ignore[attr-defined]
    fault = session.view().fault
    if fault:
        fail(f"cannot list threads: {fault}")
    if not rows:
        fail(f"{session.label} has no thread yet: start a run with --input JSON")
    threads = [row[0] for row in rows]
    listing = "\n".join(
        f"  {i}. {thread}  {status:<11} updated {updated[:19].replace('T', ' ')}"
        for i, (thread, status, updated) in enumerate(rows, 1)
    )
    if not (choose and _on_a_terminal()):
        fail(f"which thread? Give --thread ID (or --input JSON for a new run); threads of "
             f"{session.label}, newest first:\n{listing}")  # fmt: skip
    typer.echo(f"Threads of {session.label}, newest first:\n{listing}")
    picked: int = typer.prompt("Open thread", default=1, type=int)
    if not 1 <= picked <= len(threads):
        fail(f"no thread number {picked} (1 to {len(threads)})")
    return threads[picked - 1]


def attach_front_end(front_end: str, options: AttachOptions) -> NoReturn:
    """Open the TUI (or the REPL) on a session attached to the server."""
    import importlib

    from sgdebug.cli._startup import resume_collector

    opened = open_attached(options, choose=True)
    launch = importlib.import_module(f"sgdebug.{front_end}").launch
    if front_end == "tui":
        from sgdebug.repl import run_repl

        code = launch(opened.session, repl=run_repl, ready=resume_collector)
    else:
        resume_collector()
        code = launch(opened.session)
    raise typer.Exit(code)


def run_attached(options: AttachOptions, lines: list[str]) -> int:
    """``run --attach``: the script's commands on a session attached to the server."""
    from sgdebug.cli._headless import ctrl_c_listener, execute_script, parse_script

    commands = parse_script(lines)
    with ctrl_c_listener() as ctrl_c:
        try:
            return execute_script(open_attached(options), commands, ctrl_c)
        except KeyboardInterrupt:
            print("Interrupted (Ctrl-C): the script stopped there.", file=sys.stderr)
            return 130


def refuse_with_attach(
    target: str | None, session: Path | None, engine: Any, limit: int | None, trust: bool
) -> None:
    """The options ``run --attach`` does not take (the server holds program and history)."""
    given = [name for name, value in (("TARGET", target), ("--session", session),
             ("--engine", engine), ("--recursion-limit", limit), ("--trust", trust or None))
             if value is not None]  # fmt: skip
    if given:
        fail(f"{', '.join(given)}: not available with --attach (the server runs the graph "
             "and keeps its history)")  # fmt: skip
