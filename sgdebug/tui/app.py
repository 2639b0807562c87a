"""The debugger app: composes the panes and routes keys, commands and session events.

Every action runs a command of the shared registry through :func:`sgdebug.debugger.run_line`
in the engine worker (a thread), so a node that sleeps never blocks the screen; the worker
builds the next :class:`~sgdebug.debugger.frame.Frame` and posts it back. Session events seen
while a verb runs (a step committed, a task finished) update the status line and the graph.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path, PurePath
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, Keymap
from textual.containers import Container
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker

from sgdebug.debugger import (
    Event,
    Outcome,
    Planned,
    Session,
    Stepped,
    TaskRan,
    run_line,
    start_notes,
)
from sgdebug.debugger.commands import spec_of
from sgdebug.debugger.frame import Frame, FrameBuilder, NodeStatus, with_running
from sgdebug.inspect.node_paths import PATH_SEP
from sgdebug.inspect.topology import topology
from sgdebug.tui.actions import TUI_ANSWERS, ActionsMixin
from sgdebug.tui.keys import TUI_BINDINGS, command_bindings
from sgdebug.tui.layout import DETAIL_PANES, as_pane, layout_for
from sgdebug.tui.palette import CommandsProvider
from sgdebug.tui.screens.main_screen import MainScreen
from sgdebug.tui.stopping import EngineStopper, on_exit_signals
from sgdebug.tui.widgets.breadcrumb import Breadcrumb
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine
from sgdebug.tui.widgets.diff_pane import DiffPane
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.history_pane import HistoryPane
from sgdebug.tui.widgets.inspector_pane import InspectorPane
from sgdebug.tui.widgets.keys_footer import KeysFooter
from sgdebug.tui.widgets.log_pane import LogPane
from sgdebug.tui.widgets.status_line import StatusLine
from sgdebug.tui.widgets.tasks_pane import TasksPane
from sgdebug.tui.widgets.too_small import TooSmall
from sgdebug.tui.widgets.traceback_pane import TracebackPane

__all__ = ["DebuggerApp", "ReplRunner"]

ReplRunner = Callable[[Session], object]
"""Runs the REPL on the session until the user leaves it (``!`` suspends the TUI into it)."""
_STYLES = Path(__file__).parent / "styles"


class DebuggerApp(ActionsMixin, App[int]):
    """The sgdebug TUI on one :class:`~sgdebug.debugger.Session`."""

    CSS_PATH: ClassVar[str | PurePath | list[str | PurePath] | None] = [
        _STYLES / "global.tcss",
        _STYLES / "app.tcss",
    ]
    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *command_bindings(),
        *TUI_BINDINGS,
    ]
    COMMANDS = App.COMMANDS | {CommandsProvider}
    TITLE = "sgdebug"

    class CommandsFinished(Message):
        """The engine ran ``lines`` (``outcomes`` in order) and built ``frame``."""

        def __init__(
            self, lines: tuple[str, ...], outcomes: tuple[Outcome, ...], frame: Frame | None
        ) -> None:
            super().__init__()
            self.lines = lines
            self.outcomes = outcomes
            self.frame = frame

    class Progressed(Message):
        """A superstep committed while a verb runs (noisy: only the latest counts)."""

        def __init__(self, step: int, ran: tuple[str, ...], running: tuple[str, ...] = ()) -> None:
            super().__init__()
            self.step = step
            self.ran = ran
            self.running = running
            """Nodes of the superstep now running (planned, not finished)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, DebuggerApp.Progressed)

    class Moving(Message):
        """A frame taken while a command moves the run (noisy: only the latest counts)."""

        def __init__(self, frame: Frame) -> None:
            super().__init__()
            self.frame = frame

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, DebuggerApp.Moving)

    class TaskFinished(Message):
        """A task of the running superstep finished."""

        def __init__(self, node: str) -> None:
            super().__init__()
            self.node = node

    def __init__(self, session: Session, *, repl: ReplRunner | None = None) -> None:
        super().__init__()
        self.session = session
        self.repl = repl
        self.topology = topology(session.model)
        self.frame: Frame | None = None
        self.busy = False
        """A command is on its way through the engine."""
        self._last_ran: tuple[str, ...] = ()
        """Nodes of the last committed superstep (written by the engine thread)."""
        self.inspecting: tuple[str, Any] | None = None
        """What the inspector shows: ``("channel", name)`` or ``("snapshot", index)``."""
        self.layout_name = "wide"
        self.detail = "tasks"
        """The detail pane shown in the compact layout."""
        self._return_focus: Widget | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.quitting = False
        """The session was closed; the app is exiting."""
        self.frames_shown = 0
        """How many frames were drawn (benchmarks wait on it)."""
        self.user_keymap: dict[str, str] = {}
        """Keys remapped by binding id (see :meth:`set_keymap`)."""
        self._idle = asyncio.Event()
        """Set while no command is on its way through the engine (see :meth:`wait_idle`)."""
        self._idle.set()
        self.stopper = EngineStopper(session)
        """Ctrl+C and quitting stop what the engine thread runs through it."""
        self.quit_pending = False
        """Quit once the engine thread is free (quitting while a command runs)."""
        self.engine_left_running = False
        """The app exited while a node would not stop (the process must not wait for it)."""
        self._restore_signals: Callable[[], None] = lambda: None
        self.first_screen_hook: Callable[[], object] = lambda: None
        """Called once the first screen is drawn (see :func:`sgdebug.tui.launch`)."""
        self.live_interval = 0.25
        """Seconds between the frames shown while a command moves the run, the first once it
        has run that long: a quick command's final frame is the only one drawn, so drawing
        does not compete with the run for the interpreter (nor inflate its task times)."""
        self._live_at = 0.0

    # -- composing -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The screen's layout class and the panes' classes are set before the panes mount,
        # so they are styled once (each class set later restyles the pane or the screen).
        self.layout_name = layout_for(self.size.width, self.size.height)
        self.screen.add_class(f"-{self.layout_name}")
        yield from (StatusLine(id="status"), Breadcrumb(id="breadcrumb"))
        with Container(id="panes"):
            yield as_pane(GraphPane(self.topology, id="graph"), self.detail)
            yield as_pane(ChannelsPane(id="channels"), self.detail)
            yield as_pane(TasksPane(id="tasks"), self.detail)
            yield as_pane(InspectorPane(id="inspector"), self.detail)
            yield as_pane(HistoryPane(id="history"), self.detail)
            yield as_pane(DiffPane(id="diff"), self.detail)
            yield as_pane(TracebackPane(id="traceback"), self.detail)
        yield as_pane(LogPane(id="log"), self.detail)
        yield CommandLine(self._complete, id="command")
        yield KeysFooter(id="footer", compact=True)
        yield TooSmall(id="too-small")

    def on_mount(self) -> None:
        if self.is_headless:
            self.query_one(CommandLine).cursor_blink = False
        self._unsubscribe = self.session.subscribe(self._on_session_event)
        self._restore_signals = on_exit_signals(self.exit_on_signal)
        self.builder = FrameBuilder(self.session)
        self.theme_changed_signal.subscribe(self, self._restyle)
        self.query_one(StatusLine).show_view(self.session.view())
        self._apply_layout(self.size.width, self.size.height)
        self.query_one(GraphPane).focus()
        log = self.query_one(LogPane)
        log.write_note(
            f"Debugging {self.session.label}: s steps, c continues, b breaks before the "
            "selected node, : takes any command, ? lists every key."
        )
        for note in start_notes(self.session.view()):
            log.write_note(note)
        try:  # nothing runs yet: the frame is in the first paint, not one through the engine
            self.show_frame(self.builder.build())
        except Exception as exc:  # a bug of ours: report it, keep the TUI alive
            log.write_outcome(
                Outcome("tui", False, self.session.status, f"internal error: {exc!r}")
            )

    def get_default_screen(self) -> Screen[Any]:
        return MainScreen()

    def on_ready(self) -> None:
        self.first_screen_hook()

    def _restyle(self, theme: object) -> None:
        """Colours come from the theme: draw the frame again with the new one."""
        if self.frame is not None:
            self.call_after_refresh(self.show_frame, self.frame)

    def on_unmount(self) -> None:
        self._restore_signals()
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.builder.close()

    # -- the engine ------------------------------------------------------------------------

    def run_lines(self, lines: Sequence[str], *, echo: bool = True) -> Worker[tuple[Outcome, ...]]:
        """Run command lines in the engine thread; the screen updates when they are done."""
        lines = tuple(lines)
        log = self.query_one(LogPane)
        if echo:
            for line in lines:
                log.write_command(line)
        self.busy = True
        self._live_at = time.monotonic()  # (a command over sooner shows its final frame only)
        self._idle.clear()
        specs = [spec_of(line.split(maxsplit=1)[0]) for line in lines if line.strip()]
        if self.frame is not None and any(s is not None and s.kind == "motion" for s in specs):
            self._show_running(self.frame)
        self.refresh_bindings()
        return self._engine(lines)

    @work(thread=True, exclusive=True, group="engine")
    def _engine(self, lines: tuple[str, ...]) -> tuple[Outcome, ...]:
        outcomes: list[Outcome] = []
        frame: Frame | None = None
        try:
            with self.stopper.running():
                for line in lines:
                    outcome = run_line(self.session, line)
                    if outcome is not None:
                        outcomes.append(outcome)
                frame = self.builder.build()
        except KeyboardInterrupt:  # Ctrl+C twice, outside a node (a long `print`, say)
            outcomes.append(Outcome("tui", False, self.session.status, "Interrupted (Ctrl-C)."))
            with contextlib.suppress(Exception):
                frame = self.builder.build()
        except Exception as exc:  # a bug of ours: report it, keep the TUI alive
            outcomes.append(Outcome("tui", False, self.session.status, f"internal error: {exc!r}"))
        self.post_message(self.CommandsFinished(lines, tuple(outcomes), frame))
        return tuple(outcomes)

    @on(LogPane.Opened)
    def _open_log(self, message: LogPane.Opened) -> None:
        self.show_log_screen(message.entries)

    def _on_session_event(self, event: Event) -> None:
        """Runs in the engine thread: turn noisy session events into messages."""
        if isinstance(event, Stepped):
            self._last_ran = tuple(event.record.tasks)
            self.post_message(self.Progressed(event.record.step + 1, self._last_ran))
        elif isinstance(event, Planned):
            self.post_message(self.Progressed(event.step, self._last_ran, event.tasks))
            self._live_frame()
        elif isinstance(event, TaskRan):
            self.post_message(self.TaskFinished(event.task.name))

    def _live_frame(self) -> None:
        """Runs in the engine thread at a plan: every pane's data, at most every
        :attr:`live_interval` seconds, while a command moves the run."""
        now = time.monotonic()
        if not self.busy or now - self._live_at < self.live_interval:
            return
        self._live_at = now
        try:
            frame = self.builder.build()
        except Exception:  # a live frame is a nicety: the final one follows
            return
        self.post_message(self.Moving(frame))

    @on(Moving)
    def _show_live(self, message: Moving) -> None:
        if self.busy:
            self.show_frame(message.frame)
            self._show_running(message.frame)

    @on(CommandsFinished)
    def _show_results(self, message: CommandsFinished) -> None:
        log = self.query_one(LogPane)
        for outcome in message.outcomes:
            if outcome.command == "help" and outcome.ok and isinstance(outcome.value, str):
                self.show_help(outcome.value)
                continue
            log.write_outcome(outcome)
            if outcome.command == "open" and outcome.ok and outcome.value:  # drawn as `o` does
                self.query_one(GraphPane).open_path(outcome.value[0].rpartition(PATH_SEP)[0])
        if message.frame is not None:
            self.show_frame(message.frame)
        if any(o.command == "quit" and o.ok for o in message.outcomes):
            self.exit_now(self.exit_status)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The engine is idle once its last worker finished (its frame was shown before)."""
        if event.worker.group != "engine" or not event.worker.is_finished:
            return
        if not any(w.group == "engine" and not w.is_finished for w in self.workers):
            if self.quit_pending and not self.quitting:  # the node stopped: quit now
                self.quit_pending = False
                self.run_lines(["quit"])
                return
            self.busy = False
            self.refresh_bindings()
            self._idle.set()

    async def wait_idle(self) -> None:
        """Wait until every command sent to the engine ran and its frame is on screen
        (and the inspector has loaded the snapshot it shows)."""
        await self._idle.wait()
        if not self.quitting:
            await self.workers.wait_for_complete()

    @on(Progressed)
    def _show_progress(self, message: Progressed) -> None:
        if not self.busy:
            return
        ran = ", ".join(message.ran) or "nothing"
        if message.running:
            what = f"running {', '.join(message.running)}"
        else:
            what = f"step {message.step - 1} committed ({ran})"
        self.query_one(StatusLine).show_running(message.step, f"{what} · Ctrl+C pauses")
        graph = self.query_one(GraphPane)

        def status(name: str) -> NodeStatus:
            if name in message.running:
                return "running"
            return "ran" if name in message.ran else "idle"

        states = {name: replace(state, status=status(name)) for name, state in graph.states.items()}
        graph.show_states(states)

    @on(TaskFinished)
    def _show_task(self, message: TaskFinished) -> None:
        graph = self.query_one(GraphPane)
        state = graph.states.get(message.node)
        if self.busy and state is not None:
            graph.show_states({**graph.states, message.node: replace(state, status="done")})

    def _show_running(self, frame: Frame) -> None:
        names = [t.name for t in frame.tasks if t.status == "pending"]
        shown = with_running(frame, names)
        self.query_one(GraphPane).show_states({n.name: n for n in shown.nodes})
        what = f"running {', '.join(names)}" if names else "running"
        self.query_one(StatusLine).show_running(frame.view.step, f"{what} · Ctrl+C pauses")

    @property
    def exit_status(self) -> int:
        """1 when the graph raised (the run stands on an exception or failed), else 0."""
        if self.frame is not None and self.frame.view.status in ("error", "failed"):
            return 1
        return 0

    # -- showing a frame -------------------------------------------------------------------

    def show_frame(self, frame: Frame) -> None:
        """Draw every pane from ``frame``."""
        moved = self.frame is None or self.frame.view.checkpoint_id != frame.view.checkpoint_id
        if moved and self.inspecting is not None and self.inspecting[0] == "snapshot":
            self.inspecting = None  # the session moved: show its values, not an old snapshot's
        self.frame = frame
        self.frames_shown += 1
        self.query_one(StatusLine).show_view(view := frame.view)
        self.query_one(GraphPane).show_states({n.name: n for n in frame.nodes})
        self.query_one(Breadcrumb).show_frame(frame)
        self.query_one(ChannelsPane).show_rows(frame.channels)
        self.query_one(TasksPane).show_rows(frame.tasks)
        self.query_one(DiffPane).show_diff(frame.step_diff, frame.diff_note)
        self.query_one(HistoryPane).show_tree(frame.history, frame.entries, frame.step_times)
        failed = view.error is not None and view.status in ("error", "failed")
        traceback = self.query_one(TracebackPane)
        if failed and view.error is not None:
            traceback.show_error(view.error, view.status)
        panes = self.query_one("#panes")
        if failed and not panes.has_class("-failed"):  # a new exception: show it
            self.show_detail("traceback")
        elif not failed and self.detail == "traceback":
            self.show_detail("diff")
        panes.set_class(failed, "-failed")
        names = [r.name for r in frame.channels]
        inspecting = self.inspecting
        gone = inspecting is not None and inspecting[0] == "channel" and inspecting[1] not in names
        if (inspecting is None or gone) and names:  # (gone: a frame of other channels)
            selected = self.query_one(ChannelsPane).selected
            self.inspecting = ("channel", selected if selected in names else names[0])
        self.refresh_inspector()

    def refresh_inspector(self) -> None:
        """Show what the inspector follows, with the frame's values."""
        inspector = self.query_one(InspectorPane)
        frame = self.frame
        if frame is None or self.inspecting is None:
            inspector.show_nothing("Select a channel or a snapshot to see its value.")
            return
        kind, key = self.inspecting
        if kind == "channel":
            row = next((r for r in frame.channels if r.name == key), None)
            if row is None:
                inspector.show_nothing(f"No channel {key!r} here.")
            else:
                subject = f"channel {key}"
                if row.in_place is not None:
                    step, nodes = row.in_place
                    subject += f" · changed in place by {', '.join(nodes) or '?'} @{step}"
                inspector.show_value(subject, key, row.value)
            return
        if kind == "task":
            task = next((t for t in frame.view.tasks if t.id == key), None)
            if task is None:
                inspector.show_nothing("That task is no longer pending.")
            else:
                from sgdebug.tui.details import task_details  # not on the first screen

                subject, value = task_details(task)
                inspector.show_value(subject, task.name, value)
            return
        if not 0 <= key < len(frame.entries):
            inspector.show_nothing(f"No snapshot #{key}.")
        else:
            inspector.show_snapshot(key, partial(self._snapshot_values, key))

    def _snapshot_values(self, index: int) -> Any:
        """The values of snapshot ``index`` (runs in the inspector's thread)."""
        shown = self.session.show(str(index))
        if not shown.ok:
            raise LookupError(shown.message)
        return shown.value.values

    # -- layout ----------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._apply_layout(event.size.width, event.size.height)

    def _apply_layout(self, width: int, height: int) -> None:
        name = layout_for(width, height)
        self.layout_name = name
        for option in ("too-small", "compact", "wide"):
            self.screen.set_class(option == name, f"-{option}")
        self.query_one(TooSmall).show_size(width, height)

    def show_detail(self, pane: str) -> None:
        """Make ``pane`` the detail pane the compact layout shows."""
        if pane not in DETAIL_PANES:
            return
        self.detail = pane
        for widget in self.query(".detail"):
            widget.set_class(widget.id == pane, "-shown")

    # -- commands from widgets -------------------------------------------------------------

    def _complete(self, line: str) -> list[str]:
        from sgdebug.debugger import complete

        try:
            return complete(self.session, line)
        except Exception:
            return []

    def why_not(self, name: str) -> str | None:
        """Why command ``name`` cannot run now (``None`` when it can)."""
        spec = spec_of(name)
        answered_here = name in TUI_ANSWERS or (spec is not None and spec.pane is not None)
        if self.busy and not answered_here:
            return "busy: a command is running (Ctrl+C pauses it)"
        if self.frame is not None and spec is not None:  # the session as the screen shows it
            return self.frame.unavailable.get(spec.name)
        return self.session.why_not(name)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's own palette commands, grouped under ``Screen:`` after ours; its quit is
        left out (``quit`` asks first)."""
        for command in super().get_system_commands(screen):
            if command.title != "Quit":
                yield SystemCommand(f"Screen: {command.title}", command.help, command.callback)

    def set_keymap(self, keymap: Keymap) -> None:
        self.user_keymap = dict(keymap)
        super().set_keymap(keymap)
