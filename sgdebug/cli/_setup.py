"""From command-line options to a started session: load the target, read the input, check
breakpoints, reopen or create the session file.

Errors here are the user's (a bad target, input or session file): :func:`fail` prints them
and exits with status 2.

A session file is untrusted input: its target is imported only with the user's consent
(TARGET given, ``--trust``, or a yes on the terminal: :mod:`sgdebug.cli._consent`), and
its breakpoint conditions stay disabled until enabled or ``--trust``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from sgdebug.debugger import Outcome, Session
    from sgdebug.debugger.loading import LoadedTarget
    from sgdebug.debugger.session_file import SessionFile, SessionRecord

__all__ = [
    "EXIT_GRAPH_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STOPPED",
    "EXIT_USAGE",
    "LaunchOptions",
    "Opened",
    "Prepared",
    "fail",
    "load",
    "open_session",
    "prepare",
    "say",
]

EXIT_OK = 0
"""The run ended normally (headless: the script ran to its end)."""
EXIT_GRAPH_ERROR = 1
"""The graph raised (the run stands on an exception, or failed)."""
EXIT_USAGE = 2
"""A usage or loading error (headless: also a refused command)."""
EXIT_STOPPED = 3
"""Headless: the script ended with the run stopped at a breakpoint or waiting at an
``interrupt()`` for its answer."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (SIGINT) ended the script (128 + SIGINT, as shells report it)."""


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
    engine: str | None = None
    """``--engine`` (``native`` or ``langgraph``; ``None``: the graph's own)."""
    thread: str | None = None
    """``--thread``: a thread of the graph's own checkpointer to open."""
    trust: bool = False
    """``--trust``: trust the session file's target and its breakpoint conditions."""


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


@dataclass(frozen=True, slots=True)
class Opened:
    """A session ready for a front end or a script."""

    session: Session
    started: Outcome
    """What starting (or reopening) the run did."""
    store: SessionFile | None
    """The session file, if any (close it when done)."""


def fail(message: str) -> NoReturn:
    """Print ``message`` as a usage/loading error and exit with status 2."""
    say(f"Error: {message}")
    raise SystemExit(EXIT_USAGE)


def say(message: str, *, end: str = "\n") -> None:
    """Print ``message`` on stderr at once (errors, notes, questions: not the output)."""
    sys.stderr.write(f"{message}{end}")
    sys.stderr.flush()


def load(
    spec: str, cwd: str | None = None, *, engine: str | None = None, from_file: bool = False
) -> LoadedTarget:
    """Load TARGET (errors: :func:`fail`); ``from_file``: a session file's target, refused
    unless it is a graph, a builder or a function of the user's own module.

    With ``engine="native"``, a program written with LangGraph is loaded a second time,
    under the ``langgraph`` import alias, so that it runs on ``sgdebug.runtime``: the user's
    modules the first load imported are forgotten first, so they run again under the alias.
    """
    from sgdebug.debugger.engines import is_langgraph
    from sgdebug.debugger.loading import TargetError, forget_user_modules, load_target

    before = frozenset(sys.modules)
    try:
        target = load_target(spec, cwd=cwd, from_file=from_file)
        if engine != "native" or not is_langgraph(target.graph):
            return target
        forget_user_modules(before)
        return load_target(spec, cwd=cwd, alias=True, from_file=from_file)
    except TargetError as exc:
        fail(str(exc))


def prepare(options: LaunchOptions, *, default_input: Any = None) -> Prepared:
    """Load the target, read the input, check breakpoints, reopen an existing session.

    A session file's own target is imported only once the user consents to it. On an error
    the reopened session file is closed again (and so let go for another sgdebug).
    """
    session_file, record = _reopen(options.session)
    try:
        target = _target(options, record)
        if record is not None and options.input is not None:
            fail(
                f"the session in {options.session} already has its input; leave out --input "
                f"to continue it, or use the `restart INPUT` command to run with another"
            )
        if session_file is not None:
            record = session_file.record  # again, now that the program's classes are imported
        if record is not None:
            value = record.input
        elif options.input is None:
            value = default_input if default_input is not None else sample_input(target)
        else:
            value = _parse_input(options.input)
        nodes = sorted(target.graph.builder.nodes)
        for flag, names in (("--break-before", options.break_before),
                            ("--break-after", options.break_after)):  # fmt: skip
            for node in names:
                if node not in nodes:
                    fail(f"{flag}: no node {node!r} in {target.label}; nodes: "
                         f"{', '.join(nodes)}")  # fmt: skip
    except BaseException:
        if session_file is not None:
            session_file.close()
        raise
    return Prepared(target, value, options, session_file, record)


def sample_input(target: LoadedTarget) -> Any:
    """A bundled sample's example input when ``target`` is one of the samples (``sgdebug
    repl sgdebug.sample_graphs.chatbot:graph`` starts where ``sgdebug demo chatbot`` does),
    else ``None``."""
    import copy

    from sgdebug.sample_graphs import SAMPLES

    if target.namespace.get("__name__") not in SAMPLES.values():
        return None
    return copy.deepcopy(target.namespace.get("EXAMPLE_INPUT"))


def _target(options: LaunchOptions, record: SessionRecord | None) -> LoadedTarget:
    """TARGET as given, or the session file's own once the user consents to importing it."""
    from sgdebug.cli._consent import confirm_target, is_empty_file, no_session_message

    if options.target is not None:
        target = load(options.target, engine=options.engine)
        if record is not None and record.target != target.spec:
            fail(
                f"the session in {options.session} debugs {record.target}, not "
                f"{target.spec}; leave out TARGET to reopen it, or choose another --session"
            )
        if options.session is not None and is_empty_file(options.session):
            say(f"note: {options.session} is an empty file (0 bytes): the new session is "
                "kept in it")  # fmt: skip
        return target
    if record is not None and options.session is not None:
        confirm_target(options.session, record, trusted=options.trust)
        return load(record.target, record.cwd, engine=options.engine, from_file=True)
    if options.session is not None:
        fail(no_session_message(options.session))
    fail("missing TARGET (package.module:attr or path/to/file.py:attr)")


def _reopen(path: Path | None) -> tuple[SessionFile | None, SessionRecord | None]:
    """The existing session file at ``path`` and its record (new files, and empty ones, are
    created later). Reading it imports, calls and evaluates nothing it names."""
    from sgdebug.cli._consent import is_empty_file

    if path is None or not path.exists() or is_empty_file(path):
        return None, None
    from sgdebug.debugger.session_file import SessionFile, SessionFileError

    try:
        session_file = SessionFile.open(path)
    except SessionFileError as exc:
        fail(str(exc))
    return session_file, session_file.record


def _parse_input(text: str) -> Any:
    """``--input``: JSON text or ``@file`` (data only: never evaluated as Python); errors
    point at the line and column."""
    import json

    where = "--input"
    if text.startswith("@"):
        path = Path(text[1:]).expanduser()
        where = f"--input {text}"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{where}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
    try:
        value = json.loads(text)
    except RecursionError:
        value = None  # deeper than Python's recursion limit: refused below
    except json.JSONDecodeError as exc:
        line = text.splitlines()[exc.lineno - 1] if text.strip() else ""
        pointer = f"\n  {line}\n  {' ' * (exc.colno - 1)}^" if line else ""
        fail(f"{where} is not valid JSON: {exc.msg} at line {exc.lineno}, "
              f"column {exc.colno}{pointer}")  # fmt: skip
    else:
        if _nesting(value) <= MAX_INPUT_DEPTH:
            return value
    fail(f"{where} is nested too deeply: more than {MAX_INPUT_DEPTH} levels of lists and "
         f"objects (a run's state is copied and stored level by level); flatten it")  # fmt: skip


MAX_INPUT_DEPTH = 200
"""How deeply lists and objects may nest in ``--input`` (deeper ones exhaust Python's stack
when the state is copied, compared and stored)."""


def _nesting(value: Any) -> int:
    """How many levels of lists and objects ``value`` has (counted without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list) and depth <= MAX_INPUT_DEPTH + 1:
            deepest = max(deepest, depth)
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def open_session(prepared: Prepared) -> Opened:
    """A started session for ``prepared`` (its session file created or reopened).

    A reopened session stands where it stopped (its saved thread, breakpoints and input);
    a new one starts a run on the input. Breakpoints from the command line are added.
    """
    from sgdebug.debugger import Session, SessionOptions, Target

    options, record, loaded = prepared.options, prepared.record, prepared.target
    limit = options.recursion_limit or (record.recursion_limit if record else None)
    store, saver, restored = _stored(prepared, limit)
    engine = _engine(options, loaded.graph)
    try:
        session = Session(
            Target(loaded.graph, loaded.namespace, loaded.label),
            input=prepared.input,
            saver=saver,
            store=store,
            breakpoints=restored,
            options=SessionOptions(
                recursion_limit=limit,
                engine=engine,
                saved_channels=record.channels if record is not None else None,
            ),
        )
    except ValueError as exc:
        fail(f"cannot debug {loaded.label}: {exc}")
    for node in options.break_before:
        session.break_("before", node)
    for node in options.break_after:
        session.break_("after", node)
    if store is not None:
        store.save_breakpoints([b.to_dict() for b in session.breakpoints])
    if options.thread is not None:
        attached = session.attach(options.thread, input=prepared.input)
        if not attached.ok:
            fail(f"--thread {options.thread}: {attached.message}")
        return Opened(session, attached, store)
    if record is not None and record.thread_id is not None:
        return Opened(session, session.attach(record.thread_id, input=record.input), store)
    return Opened(session, session.restart(prepared.input), store)


def _stored(prepared: Prepared, limit: int | None) -> tuple[SessionFile | None, Any, Any]:
    """The session file, its saver and its breakpoints (``None`` each for a session kept in
    memory, which does not load the session-file code and sqlite3 at all)."""
    if prepared.session_file is None and prepared.options.session is None:
        return None, None, None
    from sgdebug.debugger.session_file import SessionFileError

    try:
        store, saver = _open_store(prepared, limit)
        restored = _restored_breakpoints(prepared.record, trusted=prepared.options.trust)
    except SessionFileError as exc:
        fail(str(exc))
    return store, saver, restored


def _open_store(prepared: Prepared, limit: int | None) -> tuple[SessionFile | None, Any]:
    """The session file (created, or reopened) and the saver keeping the history in it;
    everything in the file is checked before anything is written to it."""
    import os

    from sgdebug.debugger.engines import engine_for
    from sgdebug.debugger.session_file import SessionFile, SessionRecord

    options, store = prepared.options, prepared.session_file
    if store is None and options.session is not None:
        store = SessionFile.open(options.session)
    if store is None:
        return None, None
    saver = store.saver
    if engine_for(prepared.target.graph) == "langgraph":
        saver = store.langgraph_saver()  # LangGraph's history, in tables of its own
    if prepared.record is None:
        spec = prepared.target.spec
        store.save(SessionRecord(spec, os.getcwd(), prepared.input, (), None, limit))
    elif options.recursion_limit is not None:
        store.save_recursion_limit(limit)
    return store, saver


def _restored_breakpoints(record: SessionRecord | None, *, trusted: bool) -> list[Any] | None:
    """The session file's breakpoints; untrusted, those with a condition are held disabled."""
    from sgdebug.debugger.breakpoints import BreakpointError, restore
    from sgdebug.debugger.session_file import SessionFileError

    if record is None:
        return None
    try:
        return restore(record.breakpoints, trusted=trusted)
    except BreakpointError as exc:  # already checked when the file was read
        raise SessionFileError(f"the breakpoints of the session file are damaged: {exc}") from exc


def _engine(options: LaunchOptions, graph: Any) -> Any:
    """The engine ``--engine`` asks for, checked against the graph that was loaded (with
    ``--engine native``, :func:`load` has loaded a LangGraph program under the alias)."""
    from sgdebug.debugger.engines import engine_for

    built_for = engine_for(graph)
    if options.engine is None or options.engine == built_for:
        return built_for
    if options.engine == "langgraph":
        fail(
            f"--engine langgraph: {options.target} is built with sgdebug.runtime, which is "
            f"the native engine; the langgraph engine runs programs written with LangGraph"
        )
    return options.engine
