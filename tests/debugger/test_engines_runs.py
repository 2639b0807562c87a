"""Both engines, continued: interrupt() and resume, a node that raises, whole runs."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from sgdebug.debugger import Session
from sgdebug.debugger.results import EngineName
from sgdebug.sample_graphs import api, load

from .engine_scenarios import (
    BUILT_WITH,
    EDIT_STEP,
    last_changes,
    on_both,
    parallel_reviews,
    run,
    sample,
    session_on,
    state_writes,
    stopped,
    tree,
    values,
)
from .helpers import ok, refused

# -- interrupt() and resume -------------------------------------------------------------------


@on_both
def test_interrupt_waits_for_resume_and_the_answer_reaches_the_node(engine: EngineName) -> None:
    session = sample("approval", engine)
    asked = run(session, "restart", "continue")
    assert stopped(asked) == ("interrupted", "interrupt", 2)
    assert [i.value["draft"] for i in session.view().interrupts] == [
        "Hello, about a refund for order 1234: we are on it."
    ]
    refused(session, "step")
    again = ok(session, "resume 'shorter'")
    assert stopped(again) == ("interrupted", "interrupt", 4)
    assert values(session)["feedback"] == ["shorter"]
    assert stopped(ok(session, "resume 'yes'")) == ("done", "done", 6)
    assert values(session)["status"].startswith("sent: Hello")
    assert [e.ran for e in session.history().value[1:]] == [
        ("__start__",), ("draft",), ("review",), ("draft",), ("review",), ("send",)
    ]  # fmt: skip


@on_both
def test_an_old_interrupted_snapshot_asks_again_and_takes_the_new_answer(
    engine: EngineName,
) -> None:
    session = sample("approval", engine)
    run(session, "restart", "continue", "resume 'yes'")
    # The question was answered on the first branch; from its snapshot ``review`` runs again.
    assert stopped(ok(session, "goto 2")) == ("paused", "goto", 2)
    assert session.pending_tasks == ("review",) and session.view().interrupts == ()
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 3)
    ok(session, "resume 'no'")
    assert values(session)["feedback"] == ["no"]
    assert [(e.parent_index, e.source) for e in session.history().value[5:]] == [
        (2, "fork"), (5, "loop"), (6, "loop")
    ]  # fmt: skip


class Answers(TypedDict, total=False):
    answers: Annotated[list[str], operator.add]


def two_questions(engine: EngineName) -> Session:
    """``left`` and ``right`` both ask (``interrupt()``) beside ``sib``, which does not."""
    lg = api(BUILT_WITH[engine])

    def asking(name: str) -> Any:
        def node(state: Answers) -> dict[str, Any]:
            return {"answers": [f"{name}={lg.interrupt(name)}"]}

        return node

    builder = lg.StateGraph(Answers)
    for name in ("left", "right"):
        builder.add_node(name, asking(name))
        builder.add_edge(lg.START, name)
    builder.add_node("sib", lambda state: {"answers": ["sib"]})
    builder.add_edge(lg.START, "sib")
    return session_on(builder.compile(), engine, {})


@on_both
def test_several_interrupts_are_answered_by_id_one_at_a_time(engine: EngineName) -> None:
    session = two_questions(engine)
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("interrupted", "interrupt", 1)
    ids = {i.value: i.id for i in session.view().interrupts}
    assert sorted(ids) == ["left", "right"]
    assert values(session) == {"answers": ["sib"]}  # the task that finished is applied
    refused(session, "resume 'x'")  # a bare value cannot say which question it answers
    partly = ok(session, f"resume {{{ids['left']!r}: 'L'}}")
    assert stopped(partly) == ("interrupted", "interrupt", 1)
    assert [i.value for i in session.view().interrupts] == ["right"]
    assert values(session) == {"answers": ["left=L", "sib"]}
    assert stopped(ok(session, f"resume {{{ids['right']!r}: 'R'}}")) == ("done", "done", 2)
    assert values(session) == {"answers": ["left=L", "right=R", "sib"]}


# -- a node that raises -----------------------------------------------------------------------


class Flaky(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    broken: bool


def fan_out(engine: EngineName, calls: list[str], *, fail_once: bool = False) -> Session:
    """START -> ``steady`` and ``flaky`` (which raises while ``broken`` is set, or the first
    time with ``fail_once``), both joined into ``join``."""
    lg = api(BUILT_WITH[engine])
    failures = [ValueError("the first call fails")] if fail_once else []

    def steady(state: Flaky) -> dict[str, Any]:
        calls.append("steady")
        return {"log": ["steady"]}

    def flaky(state: Flaky) -> dict[str, Any]:
        calls.append("flaky")
        if state.get("broken"):
            raise ValueError("the broken flag is set")
        if failures:
            raise failures.pop()
        return {"log": ["flaky"]}

    builder = lg.StateGraph(Flaky)
    builder.add_node("steady", steady)
    builder.add_node("flaky", flaky)
    builder.add_node("join", lambda state: {"log": ["join"]})
    builder.add_edge(lg.START, "steady")
    builder.add_edge(lg.START, "flaky")
    builder.add_edge(["steady", "flaky"], "join")
    return session_on(builder.compile(), engine, {"broken": not fail_once})


# The native engine lists a live step's tasks as it schedules them (by node name); LangGraph
# lists them as ``get_state`` does, in ``add_node`` order (LANGGRAPH_SEMANTICS.md 3.3).
LISTED = {"native": ("flaky", "steady"), "langgraph": ("steady", "flaky")}


@on_both
def test_a_node_error_stops_the_step_and_retry_after_an_edit_commits_it(
    engine: EngineName,
) -> None:
    calls: list[str] = []
    session = fan_out(engine, calls)
    failed = run(session, "restart", "continue")
    assert stopped(failed) == ("error", "exception", 1)
    assert failed.stop is not None and failed.stop.error is not None
    error = failed.stop.error
    assert (error.node, error.error_type, error.message) == (
        "flaky", "ValueError", "the broken flag is set"
    )  # fmt: skip
    assert [h.breakpoint.number for h in failed.stop.hits] == [0]
    # The traceback is the node's code, not the engine's (the LangGraph engine's showed
    # sgdebug's and LangGraph's frames first).
    frames = [line for line in error.traceback.splitlines() if line.startswith("  File ")]
    assert len(frames) == 1 and __file__ in frames[0] and ", in flaky" in frames[0]
    tasks = {t.name: t for t in session.view().tasks}
    assert tuple(tasks) == LISTED[engine]
    assert tasks["flaky"].state == "error" and tasks["steady"].state == "done"
    assert state_writes(tasks["steady"].writes, session) == {"log": ["steady"]}
    assert values(session) == {"log": [], "broken": True}  # nothing committed
    refused(session, "step")
    ok(session, "set broken = False")
    assert session.pending_tasks == LISTED[engine]  # the edit runs the whole step again
    committed = ok(session, "retry")
    assert stopped(committed) == ("paused", "step", 2 + EDIT_STEP[engine])
    assert last_changes(session)["log"] == (
        [], [("flaky", ["flaky"]), ("steady", ["steady"])], ["flaky", "steady"]
    )  # fmt: skip
    ok(session, "continue")
    assert values(session) == {"log": ["flaky", "steady", "join"], "broken": False}


@on_both
def test_retry_runs_only_the_failed_task_and_keeps_its_siblings_writes(
    engine: EngineName,
) -> None:
    calls: list[str] = []
    session = fan_out(engine, calls, fail_once=True)
    ok(session, "restart")
    assert stopped(ok(session, "continue")) == ("error", "exception", 1)
    assert sorted(calls) == ["flaky", "steady"]
    calls.clear()
    assert stopped(ok(session, "retry")) == ("paused", "step", 2)
    assert calls == ["flaky"]
    assert last_changes(session)["log"] == (
        [], [("flaky", ["flaky"]), ("steady", ["steady"])], ["flaky", "steady"]
    )  # fmt: skip
    assert session.pending_tasks == ("join",)


@on_both
def test_without_the_exception_breakpoint_a_node_error_fails_the_run(engine: EngineName) -> None:
    session = fan_out(engine, [])
    run(session, "disable 0", "restart")
    failed = ok(session, "continue")
    assert stopped(failed) == ("failed", "failed", 1)
    assert failed.stop is not None and failed.stop.error is not None
    assert failed.stop.error.message == "the broken flag is set"


# -- runs -------------------------------------------------------------------------------------


@on_both
def test_restart_starts_a_new_thread_from_the_input(engine: EngineName) -> None:
    session = sample("linear", engine)
    run(session, "restart", "step 2")
    assert stopped(ok(session, "restart")) == ("paused", "start", 0)
    assert session.thread_id == "thread-2"
    assert session.pending_tasks == ("__start__",)
    assert values(session) == {"logs": []}
    assert session.view().last_commit is None
    assert tree(session) == [(None, "input", -1, ())]
    ok(session, "continue")
    assert values(session)["cur_id"] == "request-7:validated:done"


def langgraph_run(iterations: int, limit: int) -> tuple[str, Any]:
    """What LangGraph's own ``invoke`` does with the loop sample: error message, state."""
    graph = load("loop").build("langgraph", iterations=iterations)
    compiled = graph.compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "t"}, "recursion_limit": limit}
    try:
        compiled.invoke({"count": 0}, config)
        message = ""
    except RecursionError as exc:
        message = str(exc)
    return message, compiled.get_state(config).values


@on_both
@pytest.mark.parametrize(("iterations", "limit"), [(5, 3), (3, 4)])
def test_the_recursion_limit_fails_the_run_where_langgraph_does(
    engine: EngineName, iterations: int, limit: int
) -> None:
    # (3, 4): ``report`` runs in the last step allowed; the empty step after it counts too.
    module = load("loop")
    graph = module.build(BUILT_WITH[engine], iterations=iterations).compile()
    session = session_on(graph, engine, module.EXAMPLE_INPUT, recursion_limit=limit)
    failed = run(session, "restart", "continue")
    assert stopped(failed) == ("failed", "failed", limit + 1)
    assert failed.stop is not None and failed.stop.error is not None
    message, state = langgraph_run(iterations, limit)
    assert message.startswith(f"Recursion limit of {limit} reached")
    assert (failed.stop.error.error_type, failed.stop.error.message) == (
        "GraphRecursionError",
        message,
    )
    assert values(session) == state


@on_both
@pytest.mark.parametrize("limit", [None, 8])
def test_remaining_steps_count_down_from_the_runs_limit(
    engine: EngineName, limit: int | None
) -> None:
    module = load("channels")
    graph = module.build(BUILT_WITH[engine]).compile()
    session = session_on(graph, engine, module.EXAMPLE_INPUT, recursion_limit=limit)
    run(session, "restart", "continue")
    left = 10004 if limit is None else 5  # LangGraph's default limit is 10007; 3 steps ran
    assert values(session)["history"][-1] == f"wrap_up: heard 'nothing', {left} steps left"
    assert "remaining_steps" not in values(session)  # a managed value, not a channel


@on_both
def test_info_names_the_engine_and_what_it_cannot_run(engine: EngineName) -> None:
    session = sample("linear", engine)
    info = ok(session, "info")
    assert info.value.engine == engine
    assert info.message.startswith(f"Engine: {engine}: ")
    missing = {
        "native": set(),
        "langgraph": {"task", "mutations"},
    }
    assert {feature for feature, _ in info.value.missing} == missing[engine]
    graph_line = ok(sample("chatbot", engine), "info").message.splitlines()[1]
    assert graph_line.endswith("(2 nodes, 1 state key)")  # (messages only)


@on_both
def test_task_runs_one_task_on_native_and_is_refused_on_langgraph(engine: EngineName) -> None:
    session = sample("fanout", engine)
    run(session, "restart", "step")
    if engine == "native":
        assert stopped(ok(session, "task b")) == ("paused", "task", 1)
        assert session.pending_tasks == ("c",)
        return
    outcome = refused(session, "task b")
    assert "LangGraph runs the tasks of a superstep together" in outcome.message
    assert session.pending_tasks == ("b", "c")  # nothing ran


@on_both
def test_two_interrupts_at_once_are_answered_by_id_and_a_bare_answer_says_how(
    engine: EngineName,
) -> None:
    session = parallel_reviews(engine)
    stop = run(session, "restart", "continue")
    assert stopped(stop) == ("interrupted", "interrupt", 1)
    assert "Answer each by id, `resume {'<id>': value, ...}`." in stop.message
    ids = {i.value: i.id for i in session.interrupts}
    assert set(ids) == {"approve a?", "approve b?"}
    # (the native engine let the runtime's RuntimeError through, as LangGraph words it)
    message = refused(session, "resume 'yes'").message
    assert message.startswith("2 interrupts wait for an answer: answer each by id")
    assert f"{ids['approve a?']}: 'approve a?'" in message
    ok(session, f"resume {{'{ids['approve a?']}': 'yes', '{ids['approve b?']}': 'no'}}")
    assert sorted(values(session)["verdicts"]) == ["a: yes", "b: no"]


@on_both
def test_down_n_shows_each_of_the_subgraphs_running_beside_each_other(
    engine: EngineName,
) -> None:
    from sgdebug.debugger.frame import current_frame

    session = parallel_reviews(engine)
    run(session, "restart", "continue")
    frame = current_frame(session)
    assert frame.breadcrumb == "parent \u203a review 1/2"  # (the first shown, as before)
    assert {r.name: r.value for r in frame.channels}["doc"] == "a"
    assert ok(session, "up").message == "Frame: parent"
    assert (
        refused(session, "down 3").message == "down 3: 2 subgraphs run there: `down 1` to `down 2`"
    )
    assert ok(session, "down 2").message == "Frame: parent \u203a review 2/2"
    frame = current_frame(session)
    assert {r.name: r.value for r in frame.channels}["doc"] == "b"
    assert [(t.name, t.input) for t in frame.tasks] == [("ask", {"doc": "b", "verdicts": []})]
    assert ok(session, "state").value["doc"] == "b"  # (the views and `state` agree)
    assert ok(session, "p state['doc']").value == "b"
    assert refused(session, "down 1").message == "down 1: no subgraph runs below this frame"
    ok(session, "up")
    ok(session, "down")  # (plain down: the instance chosen last)
    assert current_frame(session).breadcrumb.endswith("review 2/2")
