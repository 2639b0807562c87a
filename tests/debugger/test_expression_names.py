"""Names an expression sees beyond the module's: channels by bare name, the classes of the
values the state holds, names checked when a condition is set, and answers taken as text."""

from __future__ import annotations

import pprint

from sgdebug.debugger import Session
from sgdebug.debugger.evaluation import Evaluator, parse_answer, unknown_names, value_classes

from .helpers import ok, refused, sample_session


def _chatbot_after_the_first_tool_call() -> Session:
    session = sample_session("chatbot")
    ok(session, "restart")
    ok(session, "step")
    ok(session, "step")  # agent asked for get_weather: a HumanMessage and an AIMessage
    return session


def test_the_text_a_message_list_prints_as_can_be_set_back() -> None:
    session = _chatbot_after_the_first_tool_call()
    before = session.view().values["messages"]
    text = pprint.pformat(before, width=72, sort_dicts=False)  # what `e` prefills
    assert text.startswith("[HumanMessage(")
    outcome = ok(session, f"set messages = {text.replace('Calling', 'Now calling')}")
    assert outcome.message == "Set messages."
    after = session.view().values["messages"]
    assert [type(m).__name__ for m in after] == ["HumanMessage", "AIMessage"]
    assert after[1].content == "Now calling get_weather."


def test_channels_are_seen_by_bare_name_in_print_set_and_conditions() -> None:
    session = _chatbot_after_the_first_tool_call()
    assert ok(session, "print len(messages)").value == 2
    ok(session, "set messages = messages[:1]")
    assert len(session.view().values["messages"]) == 1


def test_a_bare_channel_name_never_shadows_a_module_or_builtin_name() -> None:
    session = sample_session("linear", extra={"len": lambda value: "mine"})
    ok(session, "restart")
    assert ok(session, "print len([1, 2])").value == "mine"


def test_a_condition_over_a_bare_channel_name_fires_without_errors() -> None:
    session = sample_session("chatbot")
    ok(session, "break before agent if len(messages) > 2")
    ok(session, "restart")
    outcome = ok(session, "continue")
    assert outcome.stop is not None and outcome.stop.hits
    assert outcome.stop.hits[0].condition_error is None
    assert len(session.view().values["messages"]) == 3


def test_a_condition_naming_an_unknown_name_is_refused_when_set() -> None:
    session = sample_session("chatbot")
    message = refused(session, "break before agent if len(mesages) > 6").message
    assert "'mesages' is not defined" in message
    assert "channels: messages" in message
    assert "'nw'" in refused(session, "watch messages if len(nw) > 1").message
    ok(session, "watch messages if len(new) > len(old)")
    ok(session, "break before agent if any(m for m in messages if (lambda x: x)(m))")
    assert [bp.number for bp in session.breakpoints] == [0, 1, 2]


def test_unknown_names_leaves_out_locals_builtins_and_attributes() -> None:
    source = "[x.content for x in messages if len(x.content) > limit] and (lambda q: q)(y)"
    assert unknown_names(source, {"messages"}) == ("limit", "y")


def test_value_classes_finds_nested_classes_and_drops_ambiguous_names() -> None:
    class Point:
        def __init__(self, inner: object) -> None:
            self.inner = inner

    class Other:
        pass

    other_point = type("Point", (), {})
    found = value_classes({"a": [Point(Other())], "b": ({"k": 1},)})
    assert found == {"Point": Point, "Other": Other}
    assert "Point" not in value_classes([Point(None), other_point()])


def test_an_answer_that_is_not_python_is_taken_as_text_with_a_note() -> None:
    evaluator = Evaluator({"yes_please": 1})
    assert parse_answer("make it shorter", evaluator) == (
        "make it shorter",
        "not a Python expression, so answered with the text 'make it shorter' "
        "(quote it to be sure)",
    )
    value, note = parse_answer("yes", evaluator)
    assert (value, note is not None) == ("yes", True)
    assert parse_answer("'yes'", evaluator) == ("yes", None)
    assert parse_answer("yes_please", evaluator) == (1, None)
    assert parse_answer("{'ok': True}", evaluator) == ({"ok": True}, None)


def test_resume_with_unquoted_text_answers_the_interrupt_with_it() -> None:
    session = sample_session("approval")
    ok(session, "restart")
    ok(session, "continue")
    outcome = ok(session, "resume make it shorter")
    # said before what the resumed run did, so the log reads in order
    assert "answered with the text 'make it shorter'" in outcome.ran[0]
    assert session.view().values["feedback"] == ["make it shorter"]
    outcome = ok(session, "resume yes")
    assert session.view().values["status"].startswith("sent: ")


def test_a_stop_at_a_breakpoint_names_its_node_once() -> None:
    session = sample_session("loop")
    ok(session, "break before attempt")
    ok(session, "restart")
    assert (
        ok(session, "continue").message == "Stopped before step 1 at breakpoint 1 (before attempt)."
    )
    ok(session, "delete all")
    ok(session, "break before *")
    assert ok(session, "step").message.endswith("at breakpoint 2 (before *) at attempt.")
