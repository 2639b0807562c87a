"""Helpers for the TUI tests: sessions on the sample graphs, built like the CLI builds them.

Every app is made with :func:`sgdebug.tui.make_app` (what ``sgdebug TARGET`` runs), with a
started session whose thread ids are a counter, at a fixed terminal size; tests wait on the
app's one idle signal (:meth:`DebuggerApp.wait_idle`) instead of chains of pauses.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

from sgdebug.debugger import Session, SessionOptions, Target
from sgdebug.runtime import CompiledStateGraph
from sgdebug.sample_graphs import load
from sgdebug.tui import make_app
from sgdebug.tui.app import DebuggerApp
from sgdebug.tui.widgets.command_line import CommandLine

WIDE = (120, 40)
SMALL = (80, 24)


def sample_session(
    name: str, *, input: Any = None, engine: str = "native", **kwargs: Any
) -> Session:
    """A started session on sample ``name`` with its example input; ``engine="langgraph"``
    builds the same program with LangGraph and runs it on the LangGraph engine."""
    module = load(name)
    value = module.EXAMPLE_INPUT if input is None else input
    graph = module.langgraph_graph if engine == "langgraph" else module.graph
    return graph_session(graph, name, value, namespace=vars(module), **kwargs)


def graph_session(
    graph: CompiledStateGraph | Any,
    label: str,
    input: Any,
    *,
    namespace: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Session:
    """A started session on ``graph`` with deterministic thread ids."""
    counter = itertools.count(1)
    options = SessionOptions(thread_ids=lambda: f"thread-{next(counter)}")
    target = Target(graph, namespace or {}, label)
    session = Session(target, input=input, options=options, **kwargs)
    outcome = session.restart(input)
    assert outcome.ok, outcome.message
    return session


Scenario = Callable[[DebuggerApp, Pilot[int]], Awaitable[None]]
"""What a test does with the running app."""


IDLE_TIMEOUT_S = 30.0
"""A test fails, instead of hanging, when the engine does not become idle by then."""


async def settle(app: DebuggerApp) -> None:
    """Wait for the app's idle signal (everything sent to the engine ran and is shown)."""
    await asyncio.wait_for(app.wait_idle(), IDLE_TIMEOUT_S)


def drive(
    session: Session, scenario: Scenario, size: tuple[int, int] = WIDE, **kwargs: Any
) -> DebuggerApp:
    """Run ``scenario`` on the app for ``session`` (started and idle); the app afterwards.

    A plain function (no async test plugin needed): the event loop lives inside.
    """
    app = make_app(session, **kwargs)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await settle(app)
            await scenario(app, pilot)

    asyncio.run(main())
    return app


async def press(app: DebuggerApp, pilot: Pilot[int], *keys: str) -> None:
    """Press ``keys`` and wait until the engine ran what they asked for."""
    await pilot.press(*keys)
    await settle(app)


async def enter_command(app: DebuggerApp, pilot: Pilot[int], line: str) -> None:
    """Put ``line`` on the command line (as ``:`` does) and press Enter to run it."""
    app.action_command_line()
    app.query_one(CommandLine).value = line
    await press(app, pilot, "enter")


def status_text(app: DebuggerApp) -> str:
    """The status line as the user reads it."""
    from sgdebug.tui.widgets.status_line import StatusLine

    return str(app.query_one(StatusLine).render())


def status_of(app: DebuggerApp) -> str:
    """The session status of the frame on screen (a call, so type narrowing does not stick)."""
    assert app.frame is not None
    return app.frame.view.status


def log_of(app: DebuggerApp) -> list[str]:
    """The lines the log pane has written."""
    from sgdebug.tui.widgets.log_pane import LogPane

    return app.query_one(LogPane).lines_written


async def select_node(app: DebuggerApp, pilot: Pilot[int], node: str) -> None:
    """Focus the graph and select ``node``, as the arrow keys would."""
    from sgdebug.tui.widgets.graph_pane import GraphPane

    graph = app.query_one(GraphPane)
    graph.focus()
    graph.selected = node
    await pilot.pause()
