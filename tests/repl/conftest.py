"""Sessions, consoles and a keyboard for driving the REPL through prompt-toolkit's pipe input."""

from __future__ import annotations

import io
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from sgdebug.debugger import Session, SessionOptions, Target
from sgdebug.repl.app import Repl
from sgdebug.runtime import START, StateGraph
from sgdebug.sample_graphs import load

SessionFactory = Callable[..., Session]


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data directory, for the history file: a temporary one in every test."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture
def make_session() -> SessionFactory:
    """``make_session("loop")``: a started session on a sample graph, with its example input."""

    def make(
        name: str = "loop", *, start: bool = True, engine: str = "native", **kwargs: Any
    ) -> Session:
        module = load(name)
        counter = itertools.count(1)
        options = SessionOptions(thread_ids=lambda: f"thread-{next(counter)}")
        graph = module.langgraph_graph if engine == "langgraph" else module.graph
        session = Session(
            Target(graph, vars(module), f"{name}:graph"),
            input=module.EXAMPLE_INPUT,
            options=options,
            **kwargs,
        )
        if start:
            session.restart()
        return session

    return make


class Ticks(TypedDict):
    ticks: int


def _tick(state: Ticks) -> dict[str, Any]:
    time.sleep(0.01)
    return {"ticks": state["ticks"] + 1}


@pytest.fixture
def endless() -> Session:
    """A started session on a graph that loops forever, 10 ms per superstep."""
    builder = StateGraph(Ticks)
    builder.add_node("tick", _tick)
    builder.add_edge(START, "tick")
    builder.add_edge("tick", "tick")
    options = SessionOptions(recursion_limit=1000)
    session = Session(Target(builder.compile(), {}, "endless"), input={"ticks": 0}, options=options)
    session.restart()
    return session


class Screen:
    """What the REPL printed (a console writing to memory)."""

    def __init__(self, *, rich: bool = False) -> None:
        self.file = io.StringIO()
        self.console = Console(
            file=self.file,
            width=120,
            force_terminal=rich,
            color_system="standard" if rich else None,
        )

    @property
    def text(self) -> str:
        return self.file.getvalue()


@pytest.fixture
def screen() -> Screen:
    """A plain-text console to read output from."""
    return Screen()


class Keyboard:
    """Types into a running REPL's prompt, waiting for it between keys like a person."""

    def __init__(self, repl: Repl, pipe: PipeInput) -> None:
        self.repl = repl
        self.pipe = pipe
        self.expected = 0

    def wait(self, predicate: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.005)

    @property
    def buffer_text(self) -> str:
        prompt = self.repl.prompt
        assert prompt is not None
        return prompt.default_buffer.text

    def ready(self) -> None:
        """Wait until the prompt is waiting for a new entry."""

        def waiting() -> bool:
            prompt = self.repl.prompt
            return (
                prompt is not None
                and prompt.app.is_running
                and self.repl.entries >= self.expected
                and prompt.default_buffer.text == ""
            )

        self.wait(waiting, "the prompt")

    def send(self, keys: str) -> None:
        self.pipe.send_text(keys)

    def line(self, text: str) -> None:
        """Type an entry and press Enter."""
        self.ready()
        self.send(text)
        self.wait(lambda: self.buffer_text == text, f"{text!r} typed")
        self.enter()

    def enter(self) -> None:
        """Press Enter to end an entry."""
        self.expected += 1
        self.send("\r")

    def complete(self, text: str, expected: str) -> None:
        """Type ``text``, press Tab, and wait for the line to read ``expected``."""
        self.ready()
        self.send(text)
        self.wait(lambda: self.buffer_text == text, f"{text!r} typed")
        self.send("\t")
        self.wait(lambda: self.buffer_text == expected, f"{text!r} completed to {expected!r}")

    def quit(self) -> None:
        """Ctrl+D on an empty line."""
        self.ready()
        self.expected += 1
        self.send("\x04")


Script = Callable[[Keyboard], None]


class Driver:
    """Runs a REPL in this thread while a script types into it from another one."""

    def __init__(self, session: Session, screen: Screen) -> None:
        self.session = session
        self.screen = screen

    def __call__(self, script: Script, *, confirm: bool = False, nested: bool = False) -> Repl:
        with create_pipe_input() as pipe:
            repl = Repl(
                self.session,
                input=pipe,
                output=DummyOutput(),
                console=self.screen.console,
                nested=nested,
            )
            keyboard = Keyboard(repl, pipe)
            failures: list[BaseException] = []

            def type_script() -> None:
                try:
                    script(keyboard)
                except BaseException as exc:
                    failures.append(exc)
                    for _ in range(3):  # unblock the REPL so the test can report
                        pipe.send_text("\x03\x04y\r")
                        time.sleep(0.05)

            typist = threading.Thread(target=type_script, daemon=True)
            typist.start()
            repl.run(confirm=confirm)
            typist.join(timeout=10)
        if failures:
            raise failures[0]
        return repl


@pytest.fixture
def drive(screen: Screen) -> Iterator[Callable[[Session], Driver]]:
    """``drive(session)(script)``: run the REPL on ``session`` with keys from ``script``."""
    yield lambda session: Driver(session, screen)
