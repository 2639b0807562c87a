"""The app's actions: keys and widget messages turned into command lines of the registry.

A key stands for a command plus what is selected on the screen: ``b`` is ``break before
NODE`` (or ``delete N`` when that breakpoint exists), ``e`` opens the editor and runs
``set KEY = ...``, Enter in the history runs ``goto N``. ``check_action`` hides the keys
whose command cannot run now, with the session's own availability rule.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from textual import events
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.widget import Widget
from textual.worker import Worker

from sgdebug.debugger import Outcome, Session
from sgdebug.debugger.frame import END_NODE, START_NODE, Frame, FrameBuilder
from sgdebug.tui.keys import (
    KEY_COMMANDS,
    TUI_BINDINGS,
    KeyCommand,
    command_bindings,
    help_rows,
    key_command,
)
from sgdebug.tui.layout import DETAIL_PANES, next_pane
from sgdebug.tui.stopping import QUIT_GRACE_S, EngineStopper
from sgdebug.tui.widgets.channels_pane import ChannelsPane
from sgdebug.tui.widgets.command_line import CommandLine
from sgdebug.tui.widgets.graph_pane import GraphPane
from sgdebug.tui.widgets.history_pane import HistoryPane
from sgdebug.tui.widgets.log_pane import LogPane
from sgdebug.tui.widgets.tasks_pane import TasksPane

if TYPE_CHECKING:
    from rich.text import Text
    from textual.app import App

    from sgdebug.inspect.topology import Topology

    _Base = App[int]
else:
    _Base = object

__all__ = ["ActionsMixin"]

TUI_ANSWERS: Final = frozenset({"help", "quit"})
"""Commands the TUI answers itself, even while the engine is busy: the help screen and the
quit confirmation (a command with a ``pane`` is answered by showing that pane)."""
_RUNNING = "A command is running: quit anyway? Its running node is interrupted."
_UNSAVED = (
    "Quit and discard this session? It is not saved: start sgdebug with --session FILE "
    "to keep a session and reopen it later."
)


class ActionsMixin(_Base):
    """Actions and message handlers of :class:`~sgdebug.tui.app.DebuggerApp`."""

    session: Session
    frame: Frame | None
    busy: bool
    repl: Callable[[Session], object] | None
    topology: Topology
    detail: str
    inspecting: tuple[str, Any] | None
    layout_name: str
    _return_focus: Widget | None
    _real_node_selected: bool = True
    builder: FrameBuilder
    stopper: EngineStopper
    user_keymap: dict[str, str]
    quitting: bool
    quit_pending: bool
    engine_left_running: bool
    _idle: asyncio.Event

    if TYPE_CHECKING:

        def run_lines(
            self, lines: Sequence[str], *, echo: bool = True
        ) -> Worker[tuple[Outcome, ...]]: ...
        def show_detail(self, pane: str) -> None: ...
        def why_not(self, name: str) -> str | None: ...
        def refresh_inspector(self) -> None: ...
        @property
        def exit_status(self) -> int: ...

    # -- availability ----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.layout_name == "too-small":  # nothing is drawn: only quitting makes sense
            return action == "command" and parameters == ("quit",)
        if action == "command" and parameters:
            return self._can_run(str(parameters[0]))
        if action == "pane":  # Tab belongs to the command line and to dialogs when they have it
            return self.screen is self.screen_stack[0] and not isinstance(self.focused, CommandLine)
        if action == "pause":
            return self.busy
        if action == "repl":
            return not self.busy
        return True

    def _can_run(self, binding_id: str) -> bool | None:
        try:
            item = key_command(binding_id)
        except KeyError:
            return False
        if item.pane is not None or item.command in TUI_ANSWERS:
            return True
        if self.session.engine.capabilities.why_not(item.command) is not None:
            return None  # shown dimmed: the engine cannot run it (a press says why)
        if self.why_not(item.command) is not None:
            return False  # hidden: a press says why (see on_key)
        if item.needs == "node":
            return self.selected_node is not None
        if item.needs == "channel":
            return self.query_one(ChannelsPane).selected is not None
        return True

    def on_key(self, event: events.Key) -> None:
        """A command key that cannot run now says why instead of doing nothing."""
        if self.screen is not self.screen_stack[0] or isinstance(self.focused, CommandLine):
            return
        item = self._key_item(event.key)
        active = self.active_bindings.get(event.key)
        if item is None or (active is not None and active.enabled):
            return
        reason = self.why_not(item.command)
        if reason is None and item.needs != "nothing":
            reason = f"select a {item.needs} first"
        if reason is None:
            return
        event.stop()
        if self.session.status == "done" and not self.busy:
            reason += " (keys: r restarts, h browses the history)"
        self.query_one(LogPane).write_note(f"{item.command}: {reason}")

    def _key_item(self, key: str) -> KeyCommand | None:
        """The key command ``key`` presses (the keymap applied)."""
        keymap = self.user_keymap
        for item in KEY_COMMANDS:
            default = f"{item.key},f1" if item.id == "help" else item.key
            if key in keymap.get(item.id, default).split(","):
                return item
        return None

    @property
    def selected_node(self) -> str | None:
        """The graph's selected node, unless it is START or END."""
        node = self.query_one(GraphPane).selected
        return None if node in (None, START_NODE, END_NODE) else node

    # -- keys ------------------------------------------------------------------------------

    def action_command(self, binding_id: str) -> None:
        """Run the command a key stands for, with the screen's selection."""
        item = key_command(binding_id)
        name = item.command
        if name == "help":
            self.show_keys_help()
        elif name == "quit":
            self.request_quit()
        elif item.pane is not None:
            self.focus_pane(item.pane)
        elif name == "open":  # the key toggles the selected one (`:open NODE` opens NODE)
            self.query_one(GraphPane).action_toggle_subgraph()
        elif binding_id in ("break", "break_after"):
            self._toggle_break("after" if binding_id == "break_after" else "before")
        elif name == "set":
            self.edit_selected()
        elif name == "resume":
            self._type_answer()
        elif name == "restart":
            self.request_restart()
        elif item.needs == "node" and self.selected_node:
            self.run_lines([f"{name} {self.selected_node}"])
        elif item.needs == "channel" and self.query_one(ChannelsPane).selected:
            self.run_lines([f"{name} {self.query_one(ChannelsPane).selected}"])
        elif item.needs == "nothing":
            self.run_lines([name])

    def _toggle_break(self, when: str) -> None:
        node = self.selected_node
        if node is None or self.frame is None:
            return
        for bp in self.frame.view.breakpoints:
            if bp.kind == when and bp.target == node and bp.origin == "user" and not bp.condition:
                self.run_lines([f"delete {bp.number}"])
                return
        self.run_lines([f"break {when} {node}"])

    def action_pane(self, delta: int) -> None:
        """Focus the next (1) or previous (-1) pane."""
        focused = self.focused
        current = None
        while focused is not None:
            if focused.id in (*DETAIL_PANES, "graph", "channels", "log"):
                current = focused.id
                break
            focused = focused.parent if isinstance(focused.parent, Widget) else None
        self.focus_pane(next_pane(current, delta))

    def focus_pane(self, pane: str) -> None:
        """Show (in the compact layout) and focus ``pane``."""
        if pane == "diff" and self.query_one("#panes").has_class("-failed"):
            pane = "traceback"
        if pane in DETAIL_PANES:
            self.show_detail(pane)
        self.query_one(f"#{pane}").focus()

    def action_command_line(self) -> None:
        """Focus the command line; Enter or Escape gives focus back."""
        line = self.query_one(CommandLine)
        if self.focused is not line:
            self._return_focus = self.focused
        line.focus()

    def action_pause(self) -> None:
        """Ctrl+C while a command runs: pause at the next superstep; again: interrupt the node."""
        note = self.stopper.press() if self.busy else None
        if note is not None:
            self.query_one(LogPane).write_note(note)

    def action_repl(self) -> None:
        """Suspend the TUI into the REPL on the same session."""
        if self.repl is None:
            self.query_one(LogPane).write_note(
                "The REPL is not available from the TUI in this build; use the command line "
                "(:) here, or run `sgdebug repl TARGET`."
            )
            return
        try:
            with self.suspend():
                self.repl(self.session)
        except SuspendNotSupported:
            self.query_one(LogPane).write_note("This terminal cannot suspend the TUI for the REPL.")
        else:
            self.query_one(LogPane).write_note("Back from the REPL.")
        self.builder.forget()  # the REPL may have moved anywhere
        self.run_lines((), echo=False)

    def request_restart(self) -> None:
        """Restart, asking first when the run has a history the new run would leave behind."""
        entries = self.frame.entries if self.frame is not None else ()
        if len(entries) <= 1:
            self.run_lines(["restart"])
            return
        kept = "it stays in the session file" if self.session.store else "it is not saved"
        question = (
            f"Start a new run from the input? This run's history ({len(entries)} snapshots) "
            f"leaves the screen, and {kept}."
        )
        from sgdebug.tui.screens.confirm_screen import ConfirmScreen  # not on the first screen

        self.push_screen(ConfirmScreen(question), self._restart_if)

    def _restart_if(self, yes: bool | None) -> None:
        if yes:
            self.run_lines(["restart"])

    # -- help ------------------------------------------------------------------------------

    def show_help(self, text: str) -> None:
        """``help`` typed on the command line: its own screen, not the log."""
        from sgdebug.debugger import help_text

        topic = None if text == help_text(None, self.session) else text
        self.show_keys_help(topic)
        self.query_one(LogPane).write_note("Help is shown in its own screen (Esc closes it).")

    def show_keys_help(self, topic: str | None = None) -> None:
        """The help screen: the keys, and ``topic`` (a command's help) when given."""
        from sgdebug.tui.screens.help_screen import HelpScreen  # not on the first screen

        self.push_screen(HelpScreen(self.keys_help(), topic=topic))

    def show_log_screen(self, entries: Iterable[Text]) -> None:
        """The whole log, wrapped, in its own screen."""
        from sgdebug.tui.screens.log_screen import LogScreen  # not on the first screen

        self.push_screen(LogScreen(entries))

    def keys_help(self) -> Iterable[tuple[str, str]]:
        """(keys, what they do) for the help screen, with the keymap applied."""
        defaults = {b.id: b.key for b in (*command_bindings(), *TUI_BINDINGS) if b.id}
        caps = self.session.engine.capabilities
        for binding_id, does in help_rows():
            keys = self.user_keymap.get(binding_id) or defaults.get(binding_id, "")
            shown = ", ".join(self.get_key_display(Binding(k, "")) for k in keys.split(",") if k)
            try:
                missing = caps.why_not(key_command(binding_id).command)
            except KeyError:
                missing = None
            if shown and missing is not None:
                yield shown, f"{does} (not on the {caps.engine} engine: {missing})"
            elif shown:
                yield shown, does
        yield "arrows", "Select a node in the graph; move in tables and the history"
        yield "enter", "Node details (graph); go to a snapshot (history); the whole log (log)"
        yield "ctrl+p", "Command palette: every command"

    # -- quitting --------------------------------------------------------------------------

    def request_quit(self) -> None:
        """Quit, asking first when the session is not saved in a file."""
        from sgdebug.tui.screens.confirm_screen import ConfirmScreen  # not on the first screen

        if self.busy:
            self.session.request_pause()
        if self.session.store is None and self.session.started:
            self.push_screen(ConfirmScreen(_UNSAVED), self._quit_if)
        elif self.busy:
            self.push_screen(ConfirmScreen(_RUNNING), self._quit_if)
        else:
            self.quit_session()

    async def action_quit(self) -> None:
        """Textual's own quit (Ctrl+Q, the palette) asks first too."""
        self.request_quit()

    def _quit_if(self, yes: bool | None) -> None:
        if yes:
            self.quit_session()

    def quit_session(self) -> None:
        """Run ``quit``; while a command runs, interrupt its node and quit once it stopped."""
        if not self.busy:
            self.run_lines(["quit"])
            return
        self.quit_pending = True
        self.stopper.interrupt()
        self.query_one(LogPane).write_note("Quitting: interrupting the running node.")
        self.set_timer(QUIT_GRACE_S, self._quit_past_the_node)

    def _quit_past_the_node(self) -> None:
        """The node did not stop (it is inside one long C call): exit without waiting."""
        if self.quit_pending and not self.quitting:
            self.engine_left_running = True
            self.exit_now(self.exit_status)

    def exit_on_signal(self, signum: int) -> None:
        """SIGTERM or SIGHUP: interrupt the node and exit, giving the terminal back."""
        self.stopper.interrupt()
        self.exit_now(128 + signum)

    def exit_now(self, status: int) -> None:
        """Exit the app with ``status``; nothing more runs, so nobody waits for the engine."""
        self.quitting = True
        self._idle.set()
        self.exit(status, return_code=status)

    # -- editing ---------------------------------------------------------------------------

    def edit_selected(self) -> None:
        """Open the editor on the selected channel's value."""
        channels = self.query_one(ChannelsPane)
        key = channels.selected
        row = next((r for r in channels.rows_shown if r.name == key), None)
        if key is None or row is None:
            return
        from sgdebug.tui.details import editable_text  # not on the first screen

        text = "" if row.empty else editable_text(row.value)
        if text is None:
            self.query_one(LogPane).write_note(
                f"{key}'s value is too big to edit here: use `set {key} = EXPR` (:)."
            )
            return

        async def submit(expr: str) -> str | None:
            worker = self.run_lines([f"set {key} = {expr}"])
            outcomes = await worker.wait()
            outcome = outcomes[-1] if outcomes else None
            return None if outcome is not None and outcome.ok else _reason(outcome)

        from sgdebug.tui.screens.edit_screen import EditScreen  # TextArea: not on the first screen

        self.push_screen(EditScreen(key, text, submit))

    # -- widget messages -------------------------------------------------------------------

    def on_channels_pane_channel_highlighted(
        self, message: ChannelsPane.ChannelHighlighted
    ) -> None:
        self.inspecting = ("channel", message.name)
        self.refresh_inspector()

    def on_tasks_pane_task_highlighted(self, message: TasksPane.TaskHighlighted) -> None:
        self.inspecting = ("task", message.task_id)
        self.refresh_inspector()

    def on_history_pane_snapshot_highlighted(
        self, message: HistoryPane.SnapshotHighlighted
    ) -> None:
        self.inspecting = ("snapshot", message.index)
        self.refresh_inspector()

    def on_history_pane_snapshot_chosen(self, message: HistoryPane.SnapshotChosen) -> None:
        if self.why_not("goto") is None:
            self.run_lines([f"goto {message.index}"])

    def on_graph_pane_node_selected(self, message: GraphPane.NodeSelected) -> None:
        real = message.node not in (START_NODE, END_NODE)
        if real != self._real_node_selected:  # node keys (b, B, u) come and go
            self._real_node_selected = real
            self.refresh_bindings()

    def on_graph_pane_node_opened(self, message: GraphPane.NodeOpened) -> None:
        from sgdebug.tui.details import node_details  # not on the first screen
        from sgdebug.tui.screens.node_screen import NodeScreen

        graph = self.session.model
        self.push_screen(NodeScreen(node_details(message.node, self.topology, self.frame, graph)))

    def on_command_line_entered(self, message: CommandLine.Entered) -> None:
        self._give_focus_back()
        line = message.line
        if not line:
            return
        word = line.split(maxsplit=1)[0]
        if word in ("quit", "q", "exit"):
            self.query_one(LogPane).write_command(line)
            self.request_quit()
        else:
            self.run_lines([line])

    def on_command_line_left(self, message: CommandLine.Left) -> None:
        self._give_focus_back()

    def on_command_line_completed(self, message: CommandLine.Completed) -> None:
        self.query_one(LogPane).write_note("  ".join(message.candidates))

    def type_command(self, text: str, cursor: int | None = None) -> None:
        """Open the command line with ``text`` typed, for the user to finish (the cursor at
        ``cursor``, by default at the end)."""
        line = self.query_one(CommandLine)
        self.action_command_line()
        line.value = text
        line.cursor_position = len(text) if cursor is None else cursor

    def _type_answer(self) -> None:
        """``resume `` to finish; with several interrupts pending, a dict of their ids to
        fill in (the cursor at the first answer): nobody types a 32-digit id."""
        pending = self.frame.view.interrupts if self.frame is not None else ()
        if len(pending) < 2:
            self.type_command("resume ")
            return
        slots = [f"{interrupt.id!r}: " for interrupt in pending]
        text = "resume {" + ", ".join(slots) + "}"
        self.type_command(text, len("resume {") + len(slots[0]))

    def _give_focus_back(self) -> None:
        target = self._return_focus
        self._return_focus = None
        if target is not None and target.is_attached and target.display:
            target.focus()
        else:
            self.query_one(GraphPane).focus()

    # -- the palette -----------------------------------------------------------------------

    def choose_command(self, name: str) -> None:
        """Run a command from the palette, or type it when it needs arguments."""
        from sgdebug.debugger import lookup

        spec = lookup(name)
        if any(not arg.optional for arg in spec.args):
            self.type_command(f"{name} ")
        elif name == "help":
            self.show_keys_help()
        elif name == "quit":
            self.request_quit()
        elif name == "restart":
            self.request_restart()
        else:
            self.run_lines([name])


def _reason(outcome: Outcome | None) -> str:
    if outcome is None:
        return "nothing was run"
    return outcome.message or "refused"
