"""add_messages / MessagesState against LangGraph's, and the plain-dict fallback."""

from __future__ import annotations

import inspect
import itertools
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_type_hints
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langgraph.graph.message import add_messages as _lg_add_messages

from sgdebug.runtime.graph import _messages
from sgdebug.runtime.graph._messages import (
    REMOVE_ALL_MESSAGES,
    MessagesState,
    add_messages,
    message_backend,
    set_message_backend,
)

Inputs = Callable[[], tuple[Any, Any]]
RA = REMOVE_ALL_MESSAGES
lg_add_messages: Any = _lg_add_messages  # LangGraph's own, the reference


def outcome(reducer: Callable[..., Any], make: Inputs, **kwargs: Any) -> tuple[Any, ...]:
    """Run ``reducer`` on fresh inputs with ids 0, 1, 2 ...: its result or its error."""
    counter = itertools.count()
    with mock.patch("uuid.uuid4", lambda: uuid.UUID(int=next(counter))):
        try:
            return ("ok", reducer(*make(), **kwargs))
        except Exception as exc:
            return ("error", type(exc), str(exc))


def assert_same(make: Inputs, **kwargs: Any) -> tuple[Any, ...]:
    ours = outcome(add_messages, make, **kwargs)
    assert ours == outcome(lg_add_messages, make, **kwargs)
    return ours


@pytest.fixture
def dict_backend() -> Iterator[None]:
    set_message_backend("dict")
    yield
    set_message_backend("auto")


H, A = HumanMessage, AIMessage

CASES: dict[str, Inputs] = {
    "append": lambda: ([H("a", id="1")], [A("b", id="2")]),
    "replace_in_place": lambda: (
        [H("a", id="1"), A("b", id="2"), H("c", id="3")],
        [A("B", id="2")],
    ),
    "single_right": lambda: ([H("a", id="1")], A("b", id="2")),
    "single_left": lambda: (H("a", id="1"), [A("b", id="2")]),
    "empty": lambda: ([], []),
    "str_right": lambda: ([], "hello"),
    "str_lists": lambda: (["x", "y"], ["z"]),
    "tuples": lambda: (
        [],
        [("user", "u"), ("assistant", "a"), ("system", "s"), ("developer", "d"), ("ai", "i")],
    ),
    "single_tuple": lambda: ([], ("human", "hi")),
    "list_pair": lambda: ([], [["user", "hi"]]),
    "dicts": lambda: (
        [{"role": "user", "content": "a", "id": "1"}],
        [
            {"type": "ai", "content": "b"},
            {"role": "tool", "content": "r", "tool_call_id": "t1"},
            {"role": "function", "content": "f", "name": "fn"},
        ],
    ),
    "dict_empty_content": lambda: ([], [{"role": "user", "content": None, "id": "x"}]),
    "dict_extras": lambda: ([], [{"role": "developer", "content": "d", "id": "x", "foo": 1}]),
    "chunk_appended": lambda: ([H("a", id="1")], [AIMessageChunk(content="b", id="2")]),
    "chunk_replaces": lambda: ([A("a", id="1")], AIMessageChunk(content="b", id="1")),
    "ids_filled": lambda: ([H("a"), H("b")], [A("c"), "d"]),
    "remove": lambda: ([H("a", id="1"), H("b", id="2")], [RemoveMessage(id="1")]),
    "remove_dict": lambda: ([H("a", id="1")], [{"type": "remove", "id": "1", "content": ""}]),
    "remove_then_readd": lambda: (
        [H("a", id="1"), H("z", id="2")],
        [RemoveMessage(id="1"), H("b", id="1")],
    ),
    "add_then_remove": lambda: ([H("a", id="1")], [H("b", id="5"), RemoveMessage(id="5")]),
    "remove_twice": lambda: ([H("a", id="1")], [RemoveMessage(id="1"), RemoveMessage(id="1")]),
    "remove_all": lambda: (
        [H("a", id="1"), H("b", id="2")],
        [RemoveMessage(id=RA), H("c", id="3")],
    ),
    "remove_all_last_wins": lambda: (
        [H("a", id="1")],
        [H("x"), RemoveMessage(id=RA), H("y"), RemoveMessage(id=RA), H("z")],
    ),
    "remove_all_skips_checks": lambda: (
        [H("a", id="1")],
        [RemoveMessage(id=RA), RemoveMessage(id="?")],
    ),
    "duplicate_left_replace": lambda: ([H("a", id="1"), H("b", id="1")], [A("c", id="1")]),
    "duplicate_left_remove": lambda: ([H("a", id="1"), H("b", id="1")], [RemoveMessage(id="1")]),
    "duplicate_right": lambda: ([], [H("a", id="1"), A("b", id="1")]),
    "err_remove_unknown": lambda: ([H("a", id="1")], [RemoveMessage(id="9")]),
    "err_remove_dict_no_content": lambda: ([H("a", id="1")], [{"type": "remove", "id": "1"}]),
    "err_remove_tuple": lambda: ([], [("remove", "")]),
    "err_bad_role": lambda: ([], [{"role": "badrole", "content": "x"}]),
    "err_no_role": lambda: ([], [{"content": "no role"}]),
    "err_int": lambda: ([], 5),
    "err_triple": lambda: ([], [(1, 2, 3)]),
    "err_tuple_left": lambda: ((H("a", id="1"),), [A("b", id="2")]),
    "err_tool_without_call_id": lambda: ([], [("tool", "t")]),
    "err_left_before_right": lambda: ([7], [{"content": "x"}]),
}


@pytest.mark.parametrize("key", CASES)
def test_matches_langgraph(key: str) -> None:
    result = assert_same(CASES[key])
    assert (result[0] == "error") == key.startswith("err_")


def test_key_behaviours_spelled_out() -> None:
    merged = add_messages([H("a", id="1"), A("b", id="2")], [A("B", id="2"), H("c", id="3")])
    assert [(m.content, m.id) for m in merged] == [("a", "1"), ("B", "2"), ("c", "3")]
    assert add_messages([H("a", id="1")], [RemoveMessage(id=RA), H("c", id="3")]) == [
        H("c", id="3")
    ]
    with pytest.raises(
        ValueError, match=r"^Attempting to delete a message with an ID that doesn't exist \('9'\)$"
    ):
        add_messages([H("a", id="1")], [RemoveMessage(id="9")])


@pytest.mark.parametrize("fmt", ["bogus", ""])
def test_unknown_format_matches_langgraph(fmt: Any) -> None:
    assert_same(CASES["append"], format=fmt)
    assert_same(CASES["remove_all"], format=fmt)


OPENAI_CASES: dict[str, Inputs] = {
    "plain": lambda: ([H("hi", id="1")], [("ai", "hello")]),
    "tools_and_blocks": lambda: (
        [H("hi", id="1")],
        [
            A("", id="2", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}]),
            ToolMessage("res", tool_call_id="c1", id="3"),
            ("user", [{"type": "text", "text": "t"}, {"type": "image", "url": "http://x/y.png"}]),
        ],
    ),
}


@pytest.mark.parametrize("make", OPENAI_CASES.values(), ids=OPENAI_CASES.keys())
def test_openai_format_matches_langgraph(make: Inputs) -> None:
    assert assert_same(make, format="langchain-openai")[0] == "ok"
    ours = outcome(add_messages(format="langchain-openai"), make)
    assert ours == outcome(lg_add_messages(format="langchain-openai"), make)


@pytest.mark.parametrize(
    ("left", "right"),
    [([], None), (None, []), (None, ["x"]), (["x"], None), ([H("a", id="1")], None)],
)
def test_one_side_only_error_matches(left: Any, right: Any) -> None:
    make: Inputs = lambda: (left, right)  # noqa: E731
    result = assert_same(make)
    assert result[:2] == ("error", ValueError)
    assert str(result[2]).startswith("Must specify non-null arguments for both 'left' and 'right'.")


def test_no_sides_returns_binary_reducer() -> None:
    reducer = add_messages()
    assert reducer([H("a", id="1")], A("b", id="2")) == [H("a", id="1"), A("b", id="2")]
    bogus: Any = "bogus"
    bad = add_messages(format=bogus)
    with pytest.raises(ValueError, match="Unrecognized format='bogus'"):
        bad([], [])


def test_left_messages_get_ids_in_place_like_langgraph() -> None:
    for reducer in (add_messages, lg_add_messages):
        first, right = H("a"), [A("b", id="2")]
        merged = reducer([first], right)
        assert first.id is not None and merged[0] is first
        assert right == [A("b", id="2")]
        uuid.UUID(first.id)  # a real uuid4 string


def test_signature_counts_as_binary_reducer() -> None:
    params = inspect.signature(add_messages).parameters.values()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    assert [p.name for p in params if p.kind in positional] == ["left", "right"]
    configured = inspect.signature(add_messages(format="langchain-openai")).parameters.values()
    assert sum(p.kind in positional for p in configured) == 2


def test_messages_state_annotation() -> None:
    hint = get_type_hints(MessagesState, include_extras=True)["messages"]
    assert hint.__metadata__[-1] is add_messages
    assert hint.__origin__ == list[Any]


def test_messages_state_runs_in_langgraph_like_its_own() -> None:
    from langgraph.graph import StateGraph
    from langgraph.graph.message import MessagesState as LgMessagesState

    def run(schema: Any) -> Any:
        builder = StateGraph(schema)
        builder.add_node("bot", lambda s: {"messages": [("ai", f"seen {len(s['messages'])}")]})
        builder.set_entry_point("bot")
        builder.set_finish_point("bot")
        return builder.compile().invoke({"messages": ["hi"]})

    assert outcome(lambda: run(MessagesState), lambda: ((), ())) == outcome(
        lambda: run(LgMessagesState), lambda: ((), ())
    )


# -- property: random histories and updates, ids drawn from a small pool ---------------------

IDS = st.sampled_from(["1", "2", "3", "4", None])


@st.composite
def message_like(draw: st.DrawFn, dicts_only: bool = False) -> Any:
    kinds = ["str", "tuple", "dict", "remove_dict"]
    if not dicts_only:
        kinds += ["human", "ai", "system", "chunk", "remove", "remove"]
    kind = draw(st.sampled_from(kinds))
    content = draw(st.sampled_from(["a", "b", "c"]))
    mid = draw(IDS)
    role = draw(st.sampled_from(["user", "human", "ai", "assistant", "system", "developer"]))
    rid = draw(st.sampled_from(["1", "2", "3", "4", "9", RA]))
    if kind == "str":
        return content
    if kind == "tuple":
        return (role, content)
    if kind == "dict":
        return {"role": role, "content": content, "id": mid}
    if kind == "remove_dict":
        return {"type": "remove", "content": "", "id": rid}
    if kind == "remove":
        return RemoveMessage(id=rid)
    cls = {"human": HumanMessage, "ai": AIMessage, "system": SystemMessage}.get(
        kind, AIMessageChunk
    )
    return cls(content=content, id=mid)


def side(dicts_only: bool = False) -> st.SearchStrategy[Any]:
    item = message_like(dicts_only)
    return st.one_of(st.lists(item, max_size=6), item)


def fresh(value: Any) -> Any:
    """A deep copy, so each reducer gets its own message objects to assign ids to."""
    if isinstance(value, list):
        return [fresh(v) for v in value]
    if isinstance(value, BaseMessage):
        return value.model_copy(deep=True)
    return dict(value) if isinstance(value, dict) else value


@settings(max_examples=300, deadline=None)
@given(side(), side())
def test_property_matches_langgraph(left: Any, right: Any) -> None:
    assert_same(lambda: (fresh(left), fresh(right)))


def as_rows(result: tuple[Any, ...]) -> tuple[Any, ...]:
    """A reducer outcome with langchain messages projected to (role, content, id)."""
    if result[0] == "error":
        return result
    roles = {"human": "user", "ai": "assistant"}
    rows = []
    for m in result[1]:
        if isinstance(m, dict):
            rows.append((m["role"], m["content"], m["id"]))
            continue
        role = m.additional_kwargs.get("__openai_role__") or roles.get(m.type, m.type)
        rows.append((role, m.content, m.id))
    return ("ok", rows)


@settings(max_examples=300, deadline=None)
@given(side(dicts_only=True), side(dicts_only=True))
def test_property_dict_backend_merges_like_langchain(left: Any, right: Any) -> None:
    make: Inputs = lambda: (fresh(left), fresh(right))  # noqa: E731
    with_langchain = as_rows(outcome(add_messages, make))
    set_message_backend("dict")
    try:
        assert as_rows(outcome(add_messages, make)) == with_langchain
    finally:
        set_message_backend("auto")


# -- the dict fallback -------------------------------------------------------------------------


@pytest.mark.usefixtures("dict_backend")
def test_dict_backend_coerces_to_normalised_dicts() -> None:
    assert message_backend() == "dict"
    counter = itertools.count()
    with mock.patch("uuid.uuid4", lambda: uuid.UUID(int=next(counter))):
        merged = add_messages("hi", [("ai", "yo"), {"type": "developer", "content": None, "k": 1}])
    ids = [str(uuid.UUID(int=n)) for n in range(3)]
    assert merged == [
        {"role": "user", "content": "hi", "id": ids[0]},
        {"role": "assistant", "content": "yo", "id": ids[1]},
        {"role": "developer", "content": "", "k": 1, "id": ids[2]},
    ]
    assert not any(isinstance(m, BaseMessage) for m in merged)


@pytest.mark.usefixtures("dict_backend")
def test_dict_backend_replaces_removes_and_keeps_objects() -> None:
    first = {"role": "user", "content": "a", "id": "1"}
    update = {"role": "ai", "content": "B", "id": "2"}
    merged = add_messages([first, {"role": "assistant", "content": "b", "id": "2"}], [update])
    assert merged[0] is first
    assert merged[1] == {"role": "assistant", "content": "B", "id": "2"}
    assert update == {"role": "ai", "content": "B", "id": "2"}  # the caller's dict is untouched
    assert add_messages(merged, {"type": "remove", "content": "", "id": "1"}) == [merged[1]]
    assert (
        add_messages(merged, [{"role": "remove", "content": "", "id": RA}, "x"])[0]["content"]
        == "x"
    )
    with pytest.raises(ValueError, match=r"^Attempting to delete .* \('9'\)$"):
        add_messages(merged, {"role": "remove", "content": "", "id": "9"})


@pytest.mark.parametrize(
    "key", [k for k in CASES if k.startswith("err_") and "tuple_left" not in k]
)
def test_dict_backend_error_texts_match(key: str) -> None:
    def plain(value: Any) -> Any:
        if isinstance(value, RemoveMessage):
            return {"role": "remove", "content": "", "id": value.id}
        if isinstance(value, BaseMessage):
            return {"role": value.type, "content": value.content, "id": value.id}
        return [plain(v) for v in value] if isinstance(value, list) else value

    def make() -> tuple[Any, Any]:
        left, right = CASES[key]()
        return plain(left), plain(right)

    expected = outcome(lg_add_messages, make)
    set_message_backend("dict")
    try:
        ours = outcome(add_messages, make)
    finally:
        set_message_backend("auto")
    if key == "err_tool_without_call_id":  # a langchain validation detail, not ours to copy
        assert ours[0] == "ok"
    else:
        assert ours == expected


@pytest.mark.usefixtures("dict_backend")
def test_dict_backend_openai_format_warns_and_keeps_dicts() -> None:
    with pytest.warns(UserWarning, match="Must have langchain-core>=0.3.11"):
        merged = add_messages(format="langchain-openai")(
            [], [{"role": "user", "content": "x", "id": "1"}]
        )
    assert merged == [{"role": "user", "content": "x", "id": "1"}]


def test_backend_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    assert message_backend() == "langchain"
    monkeypatch.setattr(_messages, "_import_langchain", lambda: None)
    assert message_backend() == "dict"
    assert add_messages([], "x")[0]["role"] == "user"
    set_message_backend("langchain")
    try:
        with pytest.raises(ImportError):
            add_messages([], "x")
    finally:
        set_message_backend("auto")
    with pytest.raises(ValueError, match="Unknown message backend"):
        set_message_backend("pickle")  # type: ignore[arg-type]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=root
    )


def test_import_does_not_load_langchain() -> None:
    code = "import sgdebug.runtime.graph._messages, sys; assert 'langchain_core' not in sys.modules"
    assert run_python(code).returncode == 0


def test_without_langchain_installed_uses_dicts() -> None:
    code = (
        "import sys; sys.modules['langchain_core'] = None\n"
        "from sgdebug.runtime.graph._messages import add_messages\n"
        "out = add_messages([{'role': 'user', 'content': 'a', 'id': '1'}], ('ai', 'b'))\n"
        "assert [(m['role'], m['content']) for m in out] == [('user', 'a'), ('assistant', 'b')]\n"
        "assert add_messages(out, {'type': 'remove', 'content': '', 'id': '1'})[0] is out[1]\n"
        "print('dicts')"
    )
    result = run_python(code)
    assert result.stdout.strip() == "dicts", result.stderr
