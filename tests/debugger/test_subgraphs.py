"""Subgraphs in the session: node paths where a node name goes, and what each engine can do."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sgdebug.debugger.frame import current_frame
from sgdebug.debugger.results import EngineName
from sgdebug.debugger.subgraphs import SUBGRAPH
from sgdebug.inspect.node_paths import check_path, frame_of, node_paths, subgraph_at
from sgdebug.inspect.topology import topology
from sgdebug.runtime.channels import MISSING
from sgdebug.sample_graphs import build

from .engine_scenarios import on_both, run, sample, stopped, values
from .helpers import ok, refused

PATHS = ("plan", "research", "research/gather", "research/summarize", "write")


# -- node paths (inspect) ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sgdebug", "langgraph"])
def test_node_paths_list_the_subgraphs_nodes_after_their_parent(engine: str) -> None:
    topo = topology(build("nested", engine).compile())  # type: ignore[arg-type]
    assert node_paths(topo) == PATHS
    inner = subgraph_at(topo, ("research",))
    assert inner is not None and [n.name for n in inner.nodes][1:3] == ["gather", "summarize"]
    assert subgraph_at(topo, ("plan",)) is None


def test_a_wrong_path_names_what_exists_where_it_went_wrong() -> None:
    topo = topology(build("nested").compile())
    assert check_path(topo, "research/summarize") is None
    assert check_path(topo, "research/nope") == (
        "no node named 'nope' in research (its nodes: gather, summarize)"
    )
    assert check_path(topo, "nope/summarize") == (
        "no node named 'nope' (nodes: plan, research, write)"
    )
    assert check_path(topo, "plan/x") == (
        "'plan' runs no subgraph, so 'plan/x' names no node (subgraphs: research)"
    )
    assert check_path(topo, "research/gather/deeper") == (
        "'research/gather' runs no subgraph, so 'research/gather/deeper' names no node "
        "(subgraphs: research)"
    )


def test_a_namespace_gives_the_frame_of_node_names() -> None:
    assert frame_of(("research:1f2e", "inner:9a")) == ("research", "inner")
    assert frame_of(()) == ()


# -- the session -------------------------------------------------------------------------------


@on_both
def test_the_session_knows_every_node_path(engine: EngineName) -> None:
    session = sample("nested", engine)
    assert session.node_names == ("plan", "research", "write")
    assert session.node_paths == PATHS


@on_both
def test_an_unknown_path_is_refused_naming_what_exists(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    assert refused(session, "break before research/nope").message.endswith(
        "no node named 'nope' in research (its nodes: gather, summarize)"
    )
    assert "'write' runs no subgraph" in refused(session, "until write/x").message
    assert "no channel named 'topc'" in refused(session, "watch topc").message
    assert "'plan' runs no subgraph" in refused(session, "watch plan/notes").message
    assert [bp.number for bp in session.breakpoints] == [0]  # nothing was added


INSIDE = ("break before research/summarize", "tbreak after research/gather",
          "until research/summarize", "watch research/notes")  # fmt: skip
"""Lines that stop inside a subgraph (what each does there: tests/debugger/
test_subgraph_breaks.py, test_subgraph_watch.py and test_subgraph_motion.py, both engines)."""


@pytest.mark.parametrize("line", INSIDE)
@on_both
def test_both_engines_take_what_stops_inside_a_subgraph(engine: EngineName, line: str) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    assert session.engine.capabilities.why_not(SUBGRAPH) is None
    ok(session, line)


@pytest.mark.parametrize("line", INSIDE)
def test_an_engine_that_cannot_stop_inside_a_subgraph_refuses_with_its_reason(line: str) -> None:
    session = sample("nested", "langgraph")  # (as the remote engine says it, see remote.py)
    ok(session, "restart")
    why = "this engine runs a subgraph in one task"
    engine = session.engine
    engine.capabilities = replace(engine.capabilities, missing=((SUBGRAPH, why),))  # type: ignore[misc]
    message = refused(session, line).message
    assert f"is inside a subgraph: not available on the langgraph engine: {why}" in message
    assert [bp.number for bp in session.breakpoints] == [0]  # never a dead breakpoint


@on_both
def test_plain_node_breakpoints_still_work_around_the_subgraph(engine: EngineName) -> None:
    session = sample("nested", engine)
    ok(session, "break before research")
    ok(session, "restart")
    stop = ok(session, "continue")
    assert stop.stop is not None and stop.stop.kind == "breakpoint"
    assert session.pending_tasks == ("research",)


# -- frames (a run stopped inside a subgraph: an interrupt() there, on LangGraph) ---------------


@on_both
def test_stopped_inside_the_subgraph_the_views_show_its_frame_and_up_down_move(
    engine: EngineName,
) -> None:
    session = sample("nested", engine)
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 2)
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a research"
    assert frame.subgraph is not None and frame.subgraph.path == ("research",)
    assert {r.name: r.value for r in frame.channels} == {
        "topic": "heat pumps",
        "notes": ["gather: how heat pumps work", "gather: what heat pumps cost"],
        "summary": MISSING,
    }
    assert [(t.name, t.status) for t in frame.tasks] == [("summarize", "interrupted")]
    inner_values = {"topic": "heat pumps", "notes": frame.channels[1].value}
    assert frame.tasks[0].input == inner_values  # (its snapshot does not say: was <empty>)
    assert frame.step_diff is None and "inside the parent's step 2" in frame.diff_note
    state = ok(session, "state")
    assert state.message == "In frame parent \u203a research (`up` shows the parent's)."
    assert state.value["notes"][0] == "gather: how heat pumps work"
    assert [(t.name, t.input) for t in ok(session, "tasks").value] == [("summarize", inner_values)]

    assert ok(session, "up").message == "Frame: parent"
    parent = current_frame(session)
    assert parent.breadcrumb == "parent" and parent.subgraph is None
    assert [r.name for r in parent.channels] == ["topic", "summary", "report"]
    assert [t.name for t in parent.tasks] == ["research"]
    assert "notes" not in ok(session, "state").value
    assert refused(session, "up").message == "up: already at the parent graph's frame"
    assert ok(session, "down").message == "Frame: parent \u203a research"
    assert refused(session, "down").message.startswith("down: already at the innermost frame")

    ok(session, "up")
    ok(session, "resume 'costs'")  # moving the run shows the innermost frame again: none now
    assert current_frame(session).breadcrumb == ""
    assert refused(session, "up").message == "up: the run is not inside a subgraph"
    assert values(session)["report"] == "Report on heat pumps: 2 notes, seen from costs"


@on_both
def test_the_history_lists_the_subgraphs_checkpoints_under_the_parent_step(
    engine: EngineName,
) -> None:
    session = sample("nested", engine)
    run(session, "restart", "continue")
    [entry] = [e for e in current_frame(session).entries if e.subgraph_steps]
    assert entry.index == 2 and entry.ran == ("plan",)
    assert entry.subgraph_steps == ("research step 1 loop ran gather \u2192 summarize",)


@on_both
def test_edits_in_the_subgraph_frame_change_the_subgraphs_state_and_the_run_uses_them(
    engine: EngineName,
) -> None:
    session = sample("nested", engine)
    run(session, "restart", "continue")
    parent_before = session.view().values
    assert ok(session, "set notes = ['only this']").message == (
        "Set notes in frame parent \u203a research (the subgraph's own checkpoint)."
    )
    ok(session, "update {'notes': ['and that']}")  # through the subgraph's reducer
    assert ok(session, "state").value["notes"] == ["only this", "and that"]
    assert session.view().values == parent_before  # the parent's checkpoint is untouched
    assert "unknown key 'report': the state's keys are topic, notes, summary" in (
        refused(session, "set report = 'x'").message
    )
    assert (
        "edits the parent graph's frame only"
        in refused(session, "update {'notes': []} as gather").message
    )
    ok(session, "up")
    assert "unknown key 'notes'" in refused(session, "set notes = []").message  # parent's keys
    ok(session, "resume 'costs'")
    assert values(session)["summary"] == "2 notes, seen from costs"


def test_tasks_that_ran_inside_the_subgraph_carry_its_namespace() -> None:
    from sgdebug.debugger.events import TaskRan

    session = sample("nested", "langgraph")
    ran = []
    session.subscribe(lambda event: ran.append(event.task) if isinstance(event, TaskRan) else None)
    run(session, "restart", "continue")
    inner = [t for t in ran if t.namespace]
    assert [(t.name, t.frame) for t in inner] == [
        ("research/gather", ("research",)), ("research/summarize", ("research",))
    ]  # fmt: skip
    assert inner[0].namespace[0].startswith("research:")
    assert all(t.namespace == () and t.frame == () for t in ran if "/" not in t.name)


@on_both
def test_both_engines_report_the_tasks_that_ran_inside_the_subgraph(engine: EngineName) -> None:
    from sgdebug.debugger.events import TaskRan

    session = sample("nested", engine)
    ran: list[str] = []

    def heard(event: object) -> None:
        if isinstance(event, TaskRan):
            ran.append(event.task.name)

    session.subscribe(heard)
    ok(session, "restart")
    outcome = ok(session, "continue")
    inner = [name for name in ran if "/" in name]
    assert inner == ["research/gather", "research/summarize"]
    assert ran.index("plan") < ran.index("research/gather")
    assert outcome.ran == (
        "in subgraph research: gather wrote notes",
        "in subgraph research: summarize called interrupt()",
    )


def test_a_graph_without_subgraphs_gets_no_subgraph_emitter() -> None:
    from sgdebug.debugger.engines._native_subgraphs import subgraph_emitter
    from sgdebug.sample_graphs import load

    assert subgraph_emitter(load("loop").graph) is None
    assert subgraph_emitter(load("nested").graph) is not None


@on_both
def test_print_in_the_subgraph_frame_reads_its_state(engine: EngineName) -> None:
    session = sample("nested", engine)
    run(session, "restart", "continue")  # stopped at the interrupt() inside research
    assert ok(session, "print len(state['notes'])").value == 2
    assert ok(session, "print notes[1]").value == "gather: what heat pumps cost"
    assert session.evaluate("topic") == "heat pumps"
    assert refused(session, "print report").message == "NameError: name 'report' is not defined"
    ok(session, "up")
    assert ok(session, "print 'notes' in state").value is False
    assert ok(session, "print state['topic']").value == "heat pumps"


@on_both
def test_open_lists_a_subgraph_nodes_as_paths_or_says_what_is_wrong(engine: EngineName) -> None:
    session = sample("nested", engine)
    answer = ok(session, "open research")  # before any run: it needs none
    assert answer.value == ("research/gather", "research/summarize")
    assert answer.message.startswith("research runs a subgraph of 2 node(s): gather, summarize")
    assert refused(session, "open plan").message == (
        "'plan' runs no subgraph (subgraphs: research)"
    )
    assert refused(session, "open nope").message == (
        "no node named 'nope' (nodes: plan, research, write)"
    )


def test_the_native_engine_steps_into_a_subgraph_without_langgraph_installed() -> None:
    """Reading a subgraph's steps shares code with the LangGraph engine; none of it may need
    LangGraph or LangChain, which a native-only install does not have."""
    from tests.conftest import fresh_python_json

    code = (
        "import json, sys\n"
        "for name in ('langgraph', 'langchain_core'): sys.modules[name] = None\n"
        "from tests.debugger.helpers import sample_session\n"
        "from sgdebug.debugger import run_line\n"
        "session = sample_session('nested')\n"
        "run_line(session, 'restart')\n"
        "outcome = run_line(session, 'continue')\n"
        "print(json.dumps([outcome.ok, outcome.message]))\n"
    )
    ok, message = fresh_python_json(code)
    assert ok and "Interrupted at step 2" in message  # (inside the research subgraph)
