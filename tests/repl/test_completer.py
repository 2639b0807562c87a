"""Completion of command words, node, channel and snapshot names, keywords and Python."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from prompt_toolkit.completion import CompleteEvent, Completer
from prompt_toolkit.document import Document

from sgdebug.debugger import Session
from sgdebug.repl.completer import repl_completer
from sgdebug.repl.python import PythonRunner

SessionFactory = Callable[..., Session]


def completer_for(session: Session) -> Completer:
    return repl_completer(session, PythonRunner(session))


def texts(completer: Completer, line: str) -> list[str]:
    found = completer.get_completions(Document(line), CompleteEvent(completion_requested=True))
    return [c.text for c in found]


def metas(completer: Completer, line: str) -> list[str]:
    found = completer.get_completions(Document(line), CompleteEvent(completion_requested=True))
    return [c.display_meta_text for c in found]


@pytest.fixture
def loop(make_session: SessionFactory) -> Session:
    session = make_session("loop")
    session.step(2)  # snapshots 0, 1, 2
    return session


def test_an_empty_line_offers_every_command(loop: Session) -> None:
    found = texts(completer_for(loop), "")

    assert found[:6] == ["step", "next", "finish", "task", "continue", "until"]
    assert {"break", "watch", "set", "goto", "diff", "help", "quit"} <= set(found)


def test_commands_that_cannot_run_now_say_why(loop: Session) -> None:
    completer = completer_for(loop)

    assert metas(completer, "retr") == ["(nothing to retry: no node raised)"]
    assert metas(completer, "contin") == [
        "Run until a breakpoint, an exception, an interrupt or the end."
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("break ", ["before", "after"]),
        ("break before ", ["attempt", "report", "*"]),
        ("break before att", ["attempt"]),
        ("tbreak after r", ["report"]),
        ("until ", ["attempt", "report"]),
        ("update {'count': 1} as ", ["attempt", "report"]),
        ("update {'count': 1} ", ["as"]),
        ("break before attempt ", ["if"]),
    ],
)
def test_node_names_and_keywords(loop: Session, line: str, expected: list[str]) -> None:
    assert texts(completer_for(loop), line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("set ", ["count", "status"]),
        ("set st", ["status"]),
        ("watch ", ["count", "status"]),
        ("p state[", ['"count"]', '"status"]']),
        ("p state['co", ["'count']"]),
        ('print state["s', ['"status"]']),
        ('break before attempt if state["c', ['"count"]']),
        ("x = state[", ['"count"]', '"status"]']),
    ],
)
def test_channel_names(loop: Session, line: str, expected: list[str]) -> None:
    assert texts(completer_for(loop), line) == expected


def test_snapshot_numbers_newest_first_with_what_each_is(loop: Session) -> None:
    completer = completer_for(loop)

    assert texts(completer, "goto ") == ["2", "1", "0"]
    assert texts(completer, "diff 0 ") == ["2", "1", "0"]
    assert texts(completer, "show 1") == ["1"]
    assert metas(completer, "goto ") == [
        "step 1 loop ran attempt (here)",
        "step 0 loop ran __start__",
        "step -1 input",
    ]


def test_snapshot_numbers_follow_new_snapshots(loop: Session) -> None:
    completer = completer_for(loop)
    loop.set("count", "10")

    assert texts(completer, "goto ")[0] == "3"


def test_breakpoint_numbers_after_delete(loop: Session) -> None:
    loop.break_("before", "report")
    completer = completer_for(loop)

    assert texts(completer, "delete ") == ["0", "1", "all"]
    assert metas(completer, "disable ") == ["on exception", "before report"]


def test_python_names_attributes_and_forced_python(loop: Session) -> None:
    runner = PythonRunner(loop)
    runner.run("threshold = 3")
    completer = repl_completer(loop, runner)

    assert "threshold" in texts(completer, "x = thr")
    assert "attempt" in texts(completer, "!att")  # the module's function, not the node
    assert "builder" in texts(completer, "graph.bui")
    assert texts(completer, "state.ke") == ["keys"]
    assert "state" in texts(completer, "sta")  # both the command and the name, once
    assert texts(completer, "sta").count("state") == 1


def test_resume_with_two_interrupts_completes_a_dict_of_their_ids() -> None:
    from tests.debugger.engine_scenarios import parallel_reviews

    session = parallel_reviews("native")
    session.restart()
    session.continue_()
    first, second = (i.id for i in session.interrupts)
    assert texts(completer_for(session), "resume ") == [f"{{'{first}': , '{second}': }}"]
