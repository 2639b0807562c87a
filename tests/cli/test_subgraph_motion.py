"""Headless and REPL: stepping into, over and out of the research subgraph (sample
``nested``, native engine); the run ends as one without the debugger does."""

from __future__ import annotations

from typing import Any

import pytest

from sgdebug.runtime import Command
from sgdebug.runtime.checkpoint import InMemorySaver
from sgdebug.sample_graphs import nested

from .conftest import Sgdebug

INTO_AND_OUT = """\
step 3
state
step
finish
resume "costs"
state
"""

UNTIL_AND_OVER = """\
until research/summarize
up
next
resume "costs"
state
"""


def _plain_report() -> str:
    graph = nested.build().compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "plain"}}
    graph.invoke(nested.EXAMPLE_INPUT, config)
    report: str = graph.invoke(Command(resume="costs"), config)["report"]
    return report


def _run(sgdebug: Sgdebug, command: str, script: str) -> str:
    done = sgdebug(
        command, "sgdebug.sample_graphs.nested:graph", "--engine", "native", stdin=script
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("command", ["run", "repl"])
def test_a_script_steps_into_research_then_finishes_it(sgdebug: Sgdebug, command: str) -> None:
    out = _run(sgdebug, command, INTO_AND_OUT)
    into = out.index("Paused in research before gather (step 1 of research).")
    frame = out.index("In frame parent \u203a research (`up` shows the parent's).", into)
    assert out.index("notes = []", frame) < out.index(
        "Paused in research before summarize (step 2 of research).", frame
    )
    asked = out.index("Interrupted at step 2: the graph asks", frame)
    assert out.index("in subgraph research: gather wrote notes", frame) < asked
    assert f"report = {_plain_report()!r}" in out[asked:]


@pytest.mark.parametrize("command", ["run", "repl"])
def test_a_script_runs_until_an_inner_node_then_steps_over_from_the_parent(
    sgdebug: Sgdebug, command: str
) -> None:
    out = _run(sgdebug, command, UNTIL_AND_OVER)
    reached = out.index(
        "Reached research/summarize: paused in research before summarize (step 2 of research)."
    )
    up = out.index("Frame: parent", reached)
    assert "Interrupted at step 2: the graph asks" in out[up:]  # next: research whole
    assert f"report = {_plain_report()!r}" in out[up:]
