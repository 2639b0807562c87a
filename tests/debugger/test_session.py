"""The session controller driven through commands: runs, stepping, errors, interrupts, pauses."""

from __future__ import annotations

import itertools
import operator
import threading
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import (
    Breakpoint,
    Event,
    Outcome,
    Paused,
    Session,
    SessionOptions,
    Started,
    Stepped,
    Target,
    run_line,
)
from sgdebug.runtime import START, StateGraph, interrupt
from sgdebug.runtime.checkpoint import InMemorySaver, SqliteSaver
from sgdebug.sample_graphs import RUNS_ALONE, load

from .helpers import ok, refused

UNTIL = {
    "linear": "node_2",
    "overwrite": "publish",
    "multi_schema": "respond",
    "channels": "wrap_up",
    "fanout": "d",
    "map_reduce": "combine",
    "loop": "report",
    "chatbot": "tools",
}


def session_for(name: str, **kwargs: Any) -> Session:
    module = load(name)
    counter = itertools.count(1)
    options = SessionOptions(thread_ids=lambda: f"thread-{next(counter)}")
    session = Session(
        Target(module.graph, vars(module), name), input=module.EXAMPLE_INPUT, options=options,
        **kwargs,
    )  # fmt: skip
    return session


def status(session: Session) -> str:
    """The session's status (read through a call, so type narrowing does not stick)."""
    return session.status


def pending(session: Session) -> tuple[str, ...]:
    return session.pending_tasks


def expected_run(name: str) -> tuple[Any, int]:
    """Final values of a checkpointed run of the sample, and how many supersteps it took."""
    module = load(name)
    graph = module.graph.builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "expected"}}
    graph.invoke(module.EXAMPLE_INPUT, config)
    loops = [s for s in graph.get_state_history(config) if s.metadata["source"] == "loop"]
    return graph.get_state(config).values, len(loops)


# -- every sample graph -----------------------------------------------------------------------


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_continue_runs_every_sample_to_the_same_end_as_the_runtime(name: str) -> None:
    session = session_for(name)
    start = ok(session, "restart")
    assert start.stop is not None and start.stop.kind == "start"
    assert session.pending_tasks == (START,)
    finished = ok(session, "continue")
    assert finished.status == "done" and finished.stop is not None
    assert finished.stop.kind == "done"
    values, _ = expected_run(name)
    assert ok(session, "state").value == values
    refused(session, "step")


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_step_commits_exactly_one_superstep_each_time(name: str) -> None:
    session = session_for(name)
    ok(session, "restart")
    steps = 0
    while session.status == "paused":
        before = session.view().step
        outcome = ok(session, "s")
        assert [c.step for c in outcome.commits] == [before]
        steps += 1
    values, loops = expected_run(name)
    assert session.status == "done"
    assert steps == loops
    assert session.state().value == values


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_step_n_runs_n_supersteps(name: str) -> None:
    session = session_for(name)
    ok(session, "restart")
    outcome = ok(session, "step 2")
    assert [c.step for c in outcome.commits] == [0, 1]
    assert session.view().step == 2


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_task_runs_one_task_and_the_step_commits_after_the_last(name: str) -> None:
    session = session_for(name)
    ok(session, "restart")
    split_steps = 0
    while session.status == "paused":
        view = session.view()
        pending = [t.name for t in view.tasks if t.state == "pending"]
        done = [t.name for t in view.tasks if t.state == "done"]
        outcome = ok(session, "task")
        if len(pending) > 1:
            split_steps += 1
            after = session.view()
            assert outcome.commits == ()
            assert after.step == view.step
            assert after.values == view.values  # nothing committed yet
            assert [t.name for t in after.tasks if t.state == "pending"] == pending[1:]
            assert [t.name for t in after.tasks if t.state == "done"] == done + pending[:1]
        else:
            assert [c.step for c in outcome.commits] == [view.step]
    assert session.state().value == expected_run(name)[0]
    if name in ("fanout", "map_reduce"):
        assert split_steps > 0


@pytest.mark.parametrize("name", RUNS_ALONE)
def test_until_stops_before_the_step_that_runs_the_node(name: str) -> None:
    session = session_for(name)
    ok(session, "restart")
    node = UNTIL[name]
    outcome = ok(session, f"until {node}")
    assert outcome.stop is not None and outcome.stop.kind == "until"
    assert outcome.stop.node == node
    assert node in session.pending_tasks
    assert all(t.state == "pending" for t in session.view().tasks)
    ok(session, "continue")
    assert session.state().value == expected_run(name)[0]


def test_task_node_picks_that_task_and_leaves_its_siblings_pending() -> None:
    session = session_for("fanout")
    ok(session, "restart")
    ok(session, "step")
    assert session.pending_tasks == ("b", "c")
    outcome = ok(session, "task c")
    assert outcome.stop is not None and outcome.stop.kind == "task"
    assert pending(session) == ("b",)
    assert session.state().value == {"trail": ["a"]}
    refused(session, "task c")
    ok(session, "task b")
    assert session.state().value == {"trail": ["a", "b", "c"]}


def test_restart_with_new_input_starts_a_new_thread() -> None:
    session = session_for("loop")
    ok(session, "restart")
    ok(session, "continue")
    first = session.thread_id
    ok(session, "restart {'count': 2}")
    assert session.thread_id != first
    assert session.input == {"count": 2}
    ok(session, "continue")
    assert session.state().value == {"count": 3, "status": "done after 3 attempts"}
    assert len(ok(session, "history").value) == 4  # input, __start__, one attempt, report


def test_restart_accepts_json_input() -> None:
    session = session_for("linear")
    ok(session, 'restart {"cur_id": "json", "logs": [], "unused": null, "flag": true}')
    assert session.input == {"cur_id": "json", "logs": [], "unused": None, "flag": True}
    refused(session, "restart {'cur_id': ")


def test_unknown_until_node_is_refused() -> None:
    session = session_for("linear")
    ok(session, "restart")
    assert "no node named 'nope'" in refused(session, "until nope").message


# -- exceptions --------------------------------------------------------------------------------


class Counter(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def flaky_graph(calls: dict[str, int]) -> Any:
    def prepare(state: Counter) -> dict[str, Any]:
        return {"log": ["prepare"]}

    def flaky(state: Counter) -> dict[str, Any]:
        calls["flaky"] = calls.get("flaky", 0) + 1
        if calls["flaky"] == 1:
            raise ValueError("flaky fails on its first call")
        return {"log": [f"flaky saw x={state['x']}"]}

    builder = StateGraph(Counter).add_node(prepare).add_node(flaky)
    builder.add_edge(START, "prepare").add_edge("prepare", "flaky")
    return builder.compile()


def test_an_exception_pauses_with_traceback_node_and_the_state_it_started_from() -> None:
    calls: dict[str, int] = {}
    session = Session(flaky_graph(calls), input={"x": 1})
    ok(session, "restart")
    before = len(ok(session, "history").value)
    outcome = ok(session, "continue")
    assert outcome.status == "error" and session.status == "error"
    stop = outcome.stop
    assert stop is not None and stop.kind == "exception" and stop.error is not None
    error = stop.error
    assert (error.node, error.error_type) == ("flaky", "ValueError")
    assert error.message == "flaky fails on its first call"
    assert 'raise ValueError("flaky fails on its first call")' in error.traceback
    assert "sgdebug/runtime" not in error.traceback
    assert error.state == {"x": 1, "log": ["prepare"]}
    assert session.state().value == {"x": 1, "log": ["prepare"]}  # nothing committed
    assert len(ok(session, "history").value) == before + 2  # __start__ and prepare only
    assert session.view().error == error
    assert "retry" in refused(session, "continue").message
    assert ok(session, "print error").value.args == ("flaky fails on its first call",)


def test_retry_runs_the_failed_step_again() -> None:
    calls: dict[str, int] = {}
    session = Session(flaky_graph(calls), input={"x": 1})
    ok(session, "restart")
    ok(session, "continue")
    outcome = ok(session, "retry")
    assert calls["flaky"] == 2
    assert outcome.status == "done"
    assert session.state().value == {"x": 1, "log": ["prepare", "flaky saw x=1"]}
    refused(session, "retry")


def test_edit_then_retry_runs_the_step_on_the_edited_state() -> None:
    calls: dict[str, int] = {}
    session = Session(flaky_graph(calls), input={"x": 1})
    ok(session, "restart")
    ok(session, "continue")
    ok(session, "set x = 42")
    assert session.status == "paused"
    ok(session, "retry")
    assert session.state().value["log"] == ["prepare", "flaky saw x=42"]


def test_abort_ends_the_run_and_history_stays() -> None:
    calls: dict[str, int] = {}
    session = Session(flaky_graph(calls), input={"x": 1})
    ok(session, "restart")
    ok(session, "continue")
    outcome = ok(session, "abort")
    assert outcome.status == "aborted"
    assert "restart" in refused(session, "step").message
    refused(session, "retry")
    assert len(ok(session, "history").value) == 3
    assert ok(session, "goto 2").status == "error"  # the failed step is still there
    ok(session, "goto 1")
    ok(session, "continue")  # a new branch: flaky's second call succeeds
    assert session.state().value["log"] == ["prepare", "flaky saw x=1"]


def test_with_exception_breaks_disabled_the_run_fails_but_the_session_survives() -> None:
    calls: dict[str, int] = {}
    session = Session(flaky_graph(calls), input={"x": 1})
    ok(session, "disable 0")
    ok(session, "restart")
    outcome = ok(session, "continue")
    assert outcome.status == "failed" and outcome.stop is not None
    assert outcome.stop.kind == "failed" and outcome.stop.error is not None
    assert outcome.stop.error.error_type == "ValueError"
    ok(session, "continue")  # the step runs again from the last snapshot, and passes
    assert session.status == "done"


def test_recursion_limit_fails_the_run_without_raising() -> None:
    module = load("loop")
    session = Session(module.graph, options=SessionOptions(recursion_limit=3))
    ok(session, "restart {'count': 0}")
    outcome = ok(session, "continue")
    assert outcome.status == "failed"
    assert outcome.stop is not None and outcome.stop.error is not None
    assert outcome.stop.error.error_type == "GraphRecursionError"


# -- interrupts ----------------------------------------------------------------------------


class Approval(TypedDict, total=False):
    request: str
    answer: Any
    log: Annotated[list[str], operator.add]


def approval_graph(parallel: bool = False) -> Any:
    def ask(state: Approval) -> dict[str, Any]:
        answer = interrupt({"question": f"approve {state['request']}?"})
        return {"answer": answer, "log": [f"ask got {answer!r}"]}

    def ask_again(state: Approval) -> dict[str, Any]:
        answer = interrupt("and this one?")
        return {"log": [f"ask_again got {answer!r}"]}

    builder = StateGraph(Approval).add_node(ask)
    builder.add_edge(START, "ask")
    if parallel:
        builder.add_node(ask_again).add_edge(START, "ask_again")
    return builder.compile()


def test_interrupt_is_shown_and_resume_answers_it() -> None:
    session = Session(approval_graph(), input={"request": "deploy"})
    ok(session, "restart")
    outcome = ok(session, "continue")
    assert outcome.status == "interrupted"
    assert outcome.stop is not None and outcome.stop.kind == "interrupt"
    assert [i.value for i in outcome.stop.interrupts] == [{"question": "approve deploy?"}]
    assert "approve deploy?" in outcome.message
    assert "resume" in refused(session, "continue").message
    finished = ok(session, "resume 'yes' + '!'")
    assert finished.status == "done"
    assert session.state().value["answer"] == "yes!"
    refused(session, "resume 'again'")


def test_resume_several_interrupts_by_id() -> None:
    session = Session(approval_graph(parallel=True), input={"request": "deploy"})
    ok(session, "restart")
    outcome = ok(session, "continue")
    assert len(session.interrupts) == 2
    assert outcome.stop is not None
    message = refused(session, "resume 'x'").message
    assert "2 interrupts wait for an answer: answer each by id" in message
    assert all(f"{i.id}: " in message for i in session.interrupts)  # (with what each asks)
    ids = {i.value if isinstance(i.value, str) else "ask": i.id for i in session.interrupts}
    answer = f"{{'{ids['ask']}': 'one', '{ids['and this one?']}': 'two'}}"
    ok(session, f"resume {answer}")
    assert session.status == "done"
    assert sorted(session.state().value["log"]) == ["ask got 'one'", "ask_again got 'two'"]


def test_bare_resume_answers_none() -> None:
    session = Session(approval_graph(), input={"request": "deploy"})
    ok(session, "restart")
    ok(session, "continue")
    ok(session, "resume")
    assert session.state().value["answer"] is None


# -- pausing a long run from another thread ---------------------------------------------------


def test_request_pause_stops_a_long_continue_at_the_next_superstep() -> None:
    graph = load("loop").build(iterations=2000).compile()
    session = Session(graph, input={"count": 0}, options=SessionOptions(recursion_limit=5000))
    ok(session, "restart")
    steps: list[Event] = []
    session.subscribe(lambda e: steps.append(e) if isinstance(e, Stepped) else None)
    result: dict[str, Outcome] = {}
    worker = threading.Thread(target=lambda: result.update(out=session.continue_()))
    worker.start()
    deadline = time.monotonic() + 30
    while len(steps) < 20 and time.monotonic() < deadline:
        time.sleep(0.001)
    assert session.status == "running"
    assert session.view().status in ("paused", "running")  # never blocks the caller
    session.request_pause()
    worker.join(30)
    outcome = result["out"]
    assert outcome.stop is not None and outcome.stop.kind == "pause"
    assert status(session) == "paused"
    count = session.state().value["count"]
    assert 20 <= count < 2000
    assert len(outcome.commits) == len(steps)
    ok(session, "continue")  # the stale request does not stop the next verb
    assert session.state().value == {"count": 2000, "status": "done after 2000 attempts"}


def test_request_pause_while_idle_is_ignored() -> None:
    session = session_for("linear")
    ok(session, "restart")
    session.request_pause()
    assert ok(session, "continue").status == "done"


# -- observers, compile-time breakpoints, reopening, storage -----------------------------------


def test_observers_see_steps_and_pauses_and_a_failing_observer_is_harmless() -> None:
    session = session_for("linear")
    events: list[Event] = []
    session.subscribe(events.append)

    def broken(event: Event) -> None:
        raise RuntimeError("observer bug")

    session.subscribe(broken)
    ok(session, "restart")
    ok(session, "step")
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "Started"
    assert isinstance(events[0], Started) and events[0].input == load("linear").EXAMPLE_INPUT
    assert "Stepped" in kinds and kinds[-1] == "Paused"
    last = events[-1]
    assert isinstance(last, Paused) and last.view.step == 1
    assert last.view.tasks[0].name == "node_1"


def test_compile_time_breakpoints_are_shown_and_honoured() -> None:
    module = load("linear")
    graph = module.build().compile(interrupt_before=["node_2"], interrupt_after=["node_1"])
    session = Session(Target(graph, vars(module), "linear"), input=module.EXAMPLE_INPUT)
    breaks = ok(session, "breaks").value
    assert [(b.kind, b.target, b.origin) for b in breaks[1:]] == [
        ("before", "node_2", "compile"),
        ("after", "node_1", "compile"),
    ]
    assert "from compile()" in _text(session, "breaks")
    ok(session, "restart")
    first = ok(session, "continue")
    assert first.stop is not None and first.stop.kind == "breakpoint"
    assert {h.breakpoint.number for h in first.stop.hits} == {1, 2}  # after node_1 = before 2
    assert session.pending_tasks == ("node_2",)
    assert ok(session, "continue").status == "done"


def test_compile_time_star_breakpoints_stop_before_every_node() -> None:
    module = load("linear")
    session = Session(module.build().compile(interrupt_before="*"), input=module.EXAMPLE_INPUT)
    ok(session, "restart")
    stops = []
    while ok(session, "continue").status == "paused":
        stops.append(session.pending_tasks)
    assert stops == [("node_1",), ("node_2",)]


def _text(session: Session, line: str) -> str:
    from sgdebug.debugger import format_outcome

    outcome = run_line(session, line)
    assert outcome is not None
    return format_outcome(outcome)


def test_attach_reopens_a_thread_where_it_stopped() -> None:
    saver = InMemorySaver()
    module = load("loop")
    first = Session(module.graph, input=module.EXAMPLE_INPUT, saver=saver)
    ok(first, "restart")
    ok(first, "break before attempt if state['count'] == 2")
    ok(first, "continue")
    thread = first.thread_id
    assert thread is not None
    breaks = tuple(Breakpoint.from_dict(b.to_dict()) for b in first.breakpoints)
    second = Session(module.graph, saver=saver, breakpoints=breaks)
    outcome = second.attach(thread, input=module.EXAMPLE_INPUT)
    assert outcome.ok and second.status == "paused"
    assert second.state().value == first.state().value == {"count": 2, "status": "attempt 2"}
    assert second.pending_tasks == ("attempt",)
    assert second.breakpoints == first.breakpoints
    ok(second, "continue")
    assert second.state().value == {"count": 3, "status": "done after 3 attempts"}
    assert second.attach("no-such-thread").ok is False


def test_attach_at_a_failed_step_offers_retry() -> None:
    saver = InMemorySaver()
    calls: dict[str, int] = {}
    first = Session(flaky_graph(calls), input={"x": 1}, saver=saver)
    ok(first, "restart")
    ok(first, "continue")
    assert first.thread_id is not None
    second = Session(flaky_graph(calls), saver=saver)
    assert second.attach(first.thread_id).status == "error"
    ok(second, "retry")
    assert second.state().value == {"x": 1, "log": ["prepare", "flaky saw x=1"]}


class FakeStore:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def save_input(self, value: Any) -> None:
        self.calls.append(("input", value))

    def save_thread(self, thread_id: str) -> None:
        self.calls.append(("thread", thread_id))

    def save_breakpoints(self, breakpoints: Any) -> None:
        self.calls.append(("breakpoints", [dict(b) for b in breakpoints]))


def test_the_store_gets_input_thread_and_breakpoints() -> None:
    store = FakeStore()
    session = session_for("linear", store=store)
    ok(session, "restart")
    assert store.calls[:2] == [("input", load("linear").EXAMPLE_INPUT), ("thread", "thread-1")]
    ok(session, "break after node_1 if len(state['logs']) > 1")
    kind, saved = store.calls[-1]
    assert kind == "breakpoints"
    assert saved[-1]["kind"] == "after" and saved[-1]["target"] == "node_1"
    assert [Breakpoint.from_dict(b) for b in saved] == list(session.breakpoints)
    count = len(store.calls)
    ok(session, "state")
    assert len(store.calls) == count  # queries save nothing


def test_a_failing_store_becomes_a_note() -> None:
    class Broken(FakeStore):
        def save_breakpoints(self, breakpoints: Any) -> None:
            raise OSError("disk full")

    session = session_for("linear", store=Broken())
    outcome = ok(session, "break before node_1")
    assert any("disk full" in note for note in outcome.notes)


def test_a_sqlite_saver_holds_the_history(tmp_path: Path) -> None:
    saver = SqliteSaver.from_path(tmp_path / "session.db")
    session = session_for("map_reduce", saver=saver)
    ok(session, "restart")
    ok(session, "continue")
    assert session.state().value == expected_run("map_reduce")[0]
    assert len(ok(session, "history").value) == expected_run("map_reduce")[1] + 1
    saver.close()


def test_quit_closes_the_session() -> None:
    session = session_for("linear")
    ok(session, "restart")
    assert ok(session, "quit").status == "closed"
    assert "closed" in refused(session, "step").message


def test_ctrl_c_inside_a_node_pauses_and_the_step_runs_again() -> None:
    calls = {"n": 0}

    def slow(state: Counter) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt
        return {"x": state["x"] + 1}

    session = Session(StateGraph(Counter).add_node(slow).add_edge(START, "slow").compile())
    ok(session, "restart {'x': 1}")
    outcome = ok(session, "continue")
    assert outcome.status == "paused" and outcome.stop is not None
    assert outcome.stop.kind == "pause" and "Ctrl-C" in outcome.message
    ok(session, "continue")
    assert session.state().value == {"x": 2, "log": []}


def test_a_run_that_cannot_start_is_refused_and_the_session_stays_idle() -> None:
    session = Session(load("linear").graph, options=SessionOptions(recursion_limit=0))
    outcome = refused(session, "restart {'cur_id': 'x'}")
    assert "recursion_limit must be at least 1" in outcome.message
    assert session.status == "idle" and session.thread_id is None


def test_task_stepping_into_an_interrupt() -> None:
    session = Session(approval_graph(parallel=True), input={"request": "r"})
    ok(session, "restart")
    ok(session, "step")
    assert session.pending_tasks == ("ask", "ask_again")
    outcome = ok(session, "task ask")
    assert outcome.status == "interrupted"
    assert [i.value for i in session.interrupts] == [{"question": "approve r?"}]
