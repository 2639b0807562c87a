"""Programs only LangGraph can run, debugged on the langgraph engine through a Session.

Each program is written with LangGraph's (and LangChain's) imports, as a user writes it: a
tool-calling agent with ``ToolNode``, a node with a ``RetryPolicy``, a ``Runnable`` as a
node, subgraphs (with an ``interrupt()`` or an error inside them), a graph compiled with
the user's own checkpointer, a node that reads its ``thread_id``. The expectations are what
LangGraph itself gives on the same program.
"""

from __future__ import annotations

import itertools
import logging
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, RetryPolicy, Send, interrupt

from sgdebug.debugger import Errored, Event, Session, SessionOptions, TaskInfo, TaskRan
from sgdebug.debugger.frame import current_frame
from sgdebug.inspect.tasks import error_text
from sgdebug.runtime import StateSnapshot

from .helpers import ok, refused


def session_on(graph: Any, input: Any) -> tuple[Session, list[Event]]:
    """A session on ``graph`` (deterministic thread ids) and the events it reports."""
    counter = itertools.count(1)
    options = SessionOptions(thread_ids=lambda: f"run-{next(counter)}")
    session = Session(graph, input=input, options=options)
    events: list[Event] = []
    session.subscribe(events.append)
    return session, events


def pending(session: Session) -> tuple[str, ...]:
    return tuple(t.name for t in session.view().tasks)


def ran(events: Sequence[Event]) -> list[TaskInfo]:
    """The tasks the session heard finish, in order."""
    return [e.task for e in events if isinstance(e, TaskRan)]


class Log(TypedDict):
    topic: str
    log: Annotated[list[str], operator.add]


# -- an agent: chat model, ToolNode, tools_condition -----------------------------------------


class ToolCallingFakeModel(FakeMessagesListChatModel):
    """LangChain's fake chat model, answering in turn with its ``responses``, tools bound."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> ToolCallingFakeModel:
        return self


@tool
def get_weather(city: str) -> str:
    """The weather in ``city``."""
    return f"sunny in {city}"


WEATHER_CALL = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call-1"}


def agent_graph() -> Any:
    model = ToolCallingFakeModel(
        responses=[AIMessage("", tool_calls=[WEATHER_CALL]), AIMessage("It is sunny in Paris.")]
    ).bind_tools([get_weather])

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([get_weather]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile()


AGENT_INPUT = {"messages": [HumanMessage("What is the weather in Paris?")]}


def last_message(session: Session) -> BaseMessage:
    messages = session.view().values["messages"]
    assert isinstance(messages[-1], BaseMessage)
    return messages[-1]


def test_an_agent_steps_through_the_tool_call_the_tools_and_the_answer() -> None:
    session, _ = session_on(agent_graph(), AGENT_INPUT)
    ok(session, "restart")
    ok(session, "step")
    assert pending(session) == ("agent",)

    ok(session, "step")
    call = last_message(session)
    assert isinstance(call, AIMessage)
    assert [(c["name"], c["args"]) for c in call.tool_calls] == [("get_weather", {"city": "Paris"})]
    assert pending(session) == ("tools",)

    ok(session, "step")
    result = last_message(session)
    assert isinstance(result, ToolMessage)
    assert (result.content, result.tool_call_id) == ("sunny in Paris", "call-1")
    commit = session.view().last_commit
    assert commit is not None and commit.tasks == ("tools",)
    assert pending(session) == ("agent",)

    finished = ok(session, "step")
    assert finished.status == "done"
    assert last_message(session).content == "It is sunny in Paris."


def test_break_before_tools_shows_the_pending_tool_call_and_history_lists_the_steps() -> None:
    session, _ = session_on(agent_graph(), AGENT_INPUT)
    ok(session, "restart")
    ok(session, "break before tools")

    stop = ok(session, "continue")
    assert stop.stop is not None and stop.stop.kind == "breakpoint"
    (task,) = session.view().tasks
    assert task.name == "tools"
    asked = task.input["messages"][-1]
    assert [(c["name"], c["args"], c["id"]) for c in asked.tool_calls] == [
        ("get_weather", {"city": "Paris"}, "call-1")
    ]

    assert ok(session, "continue").status == "done"
    entries = ok(session, "history").value
    assert [e.ran for e in entries if e.source == "loop"] == [
        ("__start__",), ("agent",), ("tools",), ("agent",)
    ]  # fmt: skip
    assert entries[-1].current and entries[-1].head


# -- LangGraph's retry inside the step; a Runnable as a node ---------------------------------


def test_a_retry_policy_retries_inside_the_step_so_continue_reaches_the_end() -> None:
    attempts: list[str] = []

    def fetch(state: Log) -> dict[str, Any]:
        attempts.append(state["topic"])
        if len(attempts) == 1:
            raise ConnectionError("network blip")
        return {"log": ["fetched"]}

    builder = StateGraph(Log)
    policy = RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)
    builder.add_node("fetch", fetch, retry_policy=policy)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", END)
    session, events = session_on(builder.compile(), {"topic": "news", "log": []})
    ok(session, "restart")

    finished = ok(session, "continue")
    assert finished.status == "done"
    assert session.view().values == {"topic": "news", "log": ["fetched"]}
    assert attempts == ["news", "news"]
    assert not [e for e in events if isinstance(e, Errored)]
    assert [(t.name, t.error) for t in ran(events)] == [("fetch", None)]


def test_a_runnable_lambda_node_is_stepped_like_any_node() -> None:
    def twice(state: Log) -> dict[str, Any]:
        return {"log": [state["topic"] * 2]}

    double: RunnableLambda[Log, dict[str, Any]] = RunnableLambda(twice)
    builder = StateGraph(Log)
    builder.add_node("double", double)
    builder.add_edge(START, "double")
    session, _ = session_on(builder.compile(), {"topic": "ab", "log": []})
    ok(session, "restart")
    ok(session, "step")

    (task,) = session.view().tasks
    assert (task.name, task.input) == ("double", {"topic": "ab", "log": []})
    assert ok(session, "step").status == "done"
    commit = session.view().last_commit
    assert commit is not None
    assert [(c.channel, [w.task_name for w in c.writes], c.new) for c in commit.changes] == [
        ("log", ["double"], ["abab"])
    ]


# -- subgraphs ------------------------------------------------------------------------------


def review_graph() -> Any:
    """``prepare`` -> ``review`` (a subgraph: ``draft`` -> ``ask``, which interrupts) ->
    ``publish``."""

    def draft(state: Log) -> dict[str, Any]:
        return {"log": [f"draft {state['topic']}"]}

    def ask(state: Log) -> dict[str, Any]:
        answer = interrupt(f"publish {state['topic']}?")
        return {"log": [f"answer {answer}"]}

    inner = StateGraph(Log)
    inner.add_node("draft", draft)
    inner.add_node("ask", ask)
    inner.add_edge(START, "draft")
    inner.add_edge("draft", "ask")
    outer = StateGraph(Log)
    outer.add_node("prepare", lambda state: {"log": ["prepare"]})
    outer.add_node("review", inner.compile())
    outer.add_node("publish", lambda state: {"log": ["publish"]})
    outer.add_edge(START, "prepare")
    outer.add_edge("prepare", "review")
    outer.add_edge("review", "publish")
    return outer


REVIEW_INPUT = {"topic": "launch", "log": []}


def langgraph_answers(builder: Any, answer: Any) -> Any:
    """What plain LangGraph ends with: ``invoke``, then ``Command(resume=answer)``."""
    graph = builder.compile(checkpointer=InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": "plain"}}
    graph.invoke(REVIEW_INPUT, config)
    return graph.invoke(Command(resume=answer), config)


def test_an_interrupt_inside_a_subgraph_stops_the_run_and_resume_finishes_it() -> None:
    session, _ = session_on(review_graph().compile(), REVIEW_INPUT)
    ok(session, "restart")

    stopped = ok(session, "continue")
    assert stopped.status == "interrupted"
    view = session.view()
    assert [i.value for i in view.interrupts] == ["publish launch?"]
    assert [(t.name, t.state) for t in view.tasks] == [("review", "interrupted")]

    assert ok(session, "resume 'yes'").status == "done"
    assert session.view().values == langgraph_answers(review_graph(), "yes")
    assert session.view().values["log"][-2:] == ["answer yes", "publish"]


def test_a_task_stopped_inside_its_subgraph_shows_the_subgraphs_own_state() -> None:
    session, _ = session_on(review_graph().compile(), REVIEW_INPUT)
    ok(session, "restart")
    ok(session, "until review")
    (before,) = session.view().tasks
    assert before.name == "review" and before.subgraph is None  # not started yet

    ok(session, "continue")
    (task,) = session.view().tasks
    inner = task.subgraph
    assert inner is not None
    assert inner.values == {"topic": "launch", "log": ["prepare", "draft launch"]}
    assert inner.next == ("ask",)
    assert [i.value for i in inner.interrupts] == ["publish launch?"]


def test_the_tasks_run_inside_a_subgraph_are_reported_with_their_updates() -> None:
    session, events = session_on(review_graph().compile(), REVIEW_INPUT)
    ok(session, "restart")
    ok(session, "continue")
    ok(session, "resume 'yes'")

    inner = [t for t in ran(events) if t.path]
    assert [(t.name, t.writes) for t in inner if not t.interrupts] == [
        ("review/draft", (("log", ["draft launch"]),)),
        ("review/ask", (("log", ["answer yes"]),)),
    ]
    assert all(len(t.path) == 1 and str(t.path[0]).startswith("review:") for t in inner)
    asked = next(t for t in inner if t.interrupts)
    assert (asked.name, [i.value for i in asked.interrupts]) == ("review/ask", ["publish launch?"])
    # the parent's ``review`` task: stopped by the interrupt, then run again by the answer
    assert [t.name for t in ran(events) if not t.path] == ["prepare", "review", "review", "publish"]


def test_what_ran_inside_a_subgraph_and_where_it_stands_are_in_the_outcome() -> None:
    session, _ = session_on(review_graph().compile(), REVIEW_INPUT)
    ok(session, "restart")

    stopped = ok(session, "continue")

    assert stopped.ran == (  # what ran (printed before the message), then where it stands
        "in subgraph review: draft wrote log",
        "in subgraph review: ask called interrupt()",
    )
    assert stopped.notes == (
        "subgraph review stands before ask: {'topic': 'launch', 'log': ['prepare', 'draft "
        "launch']}",
    )
    assert ok(session, "resume 'yes'").ran == ("in subgraph review: ask wrote log",)


def nested_graph(failures: list[bool]) -> Any:
    """``outer`` runs subgraph ``mid`` (``draft`` -> subgraph ``leaf``: ``check``, which
    raises while ``failures`` says so)."""

    def check(state: Log) -> dict[str, Any]:
        if failures and failures.pop(0):
            raise ConnectionError("check service down")
        return {"log": ["checked"]}

    leaf = StateGraph(Log)
    leaf.add_node("check", check)
    leaf.add_edge(START, "check")
    mid = StateGraph(Log)
    mid.add_node("draft", lambda state: {"log": ["draft"]})
    mid.add_node("leaf", leaf.compile())
    mid.add_edge(START, "draft")
    mid.add_edge("draft", "leaf")
    outer = StateGraph(Log)
    outer.add_node("mid", mid.compile())
    outer.add_edge(START, "mid")
    return outer


def test_an_error_in_a_nested_subgraph_shows_each_subgraphs_state() -> None:
    session, events = session_on(nested_graph([True]).compile(), REVIEW_INPUT)
    ok(session, "restart")

    assert ok(session, "continue").status == "error"
    (task,) = session.view().tasks
    mid = task.subgraph
    assert mid is not None and (mid.values["log"], mid.next) == (["draft"], ("leaf",))
    (leaf_task,) = mid.tasks
    assert "check service down" in str(leaf_task.error)
    assert isinstance(leaf_task.state, StateSnapshot) and leaf_task.state.next == ("check",)
    failed = [(t.name, len(t.path)) for t in ran(events) if t.error is not None]
    assert failed == [("mid/leaf/check", 2), ("mid/leaf", 1), ("mid", 0)]
    assert [t.name for t in ran(events) if t.error is None] == ["mid/draft"]


def test_a_failed_tasks_row_shows_langgraphs_error_text_as_the_native_engine_does() -> None:
    def plan(state: Log) -> dict[str, Any]:
        return {"log": [state["topic"].upper()]}

    builder = StateGraph(Log)
    builder.add_node("plan", plan)
    builder.add_edge(START, "plan")
    session, _ = session_on(builder.compile(), {"log": []})
    ok(session, "restart")

    assert ok(session, "continue").status == "error"
    (row,) = current_frame(session).tasks
    # LangGraph's snapshot holds repr(error): shown as the exception itself would be
    # (it read "str: ..." once, then "KeyError('topic')")
    assert (row.status, row.error) == ("error", "KeyError: 'topic'")
    assert row.error == error_text(KeyError("topic"))


def test_retry_after_an_error_in_a_nested_subgraph_ends_as_langgraph_does() -> None:
    session, _ = session_on(nested_graph([True]).compile(), REVIEW_INPUT)
    ok(session, "restart")
    ok(session, "continue")

    assert ok(session, "retry").status == "done"
    plain = nested_graph([True]).compile(checkpointer=InMemorySaver())
    config: RunnableConfig = {"configurable": {"thread_id": "plain"}}
    with pytest.raises(ConnectionError):
        plain.invoke(REVIEW_INPUT, config)
    assert session.view().values == plain.invoke(None, config)


# -- the user's own checkpointer: reopening a thread -----------------------------------------


class Counter(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def counter_graph(saver: InMemorySaver) -> Any:
    builder = StateGraph(Counter)
    builder.add_node("inc", lambda s: {"n": s["n"] + 1, "log": [f"inc {s['n']}"]})
    builder.add_node("double", lambda s: {"n": s["n"] * 2, "log": [f"double {s['n']}"]})
    builder.add_edge(START, "inc")
    builder.add_edge("inc", "double")
    return builder.compile(checkpointer=saver)


T1: RunnableConfig = {"configurable": {"thread_id": "t1"}}


def test_attach_opens_a_thread_the_user_ran_before_with_its_history() -> None:
    graph = counter_graph(InMemorySaver())
    graph.invoke({"n": 1, "log": []}, T1)
    session, _ = session_on(graph, None)

    attached = session.attach("t1")
    assert attached.ok and attached.status == "done"
    assert session.view().values == {"n": 4, "log": ["inc 1", "double 2"]}
    entries = ok(session, "history").value
    stored = list(graph.get_state_history(T1))[::-1]
    assert [e.checkpoint_id for e in entries] == [
        s.config["configurable"]["checkpoint_id"] for s in stored
    ]
    assert [e.ran for e in entries] == [(), ("__start__",), ("inc",), ("double",)]
    assert entries[-1].current


def attached_t1() -> tuple[Any, Session]:
    """The user's graph, run once on thread ``t1``, and a session attached to that thread."""
    graph = counter_graph(InMemorySaver())
    graph.invoke({"n": 1, "log": []}, T1)
    session, _ = session_on(graph, None)
    assert session.attach("t1").ok
    return graph, session


def test_goto_an_old_snapshot_of_an_attached_thread_and_continue_forks_it() -> None:
    graph, session = attached_t1()
    ok(session, "goto 2")
    assert pending(session) == ("double",)

    assert ok(session, "continue").status == "done"
    entries = ok(session, "history").value
    assert [(e.index, e.source, e.parent_index, e.ran) for e in entries[4:]] == [
        (4, "fork", 2, ()), (5, "loop", 4, ("double",))
    ]  # fmt: skip
    assert entries[3].head and entries[5].current and entries[5].head
    assert session.view().values == {"n": 4, "log": ["inc 1", "double 2"]}
    newest = graph.get_state(T1).config["configurable"]["checkpoint_id"]
    assert session.view().checkpoint_id == newest  # the fork is the thread's newest state


def test_an_edit_at_an_old_snapshot_of_an_attached_thread_starts_a_branch() -> None:
    graph, session = attached_t1()
    ok(session, "goto 2")
    ok(session, "set n = 10")

    assert ok(session, "continue").status == "done"
    assert session.view().values == {"n": 20, "log": ["inc 1", "double 10"]}
    assert ok(session, "show 3").value.values["n"] == 4  # the old branch stays
    entries = ok(session, "history").value
    assert [(e.source, e.parent_index) for e in entries[4:]] == [("update", 2), ("loop", 4)]
    assert graph.get_state(T1).values["n"] == 20  # the branch is the thread's newest state


def test_attaching_to_a_thread_that_does_not_exist_names_the_stored_threads() -> None:
    graph = counter_graph(InMemorySaver())
    graph.invoke({"n": 1, "log": []}, T1)
    graph.invoke({"n": 5, "log": []}, {"configurable": {"thread_id": "t2"}})
    session, _ = session_on(graph, None)

    refusal = session.attach("t3")
    assert not refusal.ok
    assert "'t3'" in refusal.message and "t1" in refusal.message and "t2" in refusal.message
    assert refused(session, "continue").status == "idle"


# -- the config LangGraph gives a node --------------------------------------------------------


def test_a_node_reading_its_thread_id_gets_the_sessions_thread() -> None:
    def whoami(state: Log, config: RunnableConfig) -> dict[str, Any]:
        return {"log": [config["configurable"]["thread_id"]]}

    builder = StateGraph(Log)
    builder.add_node("whoami", whoami)
    builder.add_edge(START, "whoami")
    session, _ = session_on(builder.compile(), {"topic": "x", "log": []})
    ok(session, "restart")

    assert ok(session, "continue").status == "done"
    assert session.view().values["log"] == ["run-1"]
    assert session.view().thread_id == "run-1"


def _send_program(arg_type: type, checkpointer: Any = None) -> Any:
    """START sends ``arg_type(doc)`` per doc to ``read``, which appends it."""

    def fan(state: Docs) -> list[Send]:
        return [Send("read", arg_type(d)) for d in state["docs"]]

    def read(arg: Any) -> dict[str, Any]:
        return {"read": [arg.doc]}

    builder: Any = StateGraph(Docs)  # (``read`` takes the Send's argument, not Docs)
    builder.add_node("read", read)
    builder.add_conditional_edges(START, fan, ["read"])
    return builder.compile(checkpointer=checkpointer)


class Docs(TypedDict):
    docs: list[str]
    read: Annotated[list[str], operator.add]


@dataclass
class _LentArg:
    doc: str


@dataclass
class _OwnArg:
    doc: str


def test_a_send_argument_type_read_back_from_the_lent_saver_logs_no_langgraph_notice(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The session lends a graph without a checkpointer LangGraph's InMemorySaver; reading
    a Send's dataclass back from it made LangGraph log "Deserializing unregistered type"
    into the user's terminal, about a saver their program never had."""
    notice = "Deserializing unregistered type"
    with caplog.at_level(logging.WARNING):
        session, _ = session_on(_send_program(_LentArg), {"docs": ["a", "b"]})
        ok(session, "restart")
        ok(session, "step")
        assert [t.input for t in session.view().tasks] == [_LentArg("a"), _LentArg("b")]
        ok(session, "continue")
    assert session.view().values["read"] == ["a", "b"]
    assert not [r for r in caplog.records if notice in r.getMessage()]
    # The same read from a saver of the program's own, the filter set aside (it stays
    # for the process once lent): LangGraph's notice does come (the check above can fail).
    log = logging.getLogger("langgraph.checkpoint.serde.jsonplus")
    kept = list(log.filters)
    try:
        for f in kept:
            log.removeFilter(f)
        with caplog.at_level(logging.WARNING):
            session, _ = session_on(_send_program(_OwnArg, InMemorySaver()), {"docs": ["a"]})
            ok(session, "restart")
            ok(session, "continue")
    finally:
        for f in kept:
            log.addFilter(f)
    assert [r for r in caplog.records if notice in r.getMessage()]
