"""A plain ``sgdebug TARGET`` or ``sgdebug demo`` command line is read without typer
(``sgdebug.cli._argv``): it must open exactly what typer would open, and leave every other
command line (help, typos, values typer refuses or converts) to typer and its messages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import sgdebug.cli._app as typer_side
import sgdebug.cli._front_ends as front_ends
from sgdebug.cli import app
from sgdebug.cli._argv import DEMO_OPTIONS, OPEN_OPTIONS, Option, direct_command, read
from tests.cli.conftest import Sgdebug
from tests.conftest import fresh_python_json

Call = tuple[str, tuple[Any, ...]]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Call]]:
    """What was asked of the front ends (nothing is opened), either way the line is read."""
    seen: list[Call] = []

    def front_end(front: str, options: Any, **kwargs: Any) -> int:
        seen.append(("open_front_end", (front, options, kwargs)))
        return 0

    def demo(name: str | None, engine: str | None, options: Any) -> int:
        seen.append(("open_demo", (name, engine, options)))
        return 0

    for module in (typer_side, front_ends):
        monkeypatch.setattr(module, "open_front_end", front_end)
        monkeypatch.setattr(module, "open_demo", demo)
    yield seen


def _typer_opens(argv: list[str], calls: list[Call]) -> list[Call]:
    calls.clear()
    result = CliRunner().invoke(app, argv, prog_name="sgdebug")
    assert result.exit_code == 0, result.output
    return list(calls)


def _direct_opens(argv: list[str], calls: list[Call]) -> list[Call]:
    calls.clear()
    command = direct_command(argv)
    assert command is not None, f"{argv} was left to typer"
    assert command() == 0
    return list(calls)


PLAIN = [
    ["app:graph"],
    ["open", "app:graph"],
    ["demo"],
    ["demo", "chatbot"],
    ["demo", "no-such-sample"],  # the same `fail` either way
    ["demo", "--engine", "langgraph", "chatbot"],
    ["demo", "chatbot", "-e", "native", "--trust", "--session", "s.sgdb"],
    ["app:graph", "--input", '{"count": 1}', "-b", "first", "--break-before=second"],
    ["--input", "{}", "app:graph"],
    ["-i", "[1, 2]", "app:graph", "-a", "first", "-a", "second"],
    ["app:graph", "--session", "~/dir/s.sgdb", "--recursion-limit", "25", "--trust"],
    ["app:graph", "--engine=native", "--thread", "t-1", "--recursion-limit=3"],
    ["--session", "s.sgdb"],
    ["open"],
    ["dir/app.py:graph", "--input", "@input.json"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=" ".join)
def test_a_plain_command_line_opens_what_typer_opens(argv: list[str], calls: list[Call]) -> None:
    assert _direct_opens(argv, calls) == _typer_opens(argv, calls)


LEFT_TO_TYPER = [
    [],
    ["--help"],
    ["-h"],
    ["--version"],
    ["app:graph", "--help"],
    ["demo", "-h"],
    ["demo", "--list"],
    ["demo", "-l"],
    ["rnu", "app:graph"],
    ["run", "app:graph"],
    ["repl", "app:graph"],
    ["graph", "app:graph"],
    ["attach", "http://127.0.0.1:2024"],
    ["app:graph", "--no-such-option"],
    ["app:graph", "extra:argument"],
    ["demo", "chatbot", "linear"],
    ["app:graph", ""],
    ["app:graph", "--input"],
    ["app:graph", "--input="],
    ["app:graph", "--input", "-"],
    ["app:graph", "--input", "--trust"],
    ["app:graph", "-i{}"],
    ["app:graph", "--input", "1", "--input", "2"],
    ["app:graph", "--recursion-limit", "0"],
    ["app:graph", "--recursion-limit", "007"],
    ["app:graph", "--recursion-limit", "-1"],
    ["app:graph", "--recursion-limit", "many"],
    ["app:graph", "--engine", "LangGraph"],
    ["app:graph", "--engine", "pregel"],
    ["app:graph", "--trust=yes"],
    ["app:graph", "--no-trust"],
    ["app:graph", "--"],
    ["app:graph", "-"],
    ["demo", "--thread", "t-1"],
    ["-x", "app:graph"],
]


@pytest.mark.parametrize("argv", LEFT_TO_TYPER, ids=lambda argv: " ".join(argv) or "(none)")
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert read(argv) is None


def _typer_options(command: str) -> dict[str, tuple[set[str], bool, bool]]:
    """The typer command's options: field -> (spellings, is a flag, repeatable)."""
    group: Any = typer.main.get_command(app)
    params = group.commands[command].params
    return {param.name: ({*param.opts, *param.secondary_opts}, bool(param.is_flag),
                         bool(param.multiple))
            for param in params if param.param_type_name == "option"}  # fmt: skip


def _ours(table: tuple[Option, ...]) -> dict[str, tuple[set[str], bool, bool]]:
    return {option.field: (set(option.names), option.kind == "switch", option.kind == "nodes")
            for option in table}  # fmt: skip


def test_the_open_table_is_the_open_commands_options() -> None:
    assert _ours(OPEN_OPTIONS) == _typer_options("open")


def test_the_demo_table_is_the_demo_commands_options_but_list() -> None:
    theirs = _typer_options("demo")
    listing = theirs.pop("list_")

    assert listing == ({"--list", "-l"}, True, False)
    assert _ours(DEMO_OPTIONS) == theirs


def test_a_refused_value_gets_typers_message(sgdebug: Sgdebug) -> None:
    result = sgdebug("app:graph", "--recursion-limit", "0")

    assert result.returncode == 2
    assert "--recursion-limit" in result.stderr
    assert "Invalid value" in result.stderr


def test_a_plain_line_without_a_terminal_says_so_as_before(sgdebug: Sgdebug) -> None:
    result = sgdebug("app:graph", "--input", '{"count": 1}')

    assert result.returncode == 2
    assert result.stderr.startswith("Error: the TUI is not available without a terminal")
    assert "sgdebug run app:graph --script FILE" in result.stderr


# `sgdebug demo chatbot` as the console script runs it, in a fresh interpreter (no terminal:
# the TUI says so and the command returns 2); what it had imported by then.
DIRECT_DEMO = """
import json, sys
from sgdebug.cli import main
sys.argv = ["sgdebug", "demo", "chatbot"]
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "typer": "typer" in sys.modules,
                  "pydantic": "pydantic" in sys.modules,
                  "session": "sgdebug.debugger.session" in sys.modules}))
"""


def test_a_plain_demo_reaches_the_tui_without_importing_typer_or_pydantic() -> None:
    found = fresh_python_json(DIRECT_DEMO)

    assert found == {"code": 2, "typer": False, "pydantic": False, "session": True}
