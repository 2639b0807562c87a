"""The command language: parsing (and its errors), help, availability, completion, print."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from sgdebug.debugger import (
    COMMANDS,
    ParseError,
    Session,
    available,
    complete,
    help_text,
    lookup,
    parse,
    run_line,
)
from sgdebug.runtime import START, StateGraph, interrupt

from .helpers import ok
from .helpers import sample_session as session_for


def names(session: Session) -> set[str]:
    return {spec.name for spec in available(session)}


# -- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("", "expected a command"),
        (":", "expected a command"),
        ("stpe", "unknown command 'stpe'; did you mean 'step'?"),
        ("step abc", "step: expected a number N, got 'abc' (usage: step [N])"),
        ("step 1 2", "step: unexpected '2'"),
        ("break", "break: expected 'before' or 'after'"),
        ("break middle a", "break: expected 'before' or 'after', got 'middle'"),
        ("break before", "break: expected a node name NODE"),
        ("break before a when x", "break: expected 'if', got 'when'"),
        ("break before a if", "break: expected a Python expression EXPR after 'if'"),
        ("tbreak after", "tbreak: expected a node name NODE"),
        ("watch", "watch: expected a channel name CHANNEL (usage: watch CHANNEL [if EXPR])"),
        ("set", "set: expected a channel name KEY"),
        ("set count 5", "set: expected '=', got '5' (usage: set KEY = EXPR)"),
        ("set count =", "set: expected a Python expression EXPR after '='"),
        ("update", "update: expected a Python expression DICT"),
        ("update {'a': 1} as", "update: expected a node name NODE after 'as'"),
        ("update {'a': 1} as a b", "update: unexpected 'b'"),
        ("delete", "delete: expected a number N or 'all'"),
        ("delete some", "delete: expected a number N or 'all', got 'some'"),
        ("disable x", "disable: expected a number N, got 'x'"),
        ("goto", "goto: expected a snapshot (number from `history`, or checkpoint id) SNAP"),
        ("until", "until: expected a node name NODE"),
        ("print", "print: expected a Python expression EXPR"),
        ("diff 1 2 3", "diff: unexpected '3'"),
        ("continue now", "continue: unexpected 'now'"),
        ("help nosuch", "unknown command 'nosuch'"),
    ],
)
def test_parse_errors_say_what_was_expected(line: str, expected: str) -> None:
    with pytest.raises(ParseError) as info:
        parsed = parse(line)
        if parsed.spec.name == "help":  # help checks its argument when it runs
            help_text(parsed.args.get("command"))
    assert expected in str(info.value)


def test_run_line_turns_parse_errors_into_refusals() -> None:
    session = session_for("linear")
    outcome = run_line(session, "step abc")
    assert outcome is not None and not outcome.ok
    assert outcome.message.startswith("step: expected a number N")
    assert run_line(session, "   ") is None
    assert run_line(session, "# a comment") is None


@pytest.mark.parametrize(
    ("line", "args"),
    [
        ("s", {}),
        ("step 3", {"count": 3}),
        ("b before node_1 if state['x'] if True else False", {}),
        ("update {'a': 'as'} as node_1", {"values": "{'a': 'as'}", "as_node": "node_1"}),
        ("update dict(a=1, b=[1, 2])", {"values": "dict(a=1, b=[1, 2])"}),
        ("update {'a': (x for x in 'as')}", {"values": "{'a': (x for x in 'as')}"}),
        ("set count=1 + 2", {"key": "count", "value": "1 + 2"}),
        ("set 'my key' = 'a = b'", {"key": "my key", "value": "'a = b'"}),
        ("watch logs if len(new) > 2", {"channel": "logs", "condition": "len(new) > 2"}),
        ("delete all", {"number": "all"}),
        ("delete 3", {"number": 3}),
        ("diff 1 2", {"a": "1", "b": "2"}),
        ("p state['logs'][-1]", {"expr": "state['logs'][-1]"}),
        ("restart {'count': 1}", {"input": "{'count': 1}"}),
        (":restart {'count': 1}", {"input": "{'count': 1}"}),  # the TUI's `:` typed twice
        (": step 3", {"count": 3}),
        ("resume", {}),
    ],
)
def test_parse_reads_arguments(line: str, args: dict[str, Any]) -> None:
    parsed = parse(line)
    for key, value in args.items():
        assert parsed.args[key] == value
    if line.startswith("b before"):
        assert parsed.args["condition"] == "state['x'] if True else False"


def test_aliases_name_the_same_commands() -> None:
    for alias, name in [
        ("s", "step"),
        ("c", "continue"),
        ("b", "break"),
        ("p", "print"),
        ("q", "quit"),
        ("t", "task"),
        ("start", "restart"),
        ("?", "help"),
    ]:
        assert lookup(alias).name == name  # fmt: skip
    words = [w for spec in COMMANDS for w in spec.words]
    assert len(words) == len(set(words))
    keys = [spec.key for spec in COMMANDS if spec.key]
    assert len(keys) == len(set(keys))


# -- help -----------------------------------------------------------------------------------


def test_help_lists_every_command_and_explains_each() -> None:
    session = session_for("linear")
    listing = ok(session, "help").value
    required = [
        *("step", "task", "continue", "until", "break", "watch", "tbreak", "delete"),
        *("disable", "enable", "breaks", "state", "print", "set", "update", "tasks"),
        *("diff", "history", "goto", "resume", "restart", "graph", "help", "quit"),
    ]
    for name in required:
        spec = lookup(name)
        assert spec.usage in listing
        text = ok(session, f"help {name}").value
        assert text.startswith(f"usage: {spec.usage}")
        assert spec.help in text and spec.summary in text
    assert "usage: step [N]" in ok(session, "help s").value
    assert lookup("break").usage == "break before|after NODE [if EXPR]"
    assert lookup("update").usage == "update DICT [as NODE]"
    assert lookup("set").usage == "set KEY = EXPR"
    assert lookup("diff").usage == "diff [SNAP] [SNAP]"


# -- availability ---------------------------------------------------------------------------


class Ask(TypedDict, total=False):
    answer: Any
    log: Annotated[list[str], operator.add]


def ask_graph() -> Any:
    def ask(state: Ask) -> dict[str, Any]:
        return {"answer": interrupt("ok?")}

    def boom(state: Ask) -> dict[str, Any]:
        raise RuntimeError("boom")

    builder = StateGraph(Ask).add_node(ask).add_node(boom)
    builder.add_edge(START, "ask").add_edge("ask", "boom")
    return builder.compile()


def test_available_follows_the_session() -> None:
    session = Session(ask_graph(), input={})
    idle = names(session)
    assert {"restart", "break", "watch", "help", "print", "graph", "quit"} <= idle
    assert not idle & {"step", "task", "continue", "resume", "retry", "state", "history"}
    ok(session, "restart")
    paused = names(session)
    assert {"step", "task", "continue", "until", "state", "set", "history", "abort"} <= paused
    assert not paused & {"resume", "retry"}
    ok(session, "continue")
    assert session.status == "interrupted"
    interrupted = names(session)
    assert "resume" in interrupted
    assert not interrupted & {"step", "task", "continue", "until", "retry"}
    refusal = run_line(session, "task")
    assert refusal is not None and not refusal.ok
    assert refusal.message == "task: the graph waits for an answer: `resume EXPR`"
    assert ok(session, "resume 'yes'").status == "error"
    failed = names(session)
    assert {"retry", "abort", "set", "update"} <= failed
    assert not failed & {"resume", "step", "task", "continue"}
    ok(session, "abort")
    assert not names(session) & {"step", "task", "retry", "resume", "abort"}
    ok(session, "quit")
    assert names(session) == set()


def test_task_is_available_only_while_tasks_are_pending() -> None:
    session = session_for("linear")
    assert not lookup("task").available(session)
    ok(session, "restart")
    assert lookup("task").available(session)
    ok(session, "continue")
    assert session.status == "done"
    assert not lookup("task").available(session)
    assert "the run finished" in str(lookup("task").unavailable_reason(session))


# -- completion -----------------------------------------------------------------------------


def test_completion_offers_commands_nodes_channels_snapshots_and_keywords() -> None:
    session = session_for("linear")
    assert complete(session, "st") == ["st", "start", "state", "step"]
    assert complete(session, "break ") == ["before", "after"]
    assert complete(session, "break before ") == ["node_1", "node_2", "*"]
    assert complete(session, "break before node_1 ") == ["if"]
    assert complete(session, "b after no") == ["node_1", "node_2"]
    assert complete(session, "watch ") == ["cur_id", "logs"]
    assert complete(session, "set l") == ["logs"]
    assert complete(session, "set logs ") == ["="]
    assert complete(session, "update {'logs': []} ") == ["as"]
    assert complete(session, "update {'logs': []} as ") == ["node_1", "node_2"]
    assert "continue" in complete(session, "help ")
    assert complete(session, "delete ") == ["0", "all"]
    ok(session, "restart")
    ok(session, "step")
    assert complete(session, "task ") == ["node_1"]
    assert complete(session, "goto ") == ["1", "0"]
    assert complete(session, "nosuch ") == []


# -- expressions ----------------------------------------------------------------------------


def test_print_sees_state_snapshot_tasks_graph_and_module_globals() -> None:
    session = session_for("linear")
    assert ok(session, "p node_1.__name__").value == "node_1"  # a module global
    ok(session, "restart")
    ok(session, "step")
    assert ok(session, "print state['cur_id']").value == "request-7"
    assert ok(session, "print snapshot.next").value == ("node_1",)
    assert ok(session, "print [t.name for t in tasks]").value == ["node_1"]
    assert ok(session, "print sorted(graph.builder.nodes)").value == ["node_1", "node_2"]
    assert ok(session, "print State.__name__").value == "State"
    bad = run_line(session, "print state['nope']")
    assert bad is not None and not bad.ok and bad.message == "KeyError: 'nope'"
    syntax = run_line(session, "print state[")
    assert syntax is not None and not syntax.ok and "SyntaxError" in syntax.message


def test_printing_a_copy_never_changes_the_run() -> None:
    session = session_for("linear")
    ok(session, "restart")
    ok(session, "step")
    ok(session, "print state['logs'].append('sneaky')")
    assert ok(session, "state").value["logs"] == ["received request-7"]


def test_unavailable_commands_are_refused_with_the_reason() -> None:
    session = session_for("linear")
    outcome = run_line(session, "step")
    assert outcome is not None and not outcome.ok
    assert outcome.message == "step: no run yet: `restart [INPUT]` starts one"
    assert outcome.status == "idle"


def test_headless_text_shows_refusals_results_and_tracebacks() -> None:
    from sgdebug.debugger import format_outcome

    session = session_for("linear")
    refusal = run_line(session, "step")
    assert refusal is not None
    assert format_outcome(refusal) == "*** step: no run yet: `restart [INPUT]` starts one"
    ok(session, "restart")
    assert "[pending] __start__" in format_outcome(ok(session, "tasks"))
    assert format_outcome(ok(session, "p 1 + 1")) == "2"
    ok(session, "step")
    assert "logs = ['received request-7']" in format_outcome(ok(session, "state"))
    failing = Session(ask_graph(), input={})
    ok(failing, "restart")
    ok(failing, "continue")
    text = format_outcome(ok(failing, "resume 1"))
    assert "Node 'boom' raised RuntimeError: boom" in text
    assert 'raise RuntimeError("boom")' in text
