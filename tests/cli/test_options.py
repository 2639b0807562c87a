"""Command-line options and dispatch, in a subprocess: TARGET vs command names, bad options."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from sgdebug.sample_graphs import SAMPLES

Sgdebug = Callable[..., subprocess.CompletedProcess[str]]
Write = Callable[[str, str], Path]


# -- TARGET or command ---------------------------------------------------------------------


def test_a_target_alone_opens_the_tui(sgdebug: Sgdebug) -> None:
    result = sgdebug("app:graph")

    assert result.returncode == 2  # no terminal here: the TUI says so and how to go headless
    assert "the TUI is not available without a terminal" in result.stderr
    assert "sgdebug run app:graph --script FILE" in result.stderr  # the target was loaded


def test_options_may_come_before_the_target(sgdebug: Sgdebug) -> None:
    result = sgdebug("--input", '{"count": 1}', "--break-before", "second", "app:graph")

    assert result.returncode == 2
    assert "the TUI is not available" in result.stderr


def test_a_module_named_like_a_command_is_still_a_target(sgdebug: Sgdebug, write: Write) -> None:
    write("run.py", "from app import graph\n")
    write("graph.py", "from app import graph\n")

    as_target = sgdebug("run:graph")
    drawn = sgdebug("graph", "graph:graph")

    assert "the TUI is not available" in as_target.stderr
    assert "sgdebug run run:graph" in as_target.stderr
    assert drawn.returncode == 0
    assert "│ second " in drawn.stdout


def test_a_command_name_without_its_target_is_a_usage_error(sgdebug: Sgdebug) -> None:
    result = sgdebug("graph")

    assert result.returncode == 2
    assert "Missing argument 'TARGET'" in result.stderr


def test_a_script_given_as_a_second_argument_is_refused_with_the_option_to_use(
    sgdebug: Sgdebug, write: Write
) -> None:
    write("steps.txt", "continue\n")

    result = sgdebug("run", "app:graph", "steps.txt")

    assert result.returncode == 2
    assert "unexpected argument 'steps.txt'" in result.stderr
    assert "sgdebug run app:graph -s steps.txt" in result.stderr
    assert result.stdout == ""  # nothing ran


def test_repl_reads_piped_commands(sgdebug: Sgdebug) -> None:
    result = sgdebug("repl", "app:graph", stdin="state\nquit\n")

    assert result.returncode == 0, result.stderr
    assert "(sgdebug) state" in result.stdout


def test_help_names_the_target_and_the_commands(sgdebug: Sgdebug) -> None:
    result = sgdebug("--help")

    assert result.returncode == 0
    assert "Usage: sgdebug [OPTIONS] TARGET | COMMAND [ARGS]..." in result.stdout
    for command in ("open", "repl", "run", "graph", "demo"):
        assert f"\n  {command} " in result.stdout


# -- --input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ('{"count": 1,}', "--input is not valid JSON: Expecting property name enclosed in "
         "double quotes at line 1, column 13\n  {\"count\": 1,}\n              ^"),
        ("count=1", "--input is not valid JSON: Expecting value at line 1, column 1"),
        ("", "--input is not valid JSON: Expecting value at line 1, column 1"),
    ],
)  # fmt: skip
def test_malformed_input_json_points_at_the_line_and_column(
    sgdebug: Sgdebug, given: str, says: str
) -> None:
    result = sgdebug("run", "app:graph", "--input", given, stdin="continue\n")

    assert result.returncode == 2
    assert says in result.stderr


def test_input_from_a_file_reports_errors_in_that_file(sgdebug: Sgdebug, write: Write) -> None:
    write("input.json", '{\n  "count": 1\n  "log": []\n}\n')

    bad = sgdebug("run", "app:graph", "--input", "@input.json", stdin="continue\n")
    missing = sgdebug("run", "app:graph", "--input", "@nowhere.json", stdin="continue\n")

    assert bad.returncode == 2
    assert "--input @input.json is not valid JSON: Expecting ',' delimiter at line 3" in bad.stderr
    assert '  "log": []' in bad.stderr
    assert missing.returncode == 2
    assert "--input @nowhere.json: cannot read nowhere.json: No such file" in missing.stderr


# -- breakpoints, recursion limit, session files --------------------------------------------


@pytest.mark.parametrize("flag", ["--break-before", "--break-after"])
def test_an_unknown_breakpoint_node_lists_the_nodes(sgdebug: Sgdebug, flag: str) -> None:
    result = sgdebug("run", "app:graph", flag, "thrid", stdin="continue\n")

    assert result.returncode == 2
    assert f"{flag}: no node 'thrid' in app:graph; nodes: first, second" in result.stderr


def test_the_recursion_limit_must_be_positive(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", "app:graph", "--recursion-limit", "0", stdin="continue\n")

    assert result.returncode == 2
    assert "--recursion-limit" in result.stderr


LONG_LOOP = """\
from typing import TypedDict
from sgdebug.runtime import END, START, StateGraph

class State(TypedDict):
    n: int

builder = StateGraph(State)
builder.add_node("tick", lambda state: {"n": state["n"] + 1})
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 60 else END)
graph = builder.compile()
"""


def test_the_recursion_limit_help_states_the_runtimes_default(
    sgdebug: Sgdebug, write: Write
) -> None:
    from sgdebug.runtime._constants import DEFAULT_RECURSION_LIMIT

    write("long.py", LONG_LOOP)

    helped = sgdebug("run", "--help")
    long_run = sgdebug("run", "long:graph", "--input", '{"n": 0}', stdin="continue\n")

    assert f"(default {DEFAULT_RECURSION_LIMIT}, as LangGraph" in " ".join(helped.stdout.split())
    assert long_run.returncode == 0, long_run.stdout  # 60 supersteps: far more than 25
    assert long_run.stdout.endswith("The run finished.\n")


def test_a_foreign_session_file_is_refused_and_kept(sgdebug: Sgdebug, write: Write) -> None:
    notes = write("notes.db", "not a database\n")
    before = hashlib.sha256(notes.read_bytes()).hexdigest()

    result = sgdebug("run", "app:graph", "--session", "notes.db", stdin="continue\n")

    assert result.returncode == 2
    assert "notes.db is not an sgdebug session file" in result.stderr
    assert hashlib.sha256(notes.read_bytes()).hexdigest() == before


def test_no_target_and_no_session_is_a_usage_error(sgdebug: Sgdebug) -> None:
    result = sgdebug("run", stdin="continue\n")

    assert result.returncode == 2
    assert "missing TARGET" in result.stderr


# -- graph and demo ------------------------------------------------------------------------


def test_graph_draws_boxes_and_the_compiled_breakpoints(sgdebug: Sgdebug, write: Write) -> None:
    write(
        "paused.py",
        "from app import builder\ngraph = builder.compile(interrupt_before=['second'])\n",
    )

    result = sgdebug("graph", "paused:graph")

    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.strip() for line in lines[:3]] == ["╭───────╮", "│ START │", "╰───┬───╯"]
    assert "│ first " in result.stdout
    assert "│ second " in result.stdout
    assert lines[-1] == "compiled with interrupt_before: second"


def test_graph_explains_the_marks_it_uses(sgdebug: Sgdebug) -> None:
    looping = sgdebug("graph", "sgdebug.sample_graphs.approval:graph")
    plain = sgdebug("graph", "sgdebug.sample_graphs.linear:graph")

    assert looping.stdout.splitlines()[-1] == "┄┄▶ conditional   ▲ loops back"
    assert plain.stdout.splitlines()[-1].strip() == "╰─────╯"  # plain edges need no words


def test_graph_mermaid_is_what_the_runtime_draws(sgdebug: Sgdebug) -> None:
    from sgdebug.sample_graphs import chatbot

    result = sgdebug("graph", "sgdebug.sample_graphs.chatbot:graph", "--format", "mermaid")

    assert result.returncode == 0
    assert result.stdout == chatbot.build().compile().get_graph().draw_mermaid()


def test_graph_rejects_an_unknown_format(sgdebug: Sgdebug) -> None:
    result = sgdebug("graph", "app:graph", "--format", "svg")

    assert result.returncode == 2
    assert "'svg' is not one of 'text', 'mermaid'" in result.stderr


def test_demo_lists_the_samples(sgdebug: Sgdebug) -> None:
    result = sgdebug("demo", "--list")

    assert result.returncode == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == list(SAMPLES)


def test_demo_of_an_unknown_sample_lists_the_samples(sgdebug: Sgdebug) -> None:
    result = sgdebug("demo", "nope")

    assert result.returncode == 2
    assert f"no sample graph 'nope'; samples: {', '.join(SAMPLES)}" in result.stderr


def test_demo_opens_the_tui_on_the_sample(sgdebug: Sgdebug) -> None:
    result = sgdebug("demo", "loop", "--input", json.dumps({"count": 1}))

    assert result.returncode == 2
    assert "the TUI is not available" in result.stderr
    assert "sgdebug.sample_graphs.loop:graph" in result.stderr
