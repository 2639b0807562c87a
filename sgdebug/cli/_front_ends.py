"""Handing a started session to a front end: the TUI (``open``, ``demo``) or the REPL.

Nothing here imports typer: ``sgdebug TARGET`` and ``sgdebug demo`` come here straight from
:mod:`sgdebug.cli._argv` when their command line is a plain one, the rest through the
typer commands of :mod:`sgdebug.cli._app`. Both return the exit status.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from sgdebug import __version__
from sgdebug.cli._setup import LaunchOptions, Prepared, fail, open_session, prepare
from sgdebug.cli._startup import resume_collector

__all__ = ["FrontEnd", "open_demo", "open_front_end"]

FrontEnd = Literal["tui", "repl"]
_FRONT_END_NAMES: dict[FrontEnd, str] = {"tui": "TUI", "repl": "REPL"}


def open_front_end(
    front_end: FrontEnd, options: LaunchOptions, *, default_input: Any = None
) -> int:
    """Start the session ``options`` describe and run ``front_end`` on it: the exit status."""
    return _launch(front_end, prepare(options, default_input=default_input))


def open_demo(name: str | None, engine: str | None, options: LaunchOptions) -> int:
    """``sgdebug demo [NAME]``: the TUI on a bundled sample graph (default: the first one),
    with its example input; ``engine="langgraph"`` picks the sample built with LangGraph's
    own classes. ``options`` holds the other options (its target is the sample's)."""
    from sgdebug import sample_graphs

    name = name or next(iter(sample_graphs.SAMPLES))
    if name not in sample_graphs.SAMPLES:
        fail(f"no sample graph {name!r}; samples: {', '.join(sample_graphs.SAMPLES)}")
    graph = "langgraph_graph" if engine == "langgraph" else "graph"
    target = f"{sample_graphs.SAMPLES[name]}:{graph}"
    example = sample_graphs.load(name).EXAMPLE_INPUT
    return open_front_end("tui", dataclasses.replace(options, target=target),
                          default_input=example)  # fmt: skip


def _launch(front_end: FrontEnd, prepared: Prepared) -> int:
    """Hand a ready session to the front end (its exit status), or say it is not available."""
    import importlib

    launch = getattr(importlib.import_module(f"sgdebug.{front_end}"), "launch", None)
    if launch is None:
        name = _FRONT_END_NAMES[front_end]
        fail(
            f"the {name} is not available in this version of sgdebug ({__version__}). "
            f"Run debugger commands headless instead: "
            f"sgdebug run {prepared.target.label} --script FILE (or --script - to read stdin)"
        )
    opened = open_session(prepared)
    try:
        if front_end == "tui":
            # The TUI suspends into the REPL with `!`; it may not import the REPL itself.
            from sgdebug.repl import run_repl

            code: int = launch(opened.session, repl=run_repl, ready=resume_collector)
        else:
            resume_collector()
            code = launch(opened.session)
    finally:
        if opened.store is not None:
            opened.store.close()
    return code
