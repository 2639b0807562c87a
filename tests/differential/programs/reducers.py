"""Programs exercising reducers (BinaryOperatorAggregate) and Overwrite."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Annotated, Any, Optional, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say, ts, typed_dict


def times_ten(left: Any, right: Any) -> Any:
    """A custom reducer that ignores the old value."""
    return right * 10


def merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Dict merge reducer."""
    return {**left, **right}


class Vec:
    """A value type whose constructor needs arguments (so the reducer has no ``T()``)."""

    def __init__(self, x: int) -> None:
        self.x = x

    def __add__(self, other: Vec) -> Vec:
        return Vec(self.x + other.x)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vec) and other.x == self.x

    def __hash__(self) -> int:
        return hash(self.x)

    def __repr__(self) -> str:
        return f"Vec({self.x})"


@program()
def reducer_applies_to_input_and_parallel_writes(g: EngineAPI) -> Case:
    class S(TypedDict):
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(S)
    b.add_node("a", say("a")).add_node("b", say("b")).add_node("c", say("c"))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c")
    return Case(
        b.compile(),
        inputs=({"log": ["i"]}, {}),
        expect=({"log": ["i", "a", "b", "c"]}, {"log": ["a", "b", "c"]}),
        expect_updates=[{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}, {"c": {"log": ["c"]}}],
    )


@program()
def reducer_defaults_always_present(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: int
        n: Annotated[int, operator.add]
        s: Annotated[str, operator.add]
        seq: Annotated[Sequence[int], operator.add]
        d: Annotated[dict[str, int], merge]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"x": s["x"] + 1})
    b.add_edge(g.START, "a")
    expected = {"x": 2, "n": 0, "s": "", "seq": [], "d": {}}
    return Case(b.compile(), inputs=({"x": 1},), expect=(expected,))


@program()
def invoke_returns_none_when_nothing_written(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: int
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: None)
    b.add_node("b", lambda s: {})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        b.compile(), inputs=({}, {"junk": 1}, {"x": 1}), expect=(None, None, {"x": 1, "log": []})
    )


@program()
def custom_reducer_on_input(g: EngineAPI) -> Case:
    class S(TypedDict):
        custom: Annotated[int, times_ten]
        text: Annotated[str, operator.add]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"custom": 2, "text": "a"})
    b.add_edge(g.START, "a")
    return Case(
        b.compile(),
        inputs=({"custom": 1, "text": "i"},),
        expect=({"custom": 20, "text": "ia"},),
    )


@program()
def reducer_without_default_stores_first_write(g: EngineAPI) -> Case:
    class S(TypedDict):
        opt: Annotated[Optional[int], operator.add]  # noqa: UP045 - the spec's example
        vec: Annotated[Vec, operator.add]
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"opt": 5, "vec": Vec(1), "log": [repr(s.get("opt"))]})
    b.add_node("b", lambda s: {"opt": 1, "vec": Vec(2), "log": [repr(s.get("opt"))]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        b.compile(),
        inputs=({}, {"opt": 3}),
        expect=(
            {"opt": 6, "vec": Vec(3), "log": ["None", "5"]},
            {"opt": 9, "vec": Vec(3), "log": ["3", "8"]},
        ),
    )


@program()
def reducer_only_last_metadata_item(g: EngineAPI) -> Case:
    class S(TypedDict):
        summed: Annotated[int, "doc", operator.add]
        plain: Annotated[int, operator.add, "doc"]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"summed": 2, "plain": 2})
    b.add_edge(g.START, "a")
    return Case(
        b.compile(), inputs=({"summed": 1, "plain": 1},), expect=({"summed": 3, "plain": 2},)
    )


@program(raises=err("ValueError", "Invalid reducer signature. Expected (a, b) -> c. Got (a)"))
def reducer_with_one_parameter(g: EngineAPI) -> Case:
    S = typed_dict("S", {"x": Annotated[int, lambda a: a]})
    return Case(g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a").compile())


@program(
    raises=err(
        "ValueError",
        "Invalid reducer signature. Expected (a, b) -> c. "
        "Got (a: 'Any', b: 'Any', c: 'int' = 1) -> 'Any'",
    )
)
def reducer_with_defaulted_third_parameter(g: EngineAPI) -> Case:
    def bad(a: Any, b: Any, c: int = 1) -> Any:
        return a

    S = typed_dict("S", {"x": Annotated[int, bad]})
    return Case(g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a").compile())


@program(raises=err("ValueError", "no signature found for builtin <built-in function max>"))
def builtin_without_signature_as_reducer(g: EngineAPI) -> Case:
    """``max`` cannot be checked for two parameters: building the state graph refuses it."""
    S = typed_dict("S", {"x": Annotated[int, max]})
    return Case(g.StateGraph(S).add_node("a", say("a")).add_edge(g.START, "a").compile())


@program()
def reducer_order_is_task_name_order(g: EngineAPI) -> Case:
    class S(TypedDict):
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(S)
    for name in ("z", "b9", "b10", "a", "_x", "M"):
        b.add_node(name, say(name)).add_edge(g.START, name)
    order = ["M", "_x", "a", "b10", "b9", "z"]
    return Case(
        b.compile(),
        expect=({"log": order},),
        expect_updates=[{n: {"log": [n]}} for n in order],
    )


@program()
def reducer_set_union_and_lambda(g: EngineAPI) -> Case:
    class S(TypedDict):
        tags: Annotated[set[str], operator.or_]
        d: Annotated[dict[str, int], lambda a, b: {**a, **b}]

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"tags": {"a"}, "d": {"a": 1, "k": 1}})
    b.add_node("b", lambda s: {"tags": {"b"}, "d": {"k": 2}})
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(
        b.compile(),
        inputs=({"tags": {"i"}},),
        expect=({"tags": {"a", "b", "i"}, "d": {"a": 1, "k": 2}},),
    )


def _log_state() -> type:
    class S(TypedDict):
        x: int
        log: Annotated[list[str], operator.add]

    return S


@program()
def overwrite_replaces_reducer_value(g: EngineAPI) -> Case:
    b = g.StateGraph(_log_state())
    b.add_node("a", say("a"))
    b.add_node("b", lambda s: {"log": g.Overwrite(["o"])})
    b.add_node("c", lambda s: {"log": {"__overwrite__": ["d"]}})
    b.add_node("e", say("e"))
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", "e")
    return Case(b.compile(), inputs=({"log": ["i"]},), expect=({"log": ["d", "e"]},))


@program()
def overwrite_in_step_discards_earlier_ignores_later(g: EngineAPI) -> Case:
    b = g.StateGraph(_log_state())
    b.add_node("a", say("a"))
    b.add_node("b", lambda s: {"log": g.Overwrite(["o"])})
    b.add_node("c", say("c"))
    for n in ("a", "b", "c"):
        b.add_edge(g.START, n)
    return Case(b.compile(), inputs=({"log": ["i"]},), expect=({"log": ["o"]},))


@program()
def overwrite_twice_in_one_step(g: EngineAPI) -> Case:
    b = g.StateGraph(_log_state())
    b.add_node("a", lambda s: {"log": g.Overwrite(["a"])})
    b.add_node("b", lambda s: {"log": g.Overwrite(["b"])})
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    msg = "Can receive only one Overwrite value per super-step."
    msg += ts("INVALID_CONCURRENT_GRAPH_UPDATE")
    return Case(b.compile(), expect=(err("InvalidUpdateError", msg),))


@program()
def overwrite_as_graph_input(g: EngineAPI) -> Case:
    b = g.StateGraph(_log_state())
    b.add_node("a", say("a"))
    b.add_edge(g.START, "a")
    return Case(
        b.compile(),
        inputs=({"log": g.Overwrite(["ow"])}, {"log": {"__overwrite__": ["d"]}}),
        expect=({"log": ["ow", "a"]}, {"log": ["d", "a"]}),
    )


@program()
def overwrite_on_plain_key_is_stored(g: EngineAPI) -> Case:
    b = g.StateGraph(_log_state())
    b.add_node("a", lambda s: {"x": g.Overwrite(5)})
    b.add_node("b", lambda s: {"log": [type(s["x"]).__name__]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(b.compile(), inputs=({"x": 1},))


@program()
def reducer_error_in_single_task_step(g: EngineAPI) -> Case:
    # LangGraph streams no ``updates`` event for the only task of a step whose writes
    # then fail in the reducer (compare reducer_error_with_a_sibling_task).
    b = g.StateGraph(_log_state())
    b.add_node("ok", say("ok")).add_node("a", lambda s: {"log": 5})
    b.add_edge(g.START, "ok").add_edge("ok", "a")
    msg = 'can only concatenate list (not "int") to list'
    return Case(b.compile(), expect=(err("TypeError", msg),))


@program()
def reducer_error_with_a_sibling_task(g: EngineAPI) -> Case:
    b = g.StateGraph(_log_state())
    b.add_node("a", lambda s: {"log": 5}).add_node("b", say("b"))
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    msg = 'can only concatenate list (not "int") to list'
    return Case(b.compile(), expect=(err("TypeError", msg),))
