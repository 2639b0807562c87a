"""Headless and REPL: a breakpoint on a subgraph's node (sample ``nested``, both engines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgdebug.cli._setup import EXIT_STOPPED

from .conftest import Sgdebug

TARGETS = {
    "native": "sgdebug.sample_graphs.nested:graph",
    "langgraph": "sgdebug.sample_graphs.nested:langgraph_graph",
}
on_both = pytest.mark.parametrize("engine", list(TARGETS))

SCRIPT = """\
break before research/summarize
continue
state
continue
resume "costs"
state
"""


@pytest.mark.parametrize("command", ["run", "repl"])
@on_both
def test_a_script_stops_before_an_inner_node_then_answers_the_subgraphs_question(
    sgdebug: Sgdebug, command: str, engine: str
) -> None:
    done = sgdebug(command, TARGETS[engine], "--engine", engine, stdin=SCRIPT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    stop = out.index("Stopped before step 2 at breakpoint 1 (before research/summarize).")
    frame = out.index("In frame parent \u203a research (`up` shows the parent's).", stop)
    notes = "notes = ['gather: how heat pumps work', 'gather: what heat pumps cost']"
    assert out.index(notes, frame) < out.index("Interrupted at step 2: the graph asks", frame)
    assert "report = 'Report on heat pumps: 2 notes, seen from costs'" in out


WATCH_SCRIPT = """\
watch research/notes if len(new) > 1
break before research/summarize if len(notes) > 5
continue
continue
resume "costs"
"""


@pytest.mark.parametrize("command", ["run", "repl"])
@on_both
def test_a_subgraph_watch_stops_a_false_condition_does_not_and_the_log_reads_in_order(
    sgdebug: Sgdebug, command: str, engine: str
) -> None:
    done = sgdebug(command, TARGETS[engine], "--engine", engine, stdin=WATCH_SCRIPT)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    gathered = out.index("in subgraph research: gather wrote notes")
    watched = out.index(
        "Stopped before step 2 at breakpoint 1 (watch research/notes if len(new) > 1): "
        "research/notes [] -> ['gather: how heat pumps work', 'gather: what heat pumps cost']."
    )
    asked = out.index("Interrupted at step 2: the graph asks", watched)
    assert gathered < watched < asked  # breakpoint 2's condition is false: no stop between
    assert "breakpoint 2" not in out[watched:asked]
    # what ran, then how the verb ended: the subgraph's last task before "finished"
    summarized = out.index("in subgraph research: summarize wrote summary", asked)
    assert summarized < out.index("The run finished.", asked)


@pytest.mark.parametrize("command", ["run", "repl"])
@on_both
def test_a_session_file_reopened_at_a_stop_inside_a_subgraph_shows_that_stop(
    sgdebug: Sgdebug, project: Path, command: str, engine: str
) -> None:
    target, file = TARGETS[engine], str(project / "nested.db")
    first = sgdebug(
        command, target, "--engine", engine, "--session", file,
        stdin="watch research/notes\ncontinue\n",
    )  # fmt: skip
    stopped = EXIT_STOPPED if command == "run" else 0  # (a script ending at a stop says so)
    assert first.returncode == stopped, first.stderr
    assert "Stopped before step 2 at breakpoint 1 (watch research/notes)" in first.stdout
    reopened = sgdebug(
        command, target, "--engine", engine, "--session", file, stdin="state\ncontinue\n"
    )
    assert reopened.returncode == stopped, reopened.stderr  # (waiting for an answer)
    out = reopened.stdout
    at = out.index(  # (headless: under "At snapshot 2 ...: the run is paused before step 2.")
        "Stopped before step 2 at breakpoint 1 (watch research/notes): research/notes [] -> "
    )
    frame = out.index("In frame parent \u203a research (`up` shows the parent's).", at)
    notes = "notes = ['gather: how heat pumps work', 'gather: what heat pumps cost']"
    asked = out.index("Interrupted at step 2: the graph asks", frame)
    assert frame < out.index(notes, frame) < asked
    # continue re-entered the subgraph at its checkpoint: gather did not run again
    assert "gather wrote notes" not in out
    assert "in subgraph research: summarize called interrupt()" in out[frame:]
