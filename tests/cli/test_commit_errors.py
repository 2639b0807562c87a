"""``sgdebug run`` on a step that fails at commit: one clear message, no traceback of
sgdebug's own frames, the graph-error exit status; its session file reopens at the step."""

from __future__ import annotations

from pathlib import Path

from .conftest import Sgdebug, Write

WRITERS = """\
import operator
from typing import Annotated, TypedDict

from sgdebug.runtime import START, StateGraph


class State(TypedDict, total=False):
    mode: str
    log: Annotated[list[str], operator.add]


def writer(name):
    def node(state):
        return {"log": name if state.get("mode") == "bad" else [name]}

    return node


builder = StateGraph(State)
builder.add_node("a", lambda state: {"log": ["a"]})
builder.add_node("b", writer("b"))
builder.add_node("c", writer("c"))
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("a", "c")
graph = builder.compile()
"""

MESSAGE = (
    "Step 2 could not commit: the reducer of 'log' (operator.add) raised TypeError on the "
    'writes of b, c: can only concatenate list (not "str") to list'
)
EXIT_GRAPH_ERROR = 1  # "1 when the graph raised" (sgdebug run --help)


def test_a_commit_error_prints_one_message_and_exits_with_the_graph_error_status(
    sgdebug: Sgdebug, write: Write
) -> None:
    write("writers.py", WRITERS)
    done = sgdebug("run", "writers:graph", "--input", '{"mode": "bad"}', stdin="continue\nstate\n")
    assert done.returncode == EXIT_GRAPH_ERROR, done.stderr
    assert done.stdout.count(MESSAGE) == 1
    assert "mode = 'bad'\n  log = ['a']" in done.stdout  # the state before the step
    for output in (done.stdout, done.stderr):
        assert "Traceback" not in output
        assert "sgdebug/" not in output  # none of sgdebug's own frames


def test_its_session_file_reopens_at_the_failed_step_and_retry_runs_it(
    sgdebug: Sgdebug, write: Write, project: Path
) -> None:
    write("writers.py", WRITERS)
    first = sgdebug(
        "run", "writers:graph", "--input", '{"mode": "bad"}', "--session", "s.sgdb",
        stdin="continue\n",
    )  # fmt: skip
    assert first.returncode == EXIT_GRAPH_ERROR
    again = sgdebug(
        "run", "writers:graph", "--session", "s.sgdb",
        stdin="state\nset mode = 'good'\nretry\nstate\n",
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    opened, rest = again.stdout.split("(sgdebug) state\n", 1)
    assert "the run is error" in opened and MESSAGE in opened
    assert rest.startswith("  mode = 'bad'\n  log = ['a']")
    assert rest.rstrip().endswith("log = ['a', 'b', 'c']")


def test_a_session_reopened_on_a_changed_graph_notes_which_keys_differ(
    sgdebug: Sgdebug, write: Write
) -> None:
    write("writers.py", WRITERS)
    first = sgdebug(
        "run", "writers:graph", "--input", '{"mode": "good"}', "--session", "s.sgdb",
        stdin="continue\n",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    write("writers.py", WRITERS.replace("    mode: str\n", "    mode: str\n    extra: int\n"))
    again = sgdebug("run", "writers:graph", "--session", "s.sgdb", stdin="state\n")
    assert again.returncode == 0, again.stderr
    assert (
        "note: the graph's state changed since this session was saved: added 'extra'."
        in again.stdout
    )
    assert "log = ['a', 'b', 'c']" in again.stdout
