"""Programs exercising each channel kind, its visibility rules and its errors."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from sgdebug.sample_graphs._engines import EngineAPI

from ..harness import Case, err, program, say, ts, typed_dict

CONCURRENT = ts("INVALID_CONCURRENT_GRAPH_UPDATE")


@program()
def last_value_sequential(g: EngineAPI) -> Case:
    class S(TypedDict):
        x: int

    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"x": s["x"] + 1})
    b.add_node("b", lambda s: {"x": s["x"] * 10})
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", g.END)
    return Case(b.compile(), inputs=({"x": 1}, {"x": -3}), expect=({"x": 20}, {"x": -20}))


def _two_writers(g: EngineAPI, value_a: Any, value_b: Any) -> Any:
    class S(TypedDict):
        x: int
        log: Annotated[list[str], operator.add]

    b = g.StateGraph(S)
    b.add_node("a", say("a", x=value_a))
    b.add_node("b", say("b", x=value_b))
    b.add_node("c", say("c"))
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c")
    return b.compile()


@program()
def last_value_two_writers_in_one_step(g: EngineAPI) -> Case:
    msg = "At key 'x': Can receive only one value per step. Use an Annotated key to handle "
    msg += "multiple values." + CONCURRENT
    return Case(_two_writers(g, 1, 2), inputs=({"x": 0},), expect=(err("InvalidUpdateError", msg),))


@program()
def last_value_two_equal_none_writes_still_fail(g: EngineAPI) -> Case:
    return Case(_two_writers(g, None, None), inputs=({"x": 0},))


@program()
def ephemeral_visible_for_one_step(g: EngineAPI) -> Case:
    S = typed_dict(
        "S",
        {"x": int, "e": Annotated[int, g.EphemeralValue], "seen": Annotated[list, operator.add]},
    )
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"e": s["x"] * 2})
    b.add_node("b", lambda s: {"seen": [s.get("e")]})
    b.add_node("c", lambda s: {"seen": [s.get("e")]})
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    return Case(
        b.compile(), inputs=({"x": 1},), modes=("debug",), expect=({"x": 1, "seen": [2, None]},)
    )


@program()
def ephemeral_from_input(g: EngineAPI) -> Case:
    S = typed_dict(
        "S", {"e": Annotated[str, g.EphemeralValue], "log": Annotated[list, operator.add]}
    )
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"log": [s.get("e", "-")]})
    b.add_node("b", lambda s: {"log": [s.get("e", "-")]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        b.compile(), inputs=({"e": "in"}, {}), expect=({"log": ["in", "-"]}, {"log": ["-", "-"]})
    )


@program()
def ephemeral_guard_error(g: EngineAPI) -> Case:
    S = typed_dict("S", {"e": Annotated[int, g.EphemeralValue]})
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"e": 1})
    b.add_node("b", lambda s: {"e": 2})
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    msg = "At key 'e': EphemeralValue(guard=True) can receive only one value per step. "
    msg += "Use guard=False if you want to store any one of multiple values."
    return Case(b.compile(), expect=(err("InvalidUpdateError", msg),))


@program()
def ephemeral_unguarded_instance(g: EngineAPI) -> Case:
    S = typed_dict(
        "S",
        {
            "e": Annotated[int, g.EphemeralValue(int, guard=False)],
            "log": Annotated[list, operator.add],
        },
    )
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"e": 1})
    b.add_node("b", lambda s: {"e": 2})
    b.add_node("c", lambda s: {"log": [s.get("e")]})
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge(["a", "b"], "c")
    return Case(b.compile())


@program()
def topic_collects_one_step(g: EngineAPI) -> Case:
    S = typed_dict(
        "S", {"t": Annotated[list[int], g.Topic(int)], "seen": Annotated[list, operator.add]}
    )
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"t": [1, 2]})
    b.add_node("b", lambda s: {"t": 3})
    b.add_node("c", lambda s: {"seen": [list(s.get("t", []))]})
    b.add_node("d", lambda s: {"seen": [list(s.get("t", []))]})
    b.add_edge(g.START, "a").add_edge(g.START, "b").add_edge("a", "c").add_edge("c", "d")
    return Case(b.compile(), modes=("debug",), expect=({"seen": [[1, 2, 3], []]},))


@program()
def topic_accumulates(g: EngineAPI) -> Case:
    S = typed_dict("S", {"t": Annotated[list[int], g.Topic(int, accumulate=True)], "n": int})
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"t": [1, 2], "n": 1})
    b.add_node("b", lambda s: {"t": s["n"] * 10})
    b.add_node("c", lambda s: {"n": len(s["t"])})
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    return Case(
        b.compile(),
        inputs=({"t": 0}, {"n": 5}),
        expect=({"t": [0, 1, 2, 10], "n": 4}, {"t": [1, 2, 10], "n": 3}),
    )


@program()
def last_value_after_finish_hidden_until_end(g: EngineAPI) -> Case:
    S = typed_dict(
        "S",
        {"f": Annotated[int, g.LastValueAfterFinish], "seen": Annotated[list, operator.add]},
    )
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"f": 1, "seen": [s.get("f")]})
    b.add_node("b", lambda s: {"f": 2, "seen": [s.get("f")]})
    b.add_node("c", lambda s: {"seen": [s.get("f")]})
    b.add_edge(g.START, "a").add_edge("a", "b").add_edge("b", "c")
    return Case(b.compile(), inputs=({}, {"f": 7}))


@program()
def last_value_after_finish_parallel_writes(g: EngineAPI) -> Case:
    S = typed_dict("S", {"f": Annotated[str, g.LastValueAfterFinish], "n": int})
    b = g.StateGraph(S)
    for name in ("b", "a", "c"):
        b.add_node(name, lambda s, name=name: {"f": name}).add_edge(g.START, name)
    return Case(b.compile(), inputs=({"n": 1},), expect=({"f": "c", "n": 1},))


@program()
def untracked_value_basic(g: EngineAPI) -> Case:
    S = typed_dict(
        "S", {"u": Annotated[int, g.UntrackedValue], "log": Annotated[list, operator.add]}
    )
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"u": s.get("u", 0) + 1})
    b.add_node("b", lambda s: {"log": [s.get("u")]})
    b.add_edge(g.START, "a").add_edge("a", "b")
    return Case(
        b.compile(), inputs=({"u": 5}, {}), expect=({"u": 6, "log": [6]}, {"u": 1, "log": [1]})
    )


@program()
def untracked_value_guard_error(g: EngineAPI) -> Case:
    S = typed_dict("S", {"u": Annotated[int, g.UntrackedValue]})
    b = g.StateGraph(S)
    b.add_node("a", lambda s: {"u": 1})
    b.add_node("b", lambda s: {"u": 2})
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(b.compile())


@program()
def binop_channel_instance(g: EngineAPI) -> Case:
    S = typed_dict(
        "S", {"log": Annotated[list, g.BinaryOperatorAggregate(list, operator.add)], "x": int}
    )
    b = g.StateGraph(S)
    b.add_node("a", say("a", x=1))
    b.add_node("b", say("b"))
    b.add_edge(g.START, "a").add_edge(g.START, "b")
    return Case(b.compile(), inputs=({"log": ["i"]},), expect=({"log": ["i", "a", "b"], "x": 1},))


@program()
def last_value_explicit_instance_in_metadata(g: EngineAPI) -> Case:
    S = typed_dict(
        "S", {"x": Annotated[int, "doc", g.LastValue(int)], "log": Annotated[list, operator.add]}
    )
    b = g.StateGraph(S)
    b.add_node("a", say("a", x=3))
    b.add_edge(g.START, "a")
    return Case(b.compile(), inputs=({"x": 1},), expect=({"x": 3, "log": ["a"]},))
