"""Headless and REPL: a breakpoint on a subgraph's node (sample ``nested``, native engine)."""

from __future__ import annotations

import pytest

from .conftest import Sgdebug

SCRIPT = """\
break before research/summarize
continue
state
continue
resume "costs"
state
"""


@pytest.mark.parametrize("command", ["run", "repl"])
def test_a_script_stops_before_an_inner_node_then_answers_the_subgraphs_question(
    sgdebug: Sgdebug, command: str
) -> None:
    done = sgdebug(
        command, "sgdebug.sample_graphs.nested:graph", "--engine", "native", stdin=SCRIPT
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    stop = out.index("Stopped before step 2 at breakpoint 1 (before research/summarize).")
    frame = out.index("In frame parent \u203a research (`up` shows the parent's).", stop)
    notes = "notes = ['gather: how heat pumps work', 'gather: what heat pumps cost']"
    assert out.index(notes, frame) < out.index("Interrupted at step 2: the graph asks", frame)
    assert "report = 'Report on heat pumps: 2 notes, seen from costs'" in out
